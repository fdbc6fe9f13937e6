"""Execute the book's chapters once, each under its own time limit, into the cache the book reads.

The book is built with ``execute_notebooks: cache``: Jupyter Book takes every
chapter's outputs from the jupyter-cache in ``_build/.jupyter_cache`` (keyed
by the notebook's code cells). This module fills that cache. ``make test``
fills it from the nbval run (``notebooks/conftest.py``), so each chapter
executes once per test run; ``make book`` calls this script first, which
executes only the chapters whose cached run is missing or stale.

A cached run is *fresh* when its notebook hash matches (jupyter-cache) and the
inputs it ran on are unchanged: the package source, the explorer
grid, the lock file, the full-scale results records, the review files under
``TOKEN_SELECTION_DATA`` and ``TOKEN_SELECTION_SCALE`` (``inputs_sha256``).

Every chapter runs under a wall-clock limit read from
``notebooks/execution_limits.json`` (five times its measured time, at least
60 s). A chapter that runs past it fails with its name, its limit and the
table to edit, instead of waiting out a global timeout.

    python scripts/execute_notebooks.py                  # every chapter of _toc.yml not cached fresh
    python scripts/execute_notebooks.py --force notebooks/05_explorer.ipynb
    python scripts/execute_notebooks.py --update-limits  # limits from the cached runs' measured times
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import sys
import time
from pathlib import Path

import nbformat
import yaml
from nbclient import NotebookClient
from nbclient.exceptions import CellTimeoutError
from nbclient.output_widget import OutputWidget

ROOT = Path(__file__).resolve().parent.parent
# The environment variables exist for the tests, which must not touch the book's own cache and table.
CACHE_DIR = Path(os.environ.get("BOOK_EXECUTION_CACHE", ROOT / "_build" / ".jupyter_cache"))
LIMITS_FILE = Path(os.environ.get("BOOK_EXECUTION_LIMITS", ROOT / "notebooks" / "execution_limits.json"))
INPUTS_ROOT = Path(os.environ.get("BOOK_EXECUTION_INPUTS", ROOT))
LIMIT_FACTOR = 5
MIN_LIMIT_S = 60
DEFAULT_LIMIT_S = 300
"""Limit for a chapter the table does not list yet (run ``--update-limits`` after its first run)."""
INPUTS = ("src", "requirements.lock")
"""What a chapter's outputs depend on besides its own cells (hashed into ``inputs_sha256``)."""


def is_input(path: Path) -> bool:
    """Whether ``path`` (under ``INPUTS``) counts for ``inputs_sha256``.

    Fast-scale results records are left out: the chapters write them while they
    run, so hashing them would make every run stale by the time the book reads it.
    """
    if "__pycache__" in path.parts or path.suffix == ".pyc":
        return False
    return not path.name.endswith(".fast.json")


class NotebookTimeLimitError(RuntimeError):
    """A chapter ran past its execution limit."""


def limit_message(path: Path, limit: float, elapsed: float) -> str:
    """The failure message for a chapter that ran past its limit."""
    return (
        f"{relative(path)} ran past its execution limit of {limit:.0f} s (stopped after {elapsed:.0f} s). "
        f"A hang, or a chapter that became slower: the limits live in {relative(LIMITS_FILE)} "
        f"({LIMIT_FACTOR}x the measured time, at least {MIN_LIMIT_S} s)."
    )


def relative(path: Path) -> str:
    """``path`` relative to the repository when it lies inside it."""
    path = Path(path).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def load_limits(path: Path | None = None) -> dict[str, float]:
    """Chapter (file stem) -> execution limit in seconds."""
    path = LIMITS_FILE if path is None else path
    if not path.is_file():
        return {}
    return {name: float(entry["limit_s"]) for name, entry in json.loads(path.read_text())["chapters"].items()}


def limit_for(notebook: Path, limits: dict[str, float] | None = None) -> float:
    """The execution limit of ``notebook`` in seconds (``DEFAULT_LIMIT_S`` when the table lacks it)."""
    limits = load_limits() if limits is None else limits
    return limits.get(Path(notebook).stem, DEFAULT_LIMIT_S)


def longest_first(notebooks: list[Path], limits: dict[str, float] | None = None) -> list[Path]:
    """``notebooks`` with the longest limits first (ties in their given order).

    pytest-xdist hands each worker its first chapters in this order; a long chapter started last would leave the
    other workers idle while it runs alone.
    """
    limits = load_limits() if limits is None else limits
    return sorted(notebooks, key=lambda notebook: -limit_for(notebook, limits))


def limit_from_measured(seconds: float) -> int:
    """``LIMIT_FACTOR`` x ``seconds``, at least ``MIN_LIMIT_S``, rounded up to 10 s."""
    return max(MIN_LIMIT_S, int(math.ceil(LIMIT_FACTOR * seconds / 10.0)) * 10)


def inputs_sha256(root: Path | None = None) -> str:
    """Hash of everything besides its cells that a chapter's outputs depend on (see ``INPUTS``)."""
    root = INPUTS_ROOT if root is None else root
    digest = hashlib.sha256(f"scale={os.environ.get('TOKEN_SELECTION_SCALE', 'fast')}\n".encode())
    data = Path(os.environ.get("TOKEN_SELECTION_DATA") or "/nonexistent")
    if data.is_dir():
        # the review files are large and read-only: their names, sizes and times stand for their bytes
        for file in sorted(p for p in data.rglob("*") if p.is_file()):
            stat = file.stat()
            digest.update(f"data/{file.relative_to(data)} {stat.st_size} {stat.st_mtime_ns}\n".encode())
    records = os.environ.get("TOKEN_SELECTION_RECORDS", "").strip()
    if records:  # records read from elsewhere than the package: the chapters' numbers depend on them
        for file in sorted(p for p in Path(records).expanduser().rglob("*.json") if p.is_file()):
            digest.update(f"records/{file.name}\n".encode() + hashlib.sha256(file.read_bytes()).digest())
    for name in INPUTS:
        base = root / name
        files = sorted(p for p in base.rglob("*") if p.is_file()) if base.is_dir() else [base] if base.is_file() else []
        for file in filter(is_input, files):
            try:
                content = file.read_bytes()
            except FileNotFoundError:  # removed since it was listed
                continue
            digest.update(f"{file.relative_to(root)}\n".encode())
            digest.update(hashlib.sha256(content).digest())
    return digest.hexdigest()


def _toc_files(root: Path) -> list[str]:
    """Every page of ``_toc.yml`` (without its suffix), in book order."""
    toc = yaml.safe_load((root / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [chapter["file"] for chapter in part.get("chapters", [])]
    files += [chapter["file"] for chapter in toc.get("chapters", [])]
    return files


def toc_notebooks(root: Path = ROOT) -> list[Path]:
    """The ``.ipynb`` chapters of ``_toc.yml``, in book order."""
    return [root / f"{name}.ipynb" for name in _toc_files(root) if (root / f"{name}.ipynb").is_file()]


def toc_text_pages(root: Path = ROOT) -> list[Path]:
    """The executable Markdown pages of ``_toc.yml`` (those with a ``{code-cell}``), in book order."""
    pages = [root / f"{name}.md" for name in _toc_files(root)]
    return [page for page in pages if page.is_file() and "```{code-cell}" in page.read_text(encoding="utf-8")]


class SilentOutputWidget(OutputWidget):
    """nbclient's stand-in for a browser's Output widget, without the echo to the kernel.

    nbclient's own version sends the captured outputs back to the kernel as a
    ``comm_msg`` on the shell socket while it awaits the cell's
    ``execute_reply`` on that same socket. When the reply has already arrived,
    that send hides it from the pending poll, which then returns it only when
    the cell timeout expires: the chapter-5 stall (every cell done, kernel and
    client idle, a wait equal to the timeout). Nothing in the kernel reads that
    echo, and the outputs still land in the notebook's widget state.
    """

    def sync_state(self) -> None:
        pass


def use_silent_output_widgets(client: NotebookClient) -> None:
    """Make ``client`` record Output widgets without writing to the kernel."""
    client.widget_registry["@jupyter-widgets/output"]["OutputModel"] = SilentOutputWidget


class LimitedClient(NotebookClient):
    """An nbclient executor with one wall-clock deadline for the whole notebook.

    Each cell's timeout is the time left until the deadline, so a hang in any
    cell stops the run at the notebook's limit, not at a global per-cell timeout.
    """

    def __init__(self, nb: nbformat.NotebookNode, limit: float, **kwargs) -> None:
        super().__init__(nb, timeout=max(1, int(limit)), timeout_func=self._time_left, **kwargs)
        self.deadline = time.monotonic() + limit
        use_silent_output_widgets(self)

    def _time_left(self, cell: nbformat.NotebookNode) -> int:
        return max(1, math.ceil(self.deadline - time.monotonic()))


def execute(path: Path, limit: float | None = None) -> tuple[nbformat.NotebookNode, float]:
    """Execute ``path`` in its own folder under its limit; return (executed notebook, seconds).

    Raises NotebookTimeLimitError (naming the chapter) past the limit, and
    nbclient's CellExecutionError when a cell raises.
    """
    path = Path(path).resolve()
    limit = limit_for(path) if limit is None else limit
    nb = nbformat.read(path, as_version=4)
    start = time.monotonic()
    client = LimitedClient(
        nb, limit, kernel_name="python3", record_timing=False, resources={"metadata": {"path": str(path.parent)}}
    )
    try:
        client.execute()
    except CellTimeoutError as error:
        raise NotebookTimeLimitError(limit_message(path, limit, time.monotonic() - start)) from error
    seconds = time.monotonic() - start
    if seconds > limit:
        raise NotebookTimeLimitError(limit_message(path, limit, seconds))
    return nb, seconds


def open_cache(cache_dir: Path | None = None):
    """The jupyter-cache the book build reads (created if needed)."""
    from jupyter_cache import get_cache

    cache_dir = CACHE_DIR if cache_dir is None else Path(cache_dir)
    cache_dir.parent.mkdir(parents=True, exist_ok=True)
    return get_cache(str(cache_dir))


def store(nb: nbformat.NotebookNode, path: Path, seconds: float, runner: str, cache_dir: Path | None = None) -> None:
    """Put an executed notebook in the book's cache, with its run time and the inputs it ran on.

    Then touch the notebook file: Sphinx rebuilds a page only when its source is newer than its last build,
    so without this a chapter re-executed for a change elsewhere (the package, a record) would keep the
    outputs of its previous build on an incremental ``make book``. The file's content is unchanged."""
    from jupyter_cache.base import CacheBundleIn

    data = {"execution_seconds": round(seconds, 2), "inputs_sha256": inputs_sha256(), "runner": runner}
    bundle = CacheBundleIn(nb, str(Path(path).resolve()), data=data)
    open_cache(cache_dir).cache_notebook_bundle(bundle, check_validity=False, overwrite=True)
    os.utime(path)


def fresh_record(path: Path, cache_dir: Path | None = None):
    """The cache record of ``path`` when it matches the notebook and the current inputs, else None."""
    cache_dir = CACHE_DIR if cache_dir is None else Path(cache_dir)
    if not cache_dir.is_dir():
        return None
    try:
        record = open_cache(cache_dir).match_cache_notebook(nbformat.read(path, as_version=4))
    except KeyError:
        return None
    return record if record.data.get("inputs_sha256") == inputs_sha256() else None


def forget_text_pages(pages: list[Path], cache_dir: Path | None = None) -> None:
    """Drop cached runs of executable Markdown pages, and touch ``pages``, so the build runs them again.

    They read the records and the package (the front page's table, the status page's machine), which their cache
    key does not hold. Sphinx rebuilds a page only when its source is newer than its last build: without the touch,
    an incremental ``make book`` would keep a page's outputs from before a record changed. Content is unchanged."""
    for page in pages:
        os.utime(page)
    cache_dir = CACHE_DIR if cache_dir is None else Path(cache_dir)
    if not cache_dir.is_dir():
        return
    cache = open_cache(cache_dir)
    for record in cache.list_cache_records():
        if record.uri.endswith(".md"):
            cache.remove_cache(record.pk)


def update_limits(notebooks: list[Path], cache_dir: Path | None = None) -> dict:
    """Rewrite the limits table from the measured times of the fresh cached runs of ``notebooks``."""
    table = json.loads(LIMITS_FILE.read_text()) if LIMITS_FILE.is_file() else {"chapters": {}}
    for path in notebooks:
        record = fresh_record(path, cache_dir)
        if record is None:
            print(f"{relative(path)}: no fresh cached run, limit unchanged", file=sys.stderr)
            continue
        measured = float(record.data["execution_seconds"])
        table["chapters"][path.stem] = {"measured_s": round(measured, 1), "limit_s": limit_from_measured(measured)}
    table["rule"] = (
        f"limit_s = max({MIN_LIMIT_S}, {LIMIT_FACTOR} x measured_s), rounded up to 10 s; "
        "`make notebook-limits` rewrites it from the last run"
    )
    table["chapters"] = dict(sorted(table["chapters"].items()))
    LIMITS_FILE.write_text(json.dumps(table, indent=2) + "\n")
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every .ipynb chapter of _toc.yml")
    parser.add_argument("--force", action="store_true", help="execute even when a fresh cached run exists")
    parser.add_argument("--update-limits", action="store_true", help=f"rewrite {relative(LIMITS_FILE)} from cached runs")
    args = parser.parse_args()
    os.environ.setdefault("TOKEN_SELECTION_SCALE", "fast")
    notebooks = [path.resolve() for path in args.notebooks] or toc_notebooks()
    if args.update_limits:
        update_limits(notebooks)
        print(f"wrote {relative(LIMITS_FILE)}")
        return 0
    forget_text_pages(toc_text_pages())
    rows = []
    for path in notebooks:
        record = None if args.force else fresh_record(path)
        if record is not None:
            rows.append((path, record.data["execution_seconds"], f"cached ({record.data.get('runner', '?')})"))
            continue
        print(f"executing {relative(path)} (limit {limit_for(path):.0f} s)", flush=True)
        nb, seconds = execute(path)
        store(nb, path, seconds, runner="execute_notebooks")
        rows.append((path, seconds, "executed"))
    print("chapter execution times:")
    for path, seconds, how in rows:
        print(f"  {relative(path):40s} {seconds:7.1f} s  limit {limit_for(path):5.0f} s  {how}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
