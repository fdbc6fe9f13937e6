"""Every results record the book reads, with the settings that make it current, at both scales.

    for entry in catalogue(): print(entry.name, entry.scale, record_state(entry))   # "current", "stale", "missing"

A record is *current* when its settings hash equals that of the settings in the code now,
*stale* when it was written under other settings (older code, other seeds or vocabulary),
and *missing* when there is none. ``scripts/run_records.py`` and ``scripts/run_studies.py``
make records current; ``test_catalogue.py`` fails on any record that is missing or not
current.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..real_data.diagnoses import DIAGNOSES
from ..real_data.pipeline import record_name, record_settings
from ..real_data.settings import real_data_settings
from ..results import SCALES, read_record
from ..studies.registry import STUDIES
from . import theory_claims

ARMS = (
    ("one_layer", "joint"),
    ("one_layer", "one_step_frozen"),
    ("one_layer", "frozen_random"),
    ("two_layer", "joint"),
    ("key_query", "joint"),
    ("mlp", "joint"),
)
"""The (kind, mode) pairs run on each binary dataset."""
EXPERIMENTS = [(dataset, kind, mode) for dataset in ("imdb", "yelp_polarity") for kind, mode in ARMS]
EXPERIMENTS.append(("yelp_stars", "multiclass", "joint"))
EXPERIMENTS.append(("imdb", "mlp", "joint_converged"))
"""Every real-data experiment: (dataset, kind, mode); 4-class Yelp uses the Yelp preset. The MLP model on IMDB also
trains to the end of its budget, the last epoch kept: early stopped, it keeps its first epoch, where its attention
has barely left uniform, and the rebuttal's MLP rows read its attention."""


def preset_of(dataset: str, scale: str):
    """The preset of a dataset at ``scale`` (4-class Yelp uses the Yelp preset)."""
    return real_data_settings(scale, "yelp_polarity" if dataset == "yelp_stars" else dataset)


@dataclass(frozen=True)
class Entry:
    """One record the book reads: its name, scale, and the settings that make it current (a thunk: computed when
    asked)."""

    name: str
    scale: str
    settings: Callable[[], dict[str, Any]]
    command: str


def catalogue(scales: tuple[str, ...] = SCALES) -> list[Entry]:
    """Every record the book reads at each of ``scales``: real-data experiments, diagnoses, studies, theory claims."""
    entries = []
    for scale in scales:
        make = "make full" if scale == "full" else "make records"
        for dataset, kind, mode in EXPERIMENTS:
            settings = preset_of(dataset, scale)
            entries.append(Entry(record_name(dataset, kind, mode), scale,
                                 lambda k=kind, m=mode, s=settings, d=dataset: record_settings(k, m, s, d), make))  # fmt: skip
        for name, diagnosis in DIAGNOSES.items():
            entries.append(Entry(name, scale, lambda d=diagnosis, s=scale: d.settings(s), make))
        for name, study in STUDIES.items():
            entries.append(Entry(name, scale, lambda st=study, s=scale: st.settings(s), make))
        entries.append(Entry(theory_claims.RECORD, scale, lambda s=scale: theory_claims.record_settings(s),
                             theory_claims.COMMAND.format(scale=scale)))  # fmt: skip
    return entries


def record_state(entry: Entry) -> str:
    """ "current", "stale" or "missing" (see the module docstring)."""
    if read_record(entry.name, entry.scale, settings=entry.settings()) is not None:
        return "current"
    return "stale" if read_record(entry.name, entry.scale) is not None else "missing"


def state_of(name: str, scale: str) -> str:
    """``record_state`` of the record ``name`` at ``scale``; ValueError for a record the book does not read."""
    for entry in catalogue((scale,)):
        if entry.name == name:
            return record_state(entry)
    raise ValueError(f"no record {name!r} in the catalogue; known: {sorted({e.name for e in catalogue((scale,))})}")
