"""Metrics in the layout every real-data record of the book has, for tests that write or read records."""

from __future__ import annotations

from typing import Any

from token_selection.real_data.pipeline import aggregate_seeds


def seeded_record(*runs: dict[str, Any], seeds: list[int] | None = None) -> dict[str, Any]:
    """What ``run_seeds`` stores for these runs (one metrics dict per seed, seeds 0, 1, ... unless given): the first
    run's metrics, ``seeds``, ``per_seed`` and ``seed_summary``."""
    return aggregate_seeds(list(runs), list(range(len(runs))) if seeds is None else seeds)
