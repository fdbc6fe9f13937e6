"""Tasks in worker processes: the order kept, the progress bar told the total, as many processes as asked, one
process where one is enough."""

from __future__ import annotations

import os
import time

from token_selection.studies import pool
from token_selection.studies.pool import run_tasks, untracked


def _pid_after_a_while(task: int) -> int:
    time.sleep(0.2)
    return os.getpid()


def _recording(seen: list):
    def track(items, total):
        seen.append(total)
        return items

    return track


def test_results_come_in_task_order_from_several_processes():
    seen = []
    assert run_tasks(abs, [-3, 1, -7, 2, -5], _recording(seen), jobs=2) == [3, 1, 7, 2, 5]
    assert seen == [5]


def test_as_many_processes_as_asked_and_none_here(monkeypatch):
    monkeypatch.setattr(os, "cpu_count", lambda: 8)  # the default pool size, were jobs ignored
    pids = set(run_tasks(_pid_after_a_while, list(range(8)), jobs=2))
    assert len(pids) == 2 and os.getpid() not in pids


def test_one_job_or_one_task_runs_here_and_still_reports_its_total():
    def local(task):  # not importable by name: only this process can run it
        return task * 10

    seen = []
    assert run_tasks(local, [1, 2, 3], _recording(seen), jobs=1) == [10, 20, 30]
    assert seen == [3]
    assert run_tasks(local, [4], jobs=8) == [40]
    assert run_tasks(local, [], jobs=3) == []


def test_by_default_one_process_per_core(monkeypatch):
    def local(task):
        return task + 1

    monkeypatch.setattr(pool.os, "cpu_count", lambda: None)  # unknown: one process, this one
    assert run_tasks(local, [1, 2]) == [2, 3]
    monkeypatch.setattr(pool.os, "cpu_count", lambda: 2)
    assert len(set(run_tasks(_pid_after_a_while, [0, 1, 2, 3]))) == 2


def test_untracked_passes_items_through():
    items = iter([1, 2])
    assert untracked(items, 2) is items
