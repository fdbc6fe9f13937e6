"""Every results record the book reads, with the settings that make it current, at both scales.

    for entry in catalogue(): print(entry.name, entry.scale, record_state(entry))   # "current", "stale", "missing"

A record is *current* when its settings hash equals that of the settings in the code now,
*stale* when it was written under other settings (older code, other seeds or vocabulary),
and *missing* when there is none. The catalogue is the one registry of the experiments behind
the book: each entry also says which group it belongs to and how it is written
(``Entry.write``, from ``producers``), and ``scripts/run_records.py``, the one runner, makes
records current through it. ``test_catalogue.py`` fails on any record that is missing or
not current.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..real_data.diagnoses import DIAGNOSES
from ..real_data.pipeline import record_name, record_settings
from ..results import SCALES, read_record
from ..studies.registry import STUDIES
from . import producers, theory_claims
from .producers import Producer, preset_of

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


GROUPS = ("experiment", "diagnosis", "study", "theory")
"""The kinds of record: a real-data experiment over seeds, a diagnosis, a study, the report's theory claims."""
COMMAND = "scripts/run_records.py --scale {scale} --only {name}"
"""The one runner's command that writes one record (``make records`` and ``make full`` write them all)."""


def _never_written(progress: bool, max_seeds: int | None = None) -> None:
    raise ValueError("this entry has no producer: only the catalogue's own entries can be written")


@dataclass(frozen=True)
class Entry:
    """One record the book reads: its name, scale, the settings that make it current (a thunk: computed when
    asked), the command that writes it, its group (``GROUPS``) and its producer."""

    name: str
    scale: str
    settings: Callable[[], dict[str, Any]]
    command: str
    group: str = "experiment"
    write: Producer = _never_written


def catalogue(scales: tuple[str, ...] = SCALES) -> list[Entry]:
    """Every record the book reads at each of ``scales``: real-data experiments, diagnoses, studies, theory claims."""
    entries = []
    for scale in scales:
        for dataset, kind, mode in EXPERIMENTS:
            name, settings = record_name(dataset, kind, mode), preset_of(dataset, scale)
            entries.append(Entry(name, scale, lambda k=kind, m=mode, s=settings, d=dataset: record_settings(k, m, s, d),
                                 COMMAND.format(scale=scale, name=name), "experiment",
                                 producers.experiment(dataset, kind, mode, scale)))  # fmt: skip
        for name, diagnosis in DIAGNOSES.items():
            entries.append(Entry(name, scale, lambda d=diagnosis, s=scale: d.settings(s), COMMAND.format(scale=scale, name=name),
                                 "diagnosis", producers.diagnosis(name, scale)))  # fmt: skip
        for name, study in STUDIES.items():
            entries.append(Entry(name, scale, lambda st=study, s=scale: st.settings(s), COMMAND.format(scale=scale, name=name),
                                 "study", producers.study(name, scale)))  # fmt: skip
        name = theory_claims.RECORD
        entries.append(Entry(name, scale, lambda s=scale: theory_claims.record_settings(s),
                             COMMAND.format(scale=scale, name=name), "theory", producers.theory(scale)))  # fmt: skip
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
