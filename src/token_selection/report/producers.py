"""How each record of the catalogue is produced and written: one function per kind of experiment, called by the one
runner (``scripts/run_records.py``) through ``catalogue.Entry.write``.

Every producer takes the scale as an argument (nothing is read from the environment) and writes exactly one record
through ``results.write_record``: a real-data experiment over its preset's seeds (``pipeline.run_seeds``), a
diagnosis, a study, or the report's theory claims.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import cache

from tqdm.auto import tqdm

from ..real_data.diagnoses import DIAGNOSES
from ..real_data.encoding import EncodedReviews
from ..real_data.pipeline import load_data, preset_seeds, run_seeds
from ..real_data.settings import RealDataSettings, real_data_settings
from ..real_data.yelp_stars import prepare_yelp_stars
from ..results import write_record
from ..studies.registry import STUDIES
from . import theory_claims

Producer = Callable[[bool, "int | None"], None]
"""(progress, max_seeds) -> None: writes one record. ``max_seeds`` caps a real-data experiment's seeds (a partial
record, which the catalogue reads as stale); the other kinds ignore it."""


def preset_of(dataset: str, scale: str) -> RealDataSettings:
    """The preset of a dataset at ``scale`` (4-class Yelp uses the Yelp preset)."""
    return real_data_settings(scale, "yelp_polarity" if dataset == "yelp_stars" else dataset)


@cache
def _reviews(settings: RealDataSettings, progress: bool) -> EncodedReviews:
    """The tokenised reviews of one dataset and seed, loaded once for every experiment of a run on the same data
    (the experiments run seed after seed, so a cache of two would load each seed again for every experiment)."""
    return load_data(settings, progress=progress)


def experiment(dataset: str, kind: str, mode: str, scale: str) -> Producer:
    """A real-data experiment: ``kind`` trained in ``mode`` on ``dataset`` over the preset's seeds at ``scale``."""

    def write(progress: bool, max_seeds: int | None = None) -> None:
        seeds = preset_seeds(kind, scale)[: max_seeds if max_seeds is not None else None]
        if dataset == "yelp_stars":
            data_for = lambda s: prepare_yelp_stars(s, progress=progress)  # noqa: E731
        else:
            data_for = lambda s: _reviews(s, progress)  # noqa: E731
        run_seeds(kind, mode, preset_of(dataset, scale), progress=progress, seeds=seeds, data_for=data_for)

    return write


def _timed(name: str, scale: str, settings: dict, protocol: str, compute: Callable[[], dict]) -> None:
    """Compute a record's metrics and write them with their settings, protocol, seeds (``[0]`` without any) and time."""
    start = time.perf_counter()
    metrics = compute()
    write_record(name, scale, protocol=protocol, settings=settings, metrics=metrics,
                 seeds=list(settings.get("seeds", [0])), seconds=time.perf_counter() - start)  # fmt: skip


def diagnosis(name: str, scale: str) -> Producer:
    """A diagnosis of ``real_data.diagnoses`` at ``scale``."""

    def write(progress: bool, max_seeds: int | None = None) -> None:
        found = DIAGNOSES[name]
        settings = found.settings(scale)
        _timed(name, scale, settings, found.protocol(settings), lambda: found.run(settings, progress=progress))

    return write


def study(name: str, scale: str) -> Producer:
    """A study of ``studies.registry`` at ``scale``."""

    def write(progress: bool, max_seeds: int | None = None) -> None:
        found = STUDIES[name]
        settings = found.settings(scale)
        track = lambda items, total: tqdm(items, total=total, desc=name, disable=not progress)  # noqa: E731
        _timed(name, scale, settings, found.protocol, lambda: found.run(settings, track))

    return write


def theory(scale: str) -> Producer:
    """The report's theory claims (``theory_claims``) at ``scale``."""

    def write(progress: bool, max_seeds: int | None = None) -> None:
        theory_claims.write_theory_record(scale)

    return write
