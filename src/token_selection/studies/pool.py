"""Running a study's independent tasks in worker processes, in order, behind a progress bar."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

Track = Callable[[Iterable, int], Iterable]
"""A progress bar: track(items, total) yields the items as they come."""


def untracked(items: Iterable, total: int) -> Iterable:
    """No progress bar: the items as they are."""
    return items


def run_tasks(function: Callable[[Any], Any], tasks: Sequence[Any], track: Track = untracked,
              jobs: int | None = None) -> list[Any]:  # fmt: skip
    """``[function(task) for task in tasks]``, in order, in ``jobs`` processes (default: one per CPU core; in this
    process when that is one or there is one task), through ``track``. ``function`` must be importable by name."""
    workers = min(jobs or os.cpu_count() or 1, len(tasks))
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            return list(track(pool.map(function, tasks), len(tasks)))
    return [function(task) for task in track(tasks, len(tasks))]
