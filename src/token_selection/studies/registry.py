"""The studies' experiments by record name: settings per scale, the runner, and the protocol in words."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .asymmetric import ASYMMETRIC_PROTOCOL, asymmetric_settings, run_asymmetric
from .capacity import CAPACITY_PROTOCOL, capacity_settings, run_capacity
from .fixed_tau import FIXED_TAU_PROTOCOL, fixed_tau_settings, run_fixed_tau
from .fixed_tau_past_floor import (
    FIXED_TAU_PAST_FLOOR_PROTOCOL,
    fixed_tau_past_floor_settings,
    run_fixed_tau_past_floor,
)
from .flow_discretisation import FLOW_PROTOCOL, flow_settings, run_flow_discretisation
from .flow_seed_sweep import FLOW_SWEEP_PROTOCOL, flow_sweep_settings, run_flow_seed_sweep
from .global_local import GLOBAL_LOCAL_PROTOCOL, global_local_settings, run_global_local
from .interactions import NEGATION_PROTOCOL, negation_settings, run_negation
from .long_sequences import LONG_SEQUENCES_PROTOCOL, long_sequence_settings, run_long_sequences
from .past_floor import PAST_FLOOR_PROTOCOL, past_floor_settings, run_past_floor
from .pool import Track, untracked
from .random_start import RANDOM_START_PROTOCOL, random_start_settings, run_random_start
from .small_step import SMALL_STEP_PROTOCOL, run_small_step, small_step_settings


@dataclass(frozen=True)
class Study:
    """settings(scale) -> dict; run(settings, track) -> metrics (JSON-ready); protocol: what is run, in words."""

    settings: Callable[[str], dict[str, Any]]
    run: Callable[[dict[str, Any], Track], dict[str, Any]]
    protocol: str


STUDIES: dict[str, Study] = {
    "global_local": Study(global_local_settings, run_global_local, GLOBAL_LOCAL_PROTOCOL),
    "capacity_phase": Study(capacity_settings, run_capacity, CAPACITY_PROTOCOL),
    "asymmetric_u": Study(asymmetric_settings, run_asymmetric, ASYMMETRIC_PROTOCOL),
    "negation": Study(negation_settings, run_negation, NEGATION_PROTOCOL),
    "flow_discretisation": Study(flow_settings, run_flow_discretisation, FLOW_PROTOCOL),
    "flow_seed_sweep": Study(flow_sweep_settings, run_flow_seed_sweep, FLOW_SWEEP_PROTOCOL),
    "random_start": Study(random_start_settings, run_random_start, RANDOM_START_PROTOCOL),
    "past_floor": Study(past_floor_settings, run_past_floor, PAST_FLOOR_PROTOCOL),
    "flow_fixed_tau": Study(fixed_tau_settings, run_fixed_tau, FIXED_TAU_PROTOCOL),
    "flow_long_sequences": Study(long_sequence_settings, run_long_sequences, LONG_SEQUENCES_PROTOCOL),
    "flow_small_step": Study(small_step_settings, run_small_step, SMALL_STEP_PROTOCOL),
    "fixed_tau_past_floor": Study(fixed_tau_past_floor_settings, run_fixed_tau_past_floor, FIXED_TAU_PAST_FLOOR_PROTOCOL),
}


def _current_record(name: str, scale: str) -> tuple[Study, dict[str, Any], dict[str, Any] | None]:
    """Study ``name``, its settings at ``scale`` and its record there when written under those settings (else None);
    ValueError for a name that is not a study."""
    from ..results import read_record

    if name not in STUDIES:
        raise ValueError(f"unknown study {name!r}; known: {sorted(STUDIES)}")
    study = STUDIES[name]
    settings = study.settings(scale)
    return study, settings, read_record(name, scale, settings=settings)


def load_or_run(name: str, scale: str) -> dict[str, Any]:
    """The metrics of study ``name`` at ``scale``: from its record when one exists with the current settings,
    else computed now (without writing a record; ``scripts/run_records.py`` writes them)."""
    study, settings, record = _current_record(name, scale)
    return record["metrics"] if record is not None else study.run(settings, untracked)


def shown_scale(name: str) -> str:
    """The scale a page shows study ``name`` at: "full" when its full-scale record is current (written under the
    study's full settings), else the page's own scale (``compute_scale``), which ``load_or_run`` reads or computes."""
    from ..scale import compute_scale

    return "full" if _current_record(name, "full")[2] is not None else compute_scale()
