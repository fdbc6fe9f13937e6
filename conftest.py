"""Shared by every test run: under pytest-xdist, the CPU cores are shared out among the workers.

``make test`` runs one worker per core (``-n auto``). Each worker, and each chapter kernel a
worker starts, would otherwise use as many BLAS/OpenMP threads as the machine has cores: two
chapters training at once on two cores then ran four busy threads and took four times as long.
Each worker gets its share of the cores instead (at least one), before torch is imported.
A thread count set by hand (``OMP_NUM_THREADS`` in the environment) is kept.
"""

from __future__ import annotations

import os

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def threads_per_worker(cores: int | None, workers: int) -> int:
    """Each of ``workers`` processes' share of ``cores`` (unknown: 1), at least one thread."""
    if workers < 1:
        raise ValueError(f"the number of workers must be at least 1, got {workers}")
    return max(1, (cores or 1) // workers)


def pytest_configure(config):
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers is None or "OMP_NUM_THREADS" in os.environ:
        return
    threads = str(threads_per_worker(os.cpu_count(), int(workers)))
    for name in THREAD_VARIABLES:
        os.environ.setdefault(name, threads)
