"""One source for where the course lives (_config.yml), and the first cell written from it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
import sync_setup_cells as sync

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
    assert 'COURSE_REPOSITORY = "https://github.com/someone/fork"' in cell.source
    assert 'COURSE_REF = "main"' in cell.source

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


# What each installer prints when it installed the test's package.
INSTALLED = {"uv": "+ needs-newer==1.0", "pip": "Successfully installed needs_newer-1.0"}


def installer_path(installer: str) -> str:
    """A PATH on which the first cell finds uv (``installer="uv"``; skips without one) or no uv at all."""
    folders = os.environ.get("PATH", "").split(os.pathsep)
    uv = shutil.which("uv") or shutil.which("uv", path=str(Path(sys.executable).parent))
    if installer == "uv":
        if uv is None:
            pytest.skip("no uv here (make install puts one in .venv)")
        return os.pathsep.join([str(Path(uv).parent), *folders])
    return os.pathsep.join(folder for folder in folders if not (Path(folder) / "uv").exists())


def run_setup_cell(
    tmp_path: Path, colab: bool, package: str | None = None, installer: str = "pip"
) -> subprocess.CompletedProcess:
    """Run the first cell in a fresh interpreter, with a stand-in google.colab loaded when ``colab``."""
    script = tmp_path / "cell.py"
    prefix = "import google.colab\n" if colab else ""
    script.write_text(prefix + sync.setup_cell(sync.course_location(ROOT)))
    (tmp_path / "google" / "colab").mkdir(parents=True)
    shutil.copy(ROOT / "ci" / "google_colab.py", tmp_path / "google" / "colab" / "__init__.py")
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "TOKEN_SELECTION_SCALE": "fast", "PATH": installer_path(installer)}
    if package is not None:
        env["COURSE_PACKAGE"] = package
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=300)


def test_outside_colab_the_first_cell_installs_nothing_and_reports_device_and_scale(tmp_path):
    result = run_setup_cell(tmp_path, colab=False, package=str(tmp_path / "never-installed"))
    assert result.returncode == 0, result.stderr
    assert "compute scale: fast" in result.stdout
    assert "TOKEN_SELECTION_SCALE=full" in result.stdout
    assert ("CPU" in result.stdout) or ("GPU" in result.stdout)
    assert "pip" not in result.stdout and "uv" not in result.stdout


@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_in_colab_a_failed_install_stops_the_cell_with_the_installer_output(tmp_path, installer):
    missing = tmp_path / "no-such-package"
    result = run_setup_cell(tmp_path, colab=True, package=f"token_selection @ {missing.as_uri()}", installer=installer)
    assert result.returncode != 0
    assert f"{installer} could not install token_selection @ file://" in result.stderr
    assert any(words in result.stderr for words in ("does not exist", "No such file", "not found")), result.stderr[-2000:]


def test_the_generated_cell_is_ruff_clean(tmp_path):
    notebook = tmp_path / "cell.py"
    notebook.write_text(sync.setup_cell(sync.course_location(ROOT)) + "\n")
    ruff = Path(sys.executable).parent / "ruff"
    result = subprocess.run(
        [str(ruff), "check", "--config", str(ROOT / "pyproject.toml"), "--ignore", "E402,I001", str(notebook)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout


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


@pytest.mark.parametrize("installer", ["uv", "pip"])
def test_in_colab_an_install_that_changes_a_preinstalled_package_asks_for_a_restart(tmp_path, installer):
    """A session with six 1.16.0 "preinstalled"; the package to install needs six>=1.17."""
    venv, path = tmp_path / "session", installer_path(installer)
    python = venv / "bin" / "python"
    if installer == "uv":  # the session needs no pip: uv installs into it from outside
        uv = shutil.which("uv", path=path)
        subprocess.run([uv, "venv", "-q", "--python", sys.executable, str(venv)], check=True)
        subprocess.run([uv, "pip", "install", "-q", "--python", str(python), "six==1.16.0"], check=True)
    else:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "six==1.16.0"], check=True)
    needs_newer = tmp_path / "needs_newer"
    (needs_newer / "needs_newer").mkdir(parents=True)
    (needs_newer / "needs_newer" / "__init__.py").write_text("")
    (needs_newer / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "needs_newer"\nversion = "1.0"\ndependencies = ["six>=1.17"]\n'
    )
    (tmp_path / "google" / "colab").mkdir(parents=True)
    shutil.copy(ROOT / "ci" / "google_colab.py", tmp_path / "google" / "colab" / "__init__.py")
    script = tmp_path / "cell.py"
    script.write_text("import google.colab\n" + sync.setup_cell(sync.course_location(ROOT)))
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path),
        "COURSE_PACKAGE": f"needs_newer @ {needs_newer.as_uri()}",
        "PATH": path,
    }
    result = subprocess.run([str(python), str(script)], capture_output=True, text=True, env=env, timeout=300)
    assert result.returncode == 1, result.stdout + result.stderr
    assert INSTALLED[installer] in result.stdout, "the installer's output is shown when the install changed something"
    assert "Installing the course changed packages Colab had already loaded: six 1.16.0 -> " in result.stderr
    assert "Restart the session" in result.stderr
