"""nbval's run of each chapter is also the run the book shows, and it runs under the chapter's limit.

``make test`` runs ``pytest notebooks --nbval-lax`` before it builds the book.
While nbval executes a chapter, every kernel message it reads is also handed to
nbclient's own output handling (the code the book's executor uses), which
rebuilds the executed notebook. When every cell of a chapter passes, that
notebook goes into the book's jupyter-cache (``scripts/execute_notebooks.py``),
and the book build, with ``execute_notebooks: cache``, shows it without
executing the chapter again.

A chapter whose last nbval run passed on the same cells and inputs (a fresh
cache record written by nbval) is not run again: its cells are deselected and
the summary says so. ``NBVAL_RERUN_ALL=1`` (``make test NBVAL_RERUN_ALL=1``)
runs every chapter regardless; ``make clean-caches`` forgets every run.

Under pytest-xdist (``make test`` runs ``-n auto --dist loadfile``) each
chapter runs whole in one worker; the workers hand their chapters' lines to
the controller, which prints the summary.

Each chapter has one wall-clock limit (``notebooks/execution_limits.json``, for a
chapter that has the machine to itself; under pytest-xdist it is multiplied by the
number of workers, as that many chapters share the machine):
each cell's nbval timeout is the time left, and a chapter past its limit fails
with its name; its remaining cells are skipped.
"""

from __future__ import annotations

import copy
import os
import sys
import time
from pathlib import Path

import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionComplete

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import execute_notebooks as chapters  # noqa: E402


class ChapterRun:
    """One nbval run of a chapter: its deadline, and the executed notebook rebuilt from the kernel's messages."""

    def __init__(
        self, notebook_file, start: float, sharing: int = 1
    ) -> None:
        self.path = Path(str(notebook_file.fspath)).resolve()
        # a limit is for a chapter that has the machine to itself; ``sharing`` chapters at once each have a share of it
        self.limit = chapters.limit_for(self.path) * sharing
        self.start = start
        self.last_cell_end = start
        self.source_cells = notebook_file.nb.cells
        self.nb = copy.deepcopy(notebook_file.nb)
        self.code_cells = [
            i
            for i, cell in enumerate(self.nb.cells)
            if cell.cell_type == "code"
        ]
        self.passed: set[int] = set()
        self.failed = False
        self.stored = False
        self.msg_id: str | None = None
        self.index: int | None = None
        self.client = NotebookClient(self.nb, record_timing=False)
        chapters.use_silent_output_widgets(self.client)
        self._tap(notebook_file)

    def _tap(self, notebook_file) -> None:
        """See every iopub message nbval reads, and the id of every execution it starts."""
        read, execute = (
            notebook_file.get_kernel_message,
            notebook_file.kernel.execute_cell_input,
        )

        def get_kernel_message(timeout=None, stream="iopub"):
            msg = read(timeout=timeout, stream=stream)
            if stream == "iopub":
                self.record(msg)
            return msg

        def execute_cell_input(source, allow_stdin=None):
            self.msg_id = execute(source, allow_stdin=allow_stdin)
            return self.msg_id

        notebook_file.get_kernel_message = get_kernel_message
        notebook_file.kernel.execute_cell_input = execute_cell_input

    def begin(self, source_cell) -> None:
        """Start recording the notebook cell that nbval is about to run."""
        self.index = next(
            i
            for i, cell in enumerate(self.source_cells)
            if cell is source_cell
        )
        self.nb.cells[self.index].outputs = []
        self.client.clear_before_next_output = False
        self.msg_id = None

    def record(self, msg: dict) -> None:
        if (
            self.index is None
            or self.msg_id is None
            or msg["parent_header"].get("msg_id") != self.msg_id
        ):
            return
        try:
            self.client.process_message(
                msg, self.nb.cells[self.index], self.index
            )
        except CellExecutionComplete:
            pass

    def finish_cell(self) -> None:
        """The recorded cell passed: number it and its result as nbclient does (nbval runs without history)."""
        self.last_cell_end = time.monotonic()
        self.passed.add(self.index)
        cell = self.nb.cells[self.index]
        cell.execution_count = len(self.passed)
        for output in cell.outputs:
            if output.output_type == "execute_result":
                output.execution_count = cell.execution_count

    def elapsed(self) -> float:
        return time.monotonic() - self.start

    def time_left(self) -> int:
        return max(1, int(self.limit - self.elapsed() + 0.999))

    def expired(self) -> bool:
        return self.elapsed() > self.limit

    def store_if_complete(self) -> None:
        """Cache the executed notebook for the book once every code cell ran and passed."""
        if (
            self.stored
            or self.failed
            or self.passed != set(self.code_cells)
        ):
            return
        self.client.set_widgets_metadata()
        chapters.store(self.nb, self.path, self.elapsed(), runner="nbval")
        self.stored = True


RUNS: dict[Path, ChapterRun] = {}
STARTS: dict[Path, float] = {}
"""When each chapter's kernel began to start: its time and its limit count from there."""
UNCHANGED: dict[Path, float] = {}
"""Chapters not run again: path -> seconds their last passing nbval run took."""


def pytest_collection_modifyitems(config, items):
    rerun_all = bool(os.environ.get("NBVAL_RERUN_ALL"))
    verdicts: dict[Path, object] = {}
    keep, deselected = [], []
    for item in items:
        notebook_file = getattr(item, "parent", None)
        if (
            rerun_all
            or not hasattr(item, "cell")
            or not hasattr(notebook_file, "nb")
        ):
            keep.append(item)
            continue
        path = Path(str(notebook_file.fspath)).resolve()
        if path not in verdicts:
            record = chapters.fresh_record(path)
            verdicts[path] = (
                record
                if record is not None
                and record.data.get("runner") == "nbval"
                else None
            )
        if verdicts[path] is None:
            keep.append(item)
        else:
            deselected.append(item)
            UNCHANGED[path] = float(
                verdicts[path].data["execution_seconds"]
            )
    if deselected:
        config.hook.pytest_deselected(items=deselected)
    # the longest chapters first, each chapter's cells in their order (pytest-xdist runs a file whole in one worker)
    files = list(
        dict.fromkeys(Path(str(item.fspath)).resolve() for item in keep)
    )
    notebooks = [path for path in files if path.suffix == ".ipynb"]
    order = chapters.longest_first(notebooks) + [
        path for path in files if path.suffix != ".ipynb"
    ]
    rank = {path: i for i, path in enumerate(order)}
    items[:] = sorted(
        keep, key=lambda item: rank[Path(str(item.fspath)).resolve()]
    )


def _chapter_run(item) -> ChapterRun | None:
    notebook_file = getattr(item, "parent", None)
    if (
        not hasattr(item, "cell")
        or getattr(notebook_file, "kernel", None) is None
    ):
        return None
    path = Path(str(notebook_file.fspath)).resolve()
    if path not in RUNS:
        workers = getattr(item.config, "workerinput", {}).get(
            "workercount", 1
        )
        RUNS[path] = ChapterRun(
            notebook_file,
            STARTS.get(path, time.monotonic()),
            sharing=max(1, int(workers)),
        )
    return RUNS[path]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if hasattr(item, "cell") and hasattr(item, "parent"):
        STARTS.setdefault(
            Path(str(item.parent.fspath)).resolve(), time.monotonic()
        )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    run = _chapter_run(item)
    if run is None:
        return (yield)
    if run.expired():
        pytest.skip(
            f"{chapters.relative(run.path)} already ran past its execution limit of {run.limit:.0f} s"
        )
    run.begin(item.cell)
    item.config.option.nbval_cell_timeout = run.time_left()
    try:
        result = yield
    except BaseException as error:
        run.failed = True
        run.last_cell_end = time.monotonic()
        if run.expired():
            raise chapters.NotebookTimeLimitError(
                chapters.limit_message(run.path, run.limit, run.elapsed())
            ) from error
        raise
    if run.expired():
        run.failed = True
        raise chapters.NotebookTimeLimitError(
            chapters.limit_message(run.path, run.limit, run.elapsed())
        )
    run.finish_cell()
    run.store_if_complete()
    return result


def _summary_lines() -> list[str]:
    """One line per chapter this process saw: its time, its limit and what became of its run."""
    lines = [
        f"{chapters.relative(path):40s} {seconds:7.1f} s  unchanged since its last passing run, not run again"
        for path, seconds in UNCHANGED.items()
    ]
    for path, run in RUNS.items():
        status = (
            "cached for the book"
            if run.stored
            else "failed"
            if run.failed
            else "incomplete, not cached"
        )
        seconds = run.last_cell_end - run.start
        lines.append(
            f"{chapters.relative(path):40s} {seconds:7.1f} s  limit {run.limit:5.0f} s  {status}"
        )
    return lines


REPORTED: list[str] = []
"""Under pytest-xdist (``-n``): the summary lines of the chapters the workers ran, gathered by the controller."""
UNCHANGED_ELSEWHERE: list[str] = []
"""Under pytest-xdist: the chapters some worker found unchanged and did not run again."""


def pytest_configure(config):
    # the workers of pytest-xdist store their runs in one jupyter-cache: create it once, before they start
    if not hasattr(config, "workerinput"):
        chapters.open_cache()


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """pytest-xdist: a worker finished; keep what it ran (its ``workeroutput``) for the summary."""
    output = getattr(node, "workeroutput", {})
    REPORTED.extend(output.get("chapter_lines", []))
    UNCHANGED_ELSEWHERE.extend(output.get("unchanged", []))


def pytest_sessionfinish(session, exitstatus):
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["chapter_lines"] = _summary_lines()
        session.config.workeroutput["unchanged"] = [
            str(path) for path in UNCHANGED
        ]
    # every chapter unchanged since its last passing run: nothing to run is a pass, not "no tests collected"
    if exitstatus == pytest.ExitCode.NO_TESTS_COLLECTED and (
        UNCHANGED or UNCHANGED_ELSEWHERE
    ):
        session.exitstatus = pytest.ExitCode.OK


def pytest_terminal_summary(terminalreporter):
    lines = sorted(set(_summary_lines() + REPORTED))
    if not lines:
        return
    terminalreporter.section("chapter execution times (nbval)")
    for line in lines:
        terminalreporter.write_line(line)
