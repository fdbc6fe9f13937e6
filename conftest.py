"""Shared by every test run: under pytest-xdist, the CPU cores are shared out among the workers.

``make test`` runs one worker per core (``-n auto``). Each worker, and each chapter kernel a
worker starts, would otherwise use as many BLAS/OpenMP threads as the machine has cores: two
chapters training at once on two cores then ran four busy threads and took four times as long.
Each worker gets its share of the cores instead (at least one), before torch is imported.
A thread count set by hand (``OMP_NUM_THREADS`` in the environment) is kept.

Under ``scripts/watchdog.sh`` (``WATCHDOG_STACKS`` names a folder), every pytest process, the
controller and each worker, writes the stack of each of its threads to a file of that folder when it
gets SIGTERM, as it does when the watchdog stops a run past its limit, and then ends as SIGTERM ends
it; the watchdog prints the files, so a hung run says where it hung. (A file, not stderr: pytest
captures stderr while a test runs, and a stopped run never prints what it captured.)
"""

from __future__ import annotations

import faulthandler
import os
import signal

THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def threads_per_worker(cores: int | None, workers: int) -> int:
    """Each of ``workers`` processes' share of ``cores`` (unknown: 1), at least one thread."""
    if workers < 1:
        raise ValueError(f"the number of workers must be at least 1, got {workers}")
    return max(1, (cores or 1) // workers)


def pytest_configure(config):
    stacks = os.environ.get("WATCHDOG_STACKS")
    if stacks and os.path.isdir(stacks):
        name = os.environ.get("PYTEST_XDIST_WORKER", "controller")
        # kept open for the life of the process: faulthandler writes to it from the signal handler
        config._watchdog_stacks = open(os.path.join(stacks, f"{name}-{os.getpid()}.txt"), "w")
        faulthandler.register(signal.SIGTERM, file=config._watchdog_stacks, all_threads=True, chain=True)
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers is None or "OMP_NUM_THREADS" in os.environ:
        return
    threads = str(threads_per_worker(os.cpu_count(), int(workers)))
    for name in THREAD_VARIABLES:
        os.environ.setdefault(name, threads)
