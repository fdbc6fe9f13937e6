"""notebooks/conftest.py: nbval's run is cached for the book, and a chapter past its limit fails by name."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import nbformat
from execute_notebooks import execute, fresh_record
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from test_execute_notebooks import KERNELSPEC, WIDGET_SETUP

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def write_notebook(path, cells):
    nb = new_notebook(cells=cells)
    nb.metadata["kernelspec"] = KERNELSPEC
    nbformat.write(nb, path)
    return path


def run_nbval(tmp_path, *notebooks, **environment):
    limits = {"chapters": {"sleepy_chapter": {"limit_s": 6}, "fine_chapter": {"limit_s": 60}}}
    (tmp_path / "limits.json").write_text(json.dumps(limits))
    env = {name: value for name, value in os.environ.items() if name != "NBVAL_RERUN_ALL"}
    env.update(
        PYTHONPATH=str(NOTEBOOKS),
        BOOK_EXECUTION_CACHE=str(tmp_path / "cache"),
        BOOK_EXECUTION_LIMITS=str(tmp_path / "limits.json"),
        BOOK_EXECUTION_INPUTS=str(tmp_path),  # not the repository, which may change meanwhile
        **environment,
    )
    command = [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider", "--nbval-lax", "-q"]
    return subprocess.run(
        [*command, *map(str, notebooks)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False
    )


def test_nbval_run_is_cached_with_the_outputs_the_book_executor_gives(tmp_path, monkeypatch):
    import execute_notebooks

    monkeypatch.setattr(execute_notebooks, "INPUTS_ROOT", tmp_path)
    cells = [
        new_markdown_cell("# A chapter"),
        new_code_cell(WIDGET_SETUP),
        new_code_cell("redraw(1)"),
        new_code_cell("print('checked')\nassert 6 * 7 == 42"),
        new_code_cell("from IPython.display import HTML\nHTML('<b>shown</b>')"),
    ]
    path = write_notebook(tmp_path / "fine_chapter.ipynb", cells)
    result = run_nbval(tmp_path, path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "cached for the book" in result.stdout

    record = fresh_record(path, tmp_path / "cache")
    assert record is not None and record.data["runner"] == "nbval"
    cached = execute_notebooks.open_cache(tmp_path / "cache").get_cache_bundle(record.pk).nb
    direct, _ = execute(path, limit=60)

    def visible(nb):
        # widget model ids are random per run; everything else must match
        text = json.dumps([cell.outputs for cell in nb.cells if cell.cell_type == "code"], sort_keys=True)
        return re.sub(r'"model_id": "[0-9a-f]+"', "", text)

    assert visible(cached) == visible(direct)
    assert [cell.execution_count for cell in cached.cells] == [1, 2, 3, 4]
    widget_outputs = json.dumps(cached.metadata["widgets"])
    assert "frame 1" in widget_outputs, "the Output widget's content must be in the widget state, not the cell"

    again = run_nbval(tmp_path, path)
    assert again.returncode == 0 and "4 deselected" in again.stdout, again.stdout
    assert "unchanged since its last passing run" in again.stdout
    forced = run_nbval(tmp_path, path, NBVAL_RERUN_ALL="1")
    assert forced.returncode == 0 and "4 passed" in forced.stdout, forced.stdout


def test_nbval_stops_a_chapter_past_its_limit_and_names_it(tmp_path, monkeypatch):
    import execute_notebooks

    monkeypatch.setattr(execute_notebooks, "INPUTS_ROOT", tmp_path)
    cells = [new_code_cell("x = 1"), new_code_cell("import time\ntime.sleep(120)"), new_code_cell("print(x)")]
    path = write_notebook(tmp_path / "sleepy_chapter.ipynb", cells)
    start = time.monotonic()
    result = run_nbval(tmp_path, path)
    assert time.monotonic() - start < 90, "the limit should stop the chapter long before its sleep ends"
    assert result.returncode != 0
    assert "sleepy_chapter.ipynb ran past its execution limit of 6 s" in result.stdout, result.stdout
    assert fresh_record(path, tmp_path / "cache") is None, "a failed chapter must not reach the book's cache"
