"""Tasks in worker processes: the order kept, the progress bar told the total, one process where one is enough."""

from __future__ import annotations

from token_selection.studies.pool import run_tasks, untracked


def test_results_come_in_task_order_from_several_processes():
    seen = []

    def track(items, total):
        seen.append(total)
        return items

    assert run_tasks(abs, [-3, 1, -7, 2, -5], track, jobs=2) == [3, 1, 7, 2, 5]
    assert seen == [5]


def test_one_job_or_one_task_runs_here():
    def local(task):  # not importable by name: only this process can run it
        return task * 10

    assert run_tasks(local, [1, 2, 3], jobs=1) == [10, 20, 30]
    assert run_tasks(local, [4], jobs=8) == [40]
    assert run_tasks(local, [], jobs=3) == []


def test_untracked_passes_items_through():
    items = iter([1, 2])
    assert untracked(items, 2) is items
