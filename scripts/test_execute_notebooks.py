"""The chapter executor: per-notebook time limits, the Output-widget stall, the cache round trip."""

from __future__ import annotations

import os
import time
from pathlib import Path

import nbformat
import pytest
from execute_notebooks import (
    ROOT,
    LimitedClient,
    NotebookTimeLimitError,
    SilentOutputWidget,
    execute,
    forget_text_pages,
    fresh_record,
    limit_for,
    limit_from_measured,
    longest_first,
    store,
    toc_notebooks,
    toc_text_pages,
)
from nbformat.v4 import new_code_cell, new_notebook

KERNELSPEC = {"name": "python3", "display_name": "Python 3", "language": "python"}

# An ipywidgets Output widget redrawn at the end of every cell, as chapter 5's live explorer does.
WIDGET_SETUP = """import ipywidgets as widgets
from IPython.display import HTML, display
out = widgets.Output()
display(widgets.VBox([widgets.IntSlider(), out]))
def redraw(i):
    out.clear_output(wait=True)
    with out:
        display(HTML(f"<p>frame {i}</p>"))
        display(HTML("<p>notice</p>"))
"""


def write_notebook(path, sources):
    nb = new_notebook(cells=[new_code_cell(source) for source in sources])
    nb.metadata["kernelspec"] = KERNELSPEC
    nbformat.write(nb, path)
    return path


def test_a_notebook_that_sleeps_past_its_limit_fails_fast_and_names_itself(tmp_path):
    path = write_notebook(tmp_path / "07_sleepy_chapter.ipynb", ["x = 1", "import time\ntime.sleep(120)", "print(x)"])
    start = time.monotonic()
    with pytest.raises(NotebookTimeLimitError) as error:
        execute(path, limit=5)
    assert time.monotonic() - start < 40, "the limit should stop the run long before the sleep ends"
    assert "07_sleepy_chapter.ipynb" in str(error.value)
    assert "execution limit of 5 s" in str(error.value)


def test_output_widget_redraws_do_not_stall_the_run(tmp_path):
    # nbclient's own Output widget echoes the captured outputs to the kernel on the shell socket
    # while it awaits the cell's reply there; about one such cell in 25 then waited out its whole
    # timeout (the chapter-5 stall), so 200 cells ran past the limit in most runs. Without the echo
    # they take a few seconds.
    client = LimitedClient(new_notebook(), limit=60)
    assert client.widget_registry["@jupyter-widgets/output"]["OutputModel"] is SilentOutputWidget
    path = write_notebook(tmp_path / "widgets.ipynb", [WIDGET_SETUP] + [f"redraw({i})" for i in range(200)])
    nb, seconds = execute(path, limit=30)
    assert seconds < 30
    # the widget's outputs are still recorded in the notebook's widget state, as the book needs
    states = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"].values()
    outputs = [s["state"]["outputs"] for s in states if s["model_name"] == "OutputModel"]
    assert outputs and "frame 199" in str(outputs[0])


def test_an_executed_notebook_is_cached_and_found_fresh(tmp_path):
    path = write_notebook(tmp_path / "tiny.ipynb", ["print(6 * 7)"])
    cache = tmp_path / "cache"
    assert fresh_record(path, cache) is None
    nb, seconds = execute(path, limit=60)
    assert nb.cells[0].outputs[0].text == "42\n"
    content = path.read_bytes()
    os.utime(path, (1_000_000_000, 1_000_000_000))  # built long ago
    store(nb, path, seconds, runner="test", cache_dir=cache)
    # touched, so that an incremental book build reads the new outputs; its content untouched
    assert path.stat().st_mtime > 1_000_000_000 and path.read_bytes() == content
    record = fresh_record(path, cache)
    assert record is not None and record.data["runner"] == "test"
    write_notebook(path, ["print(6 * 9)"])
    assert fresh_record(path, cache) is None, "a changed cell must miss the cache"


def test_limits_are_five_times_the_measured_time_and_at_least_a_minute():
    assert limit_from_measured(3.0) == 60
    assert limit_from_measured(20.0) == 100
    assert limit_from_measured(41.2) == 210
    for path in toc_notebooks():
        assert limit_for(path) >= 60


def test_the_longest_chapters_come_first_and_ties_keep_their_order():
    limits = {"01_a": 60.0, "06_b": 190.0, "07_c": 110.0, "08_d": 60.0}
    paths = [Path(f"notebooks/{name}.ipynb") for name in ("01_a", "06_b", "new", "07_c", "08_d")]
    ordered = [path.stem for path in longest_first(paths, limits)]
    # a chapter missing from the table counts with the default limit (300 s): a new chapter may be long
    assert ordered == ["new", "06_b", "07_c", "01_a", "08_d"]
    assert longest_first([], limits) == []


def test_text_pages_are_forgotten_and_touched_so_the_next_build_runs_them_and_chapters_are_kept(tmp_path):
    from execute_notebooks import open_cache
    from jupyter_cache.base import CacheBundleIn

    cache_dir = tmp_path / "cache"
    chapter = write_notebook(tmp_path / "tiny.ipynb", ["print(1)"])
    page = tmp_path / "status.md"
    page.write_text("# Status\n")
    nb, seconds = execute(chapter, limit=60)
    store(nb, chapter, seconds, runner="test", cache_dir=cache_dir)
    page_nb, _ = execute(write_notebook(tmp_path / "page.ipynb", ["print(2)"]), limit=60)  # the page's own cells
    open_cache(cache_dir).cache_notebook_bundle(CacheBundleIn(page_nb, str(page)), check_validity=False, overwrite=True)
    for path in (chapter, page):
        os.utime(path, (1_000_000_000, 1_000_000_000))  # built long ago
    forget_text_pages([page], cache_dir)
    uris = [record.uri for record in open_cache(cache_dir).list_cache_records()]
    assert uris == [str(chapter.resolve())], uris
    assert page.stat().st_mtime > 1_000_000_000 and page.read_text() == "# Status\n"
    assert chapter.stat().st_mtime == 1_000_000_000, "a chapter's cached run is kept, and its file left alone"
    os.utime(page, (1_000_000_000, 1_000_000_000))
    forget_text_pages([page], tmp_path / "no-cache-here")  # no cache yet (a fresh clone): the pages are still touched
    assert not (tmp_path / "no-cache-here").exists() and page.stat().st_mtime > 1_000_000_000


def test_the_text_pages_are_the_toc_pages_with_code_cells():
    pages = [page.relative_to(ROOT).as_posix() for page in toc_text_pages()]
    assert pages and all(page.startswith("book/") and page.endswith(".md") for page in pages), pages
    assert "book/intro.md" in pages and "book/references.md" not in pages  # the references page runs no code


def test_records_read_from_elsewhere_are_inputs_of_the_chapters(tmp_path, monkeypatch):
    """A chapter run on a scratch copy of the records is never reused for a build on the package's own."""
    from execute_notebooks import inputs_sha256

    monkeypatch.delenv("TOKEN_SELECTION_RECORDS", raising=False)
    own = inputs_sha256()
    (tmp_path / "a.fast.json").write_text('{"x": 1}')
    monkeypatch.setenv("TOKEN_SELECTION_RECORDS", str(tmp_path))
    scratch = inputs_sha256()
    assert scratch != own
    (tmp_path / "a.fast.json").write_text('{"x": 2}')
    assert inputs_sha256() not in (own, scratch), "an edited record is another input"
