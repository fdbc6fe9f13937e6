"""One source for where the course lives (_config.yml), and the first cell written from it."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import lock_requirements
import nbformat
import pytest
import sync_setup_cells as sync
from test_lock_requirements import build_wheel

ROOT = Path(__file__).resolve().parent.parent


def test_every_copy_agrees_with_the_one_source():
    problems = sync.check(ROOT)
    assert problems == [], "run `make sync-setup-cells` and fix the other copies:\n" + "\n".join(problems)


def make_course(root: Path, url: str = "https://github.com/someone/fork", ref: str = "main") -> None:
    (root / "notebooks").mkdir(parents=True)
    (root / "_config.yml").write_text(f"title: t\nrepository:\n  url: {url}\n  branch: {ref}\n")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell("# A chapter"), nbformat.v4.new_code_cell("print('old setup')")]
    nbformat.write(notebook, root / "notebooks" / "01_a.ipynb")
    colab = "https://colab.research.google.com/github/someone/fork/blob/main/notebooks/01_model.ipynb"
    (root / "README.md").write_text(f"Open {colab}\nSee also https://github.com/googlecolab/colabtools/issues/3020.\n")


def test_check_flags_each_kind_of_disagreement_and_the_script_fixes_first_cells(tmp_path):
    make_course(tmp_path)
    assert sync.check(tmp_path) == ["notebooks/01_a.ipynb: first code cell differs from the template (run this script)"]
    assert sync.write_setup_cells(tmp_path) == [tmp_path / "notebooks" / "01_a.ipynb"]
    assert sync.check(tmp_path) == []
    assert sync.write_setup_cells(tmp_path) == []  # nothing left to change

    cell = nbformat.read(tmp_path / "notebooks" / "01_a.ipynb", as_version=4).cells[1]
    assert 'course = "git+https://github.com/someone/fork@main"' in cell.source
    assert {"hide-input", "remove-output"} <= set(cell.metadata["tags"])
    assert cell.metadata["mystnb"]["code_prompt_show"] == "Show the set-up code"

    # a set-up cell whose toggle lost its words is reported and labelled again, its other settings kept
    path = tmp_path / "notebooks" / "01_a.ipynb"
    notebook = nbformat.read(path, as_version=4)
    notebook.cells[1].metadata["mystnb"] = {"number_source_lines": True}
    nbformat.write(notebook, path)
    assert sync.check(tmp_path) == ["notebooks/01_a.ipynb: the set-up cell's toggle is not labelled (run this script)"]
    assert sync.write_setup_cells(tmp_path) == [path]
    settings = nbformat.read(path, as_version=4).cells[1].metadata["mystnb"]
    assert settings["number_source_lines"] is True and settings["code_prompt_hide"] == "Hide the set-up code"

    # a fork moves: every copy that still names the old place is reported
    (tmp_path / "_config.yml").write_text("repository:\n  url: https://github.com/other/place\n  branch: v2\n")
    problems = sync.check(tmp_path)
    assert any("first code cell differs" in p for p in problems)
    assert any(p.startswith("README.md: opens Colab on repository someone/fork") for p in problems)
    assert any(p.startswith("README.md: does not give the Colab address") for p in problems)
    assert not any("googlecolab" in p for p in problems), "links to third-party repositories are allowed"


def test_wrong_ref_and_pages_site_are_reported(tmp_path):
    make_course(tmp_path)
    sync.write_setup_cells(tmp_path)
    readme = tmp_path / "README.md"
    readme.write_text(
        readme.read_text()
        + "https://colab.research.google.com/github/someone/fork/blob/dev/notebooks/02.ipynb\n"
        + "https://someone.github.io/elsewhere/\n"
    )
    problems = sync.check(tmp_path)
    assert "README.md: opens Colab at ref dev, not someone/fork@main" in problems
    assert "README.md: links the site someone.github.io/elsewhere, not someone/fork@main" in problems


@pytest.mark.parametrize(
    ("url", "ref", "message"),
    [("git@github.com:a/b.git", "main", "repository.url"), ("https://github.com/a/b", "", "repository.branch")],
)
def test_bad_configuration_raises_a_clear_error(tmp_path, url, ref, message):
    (tmp_path / "_config.yml").write_text(f"repository:\n  url: {url}\n  branch: '{ref}'\n")
    with pytest.raises(ValueError, match=message):
        sync.course_location(tmp_path)


# Runs a set-up cell as a Colab kernel would, in IPython (its `!pip` line is IPython's), and
# exits 1 with the error's type and message when the cell raised. Modules named after the cell's
# path are imported first, as Colab imports google.colab (and maybe others) at kernel start.
DRIVER = """\
import sys
from IPython.core.interactiveshell import InteractiveShell

for name in sys.argv[2:]:
    __import__(name)
result = InteractiveShell.instance().run_cell(open(sys.argv[1]).read())
error = result.error_before_exec or result.error_in_exec
if error is not None:
    print(f"{type(error).__name__}: {error}", file=sys.stderr)
    sys.exit(1)
"""


def run_cell(tmp_path: Path, python: str, env: dict[str, str], imports: tuple[str, ...] = ()) -> subprocess.CompletedProcess:
    """Run the chapters' first cell with ``python`` in IPython, the ``google.colab`` stand-in importable."""
    (tmp_path / "cell.ipy").write_text(sync.setup_cell(sync.course_location(ROOT)))
    (tmp_path / "driver.py").write_text(DRIVER)
    if not (tmp_path / "google" / "colab").exists():
        (tmp_path / "google" / "colab").mkdir(parents=True)
        shutil.copy(ROOT / "ci" / "google_colab.py", tmp_path / "google" / "colab" / "__init__.py")
    command = [python, str(tmp_path / "driver.py"), str(tmp_path / "cell.ipy"), *imports]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def test_outside_colab_the_first_cell_installs_nothing_and_reports_device_and_scale(tmp_path):
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT / "src")]),
        "TOKEN_SELECTION_SCALE": "fast",
        "COURSE_PACKAGE": str(tmp_path / "never-installed"),
    }
    result = run_cell(tmp_path, sys.executable, env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "compute scale: fast" in result.stdout
    assert "TOKEN_SELECTION_SCALE=full" in result.stdout
    assert ("CPU" in result.stdout) or ("GPU" in result.stdout)
    assert "pip" not in result.stdout and "never-installed" not in result.stdout
    assert len(result.stdout.strip().splitlines()) == 1, "one line"


def test_in_colab_a_failed_install_stops_the_cell_after_pips_messages(tmp_path):
    missing = tmp_path / "no-such-package"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT / "src")]),  # an older copy is importable
        "TOKEN_SELECTION_SCALE": "fast",
        "COURSE_PACKAGE": f"token_selection @ {missing.as_uri()}",
        "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    }
    result = run_cell(tmp_path, sys.executable, env, imports=("google.colab",))
    assert result.returncode == 1
    assert any(words in result.stdout + result.stderr for words in ("does not exist", "No such file", "not found")), (
        result.stdout[-2000:] + result.stderr[-2000:]
    )
    assert "RuntimeError: pip could not install the course package (exit status 1)" in result.stderr
    assert "compute scale" not in result.stdout


def test_the_generated_cell_is_ruff_clean_at_the_chapters_line_length(tmp_path):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(sync.setup_cell(sync.course_location(ROOT)))]
    nbformat.write(notebook, tmp_path / "cell.ipynb")
    ruff = Path(sys.executable).parent / "ruff"
    result = subprocess.run(
        [
            str(ruff),
            "check",
            "--config",
            str(ROOT / "notebooks" / "ruff.toml"),
            "--ignore",
            "E402,I001",
            str(tmp_path / "cell.ipynb"),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout


def test_the_generated_cell_is_short():
    lines = sync.setup_cell(sync.course_location(ROOT)).split("\n")
    assert len([line for line in lines if line.strip()]) <= 11, "the first thing a reader meets in Colab"


def test_a_chapter_without_a_setup_cell_gets_one_inserted_before_its_code(tmp_path):
    make_course(tmp_path)
    path = tmp_path / "notebooks" / "01_a.ipynb"
    notebook = nbformat.read(path, as_version=4)
    notebook.cells[1].source = "import numpy as np"
    nbformat.write(notebook, path)
    sync.write_setup_cells(tmp_path)
    cells = nbformat.read(path, as_version=4).cells
    assert [cell.cell_type for cell in cells] == ["markdown", "code", "code"]
    assert cells[1].source == sync.setup_cell(sync.course_location(tmp_path))
    assert cells[2].source == "import numpy as np"
    nbformat.validate(nbformat.read(path, as_version=4))


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """A Colab-like session: a virtual environment with pip, IPython and six 1.16.0 "preinstalled".

    The course package stands in as a copy of the modules the cell's ending needs (no heavy
    package ``__init__``), and torch as a module that finds no GPU. ``needs_newer``, the package
    the cell installs (``COURSE_PACKAGE``, a wheel: pip builds nothing), requires six>=1.17.
    """
    root = tmp_path_factory.mktemp("session")
    venv = root / "venv"
    python = venv / "bin" / "python"
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    preinstalled = [f"ipython=={lock_requirements.locked_version('ipython')}", "six==1.16.0"]
    uv = lock_requirements.find_uv()
    if uv:  # from uv's cache, which installing the lock has just filled: seconds where pip takes about twenty
        env = lock_requirements.uv_environment()
        subprocess.run([uv, "venv", "-q", "--seed", "--python", sys.executable, str(venv)], check=True, env=env)
        subprocess.run([uv, "pip", "install", "-q", "--python", str(python), *preinstalled], check=True, env=env)
    else:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([*pip, *preinstalled], check=True)
    stub = root / "path" / "token_selection"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("from ._version import __version__\nfrom .setup_check import finish_setup\n")
    for module in ("setup_check.py", "_version.py", "scale.py"):
        shutil.copy(ROOT / "src" / "token_selection" / module, stub / module)
    (root / "path" / "torch.py").write_text("class cuda:\n    is_available = staticmethod(lambda: False)\n")
    needs_newer = build_wheel(root, "needs_newer", "1.0", requires=("six>=1.17",))
    env = {
        **os.environ,
        "PYTHONPATH": str(root / "path"),
        "COURSE_PACKAGE": str(needs_newer),
        "PATH": os.pathsep.join([str(venv / "bin"), os.environ.get("PATH", "")]),  # `!pip` is the session's
        "TOKEN_SELECTION_SCALE": "fast",
    }
    return root, python, pip, env


def test_in_colab_an_install_that_changes_an_imported_package_asks_for_a_restart(session):
    root, python, pip, env = session
    subprocess.run([*pip, "six==1.16.0"], check=True)
    result = run_cell(root / "path", str(python), env, imports=("google.colab", "six"))
    assert result.returncode == 1, result.stdout + result.stderr
    assert (
        "RestartRequired: Installing the course changed packages this session had already imported: six 1.16.0 -> "
        in result.stderr
    )
    assert "Restart the session (Runtime > Restart session)" in result.stderr
    assert "compute scale" not in result.stdout


def test_in_colab_an_install_that_changes_only_packages_not_imported_needs_no_restart(session):
    root, python, pip, env = session
    subprocess.run([*pip, "six==1.16.0"], check=True)
    result = run_cell(root / "path", str(python), env, imports=("google.colab",))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Restart" not in result.stdout + result.stderr
    assert "on CPU (no GPU found); compute scale: fast" in result.stdout
    assert "%env TOKEN_SELECTION_SCALE=full" in result.stdout


def course_wheel(root: Path, requires: tuple[str, ...] = ()) -> Path:
    """A wheel of the course as the set-up cell needs it (its ending's modules, no heavy ``__init__``)."""
    modules = {"token_selection/__init__.py": "from ._version import __version__\nfrom .setup_check import finish_setup\n"}
    for module in ("setup_check.py", "_version.py", "scale.py"):
        modules[f"token_selection/{module}"] = (ROOT / "src" / "token_selection" / module).read_text()
    return build_wheel(root, "token_selection", "1.0.0", requires=requires, modules=modules)


@pytest.mark.parametrize("imports", [("google.colab",), ("google.colab", "six")])
def test_a_first_visit_asks_for_a_restart_only_for_a_package_imported_before(session, tmp_path, imports):
    # a reader's first visit: the course is not installed; the cell installs it (it needs six>=1.17)
    root, python, pip, env = session
    subprocess.run([*pip, "six==1.16.0"], check=True)
    subprocess.run([str(python), "-m", "pip", "uninstall", "-y", "-q", "token_selection"], check=True)
    (tmp_path / "torch.py").write_text("class cuda:\n    is_available = staticmethod(lambda: False)\n")
    wheel = course_wheel(tmp_path / "wheel", requires=("six>=1.17",))
    first = {**env, "PYTHONPATH": str(tmp_path), "COURSE_PACKAGE": str(wheel)}  # no copy of the course on the path
    try:
        result = run_cell(tmp_path, str(python), first, imports=imports)
    finally:
        subprocess.run([str(python), "-m", "pip", "uninstall", "-y", "-q", "token_selection"], check=True)
    if "six" in imports:
        assert result.returncode == 1, result.stdout + result.stderr
        error = result.stderr.strip().splitlines()[-1]
        assert error.startswith("RestartRequired:") and re.search(r"\bsix 1\.16\.0 -> 1\.\d+", error), error
        assert "token" not in error, "the course was imported after it was installed"
    else:
        assert result.returncode == 0, result.stdout + result.stderr
        assert "token_selection 1.0.0 on CPU (no GPU found); compute scale: fast" in result.stdout
