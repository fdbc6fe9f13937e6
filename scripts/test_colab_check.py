"""The Colab check runs every chapter as a reader's first visit: the course not installed, Colab's versions."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import colab_check
import pytest
from lock_requirements import find_uv, uv_environment
from test_lock_requirements import build_wheel


@pytest.fixture(scope="module")
def colab(tmp_path_factory) -> tuple[Path, Path, dict[str, str]]:
    """An environment with pip and "image_pkg" 1.0 as Colab's image: its python, the wheels, what it holds."""
    root = tmp_path_factory.mktemp("colab")
    venv, wheels = root / "venv", root / "wheels"
    uv = find_uv()
    if uv:  # from uv's cache: seconds where `python -m venv` with pip takes longer
        subprocess.run([uv, "venv", "-q", "--seed", "--python", sys.executable, str(venv)], check=True, env=uv_environment())
    else:
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    build_wheel(wheels, "image_pkg", "1.0")
    build_wheel(wheels, "image_pkg", "2.0")
    build_wheel(wheels, "brought_in", "0.3")
    build_wheel(wheels, "token_selection", "1.0.0", requires=("image_pkg>=2", "brought_in"))
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index", "--find-links", str(wheels)]
    subprocess.run([*pip, "image_pkg==1.0"], check=True)
    pristine = colab_check.installed_distributions(python)
    assert pristine.get("image_pkg", pristine.get("image-pkg")) == "1.0"
    return python, wheels, pristine


def test_a_first_visit_removes_the_course_and_what_it_brought_and_puts_changed_versions_back(colab, tmp_path, monkeypatch):
    python, wheels, pristine = colab
    # an earlier chapter's first cell installed the course, which brought a package and upgraded one
    install = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-index"]
    subprocess.run([*install, "--find-links", str(wheels), "token_selection==1.0.0"], check=True)
    after = colab_check.installed_distributions(python)
    assert {name.replace("_", "-") for name in set(after) - set(pristine)} == {"token-selection", "brought-in"}
    assert colab_check.course_origin(python, {}, tmp_path) is not None
    # putting image_pkg 1.0 back needs pip (no uv) to find it among the local wheels
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    monkeypatch.setenv("PIP_FIND_LINKS", str(wheels))
    colab_check.first_visit(python, pristine, {}, tmp_path, uv=None)
    assert colab_check.installed_distributions(python) == pristine
    assert colab_check.course_origin(python, {}, tmp_path) is None


def test_a_first_visit_in_a_pristine_environment_changes_nothing(colab, tmp_path):
    python, _, pristine = colab
    colab_check.first_visit(python, pristine, {}, tmp_path, uv=None)
    assert colab_check.installed_distributions(python) == pristine


def test_a_course_importable_before_the_first_cell_stops_the_check_naming_where(colab, tmp_path):
    python, _, pristine = colab
    (tmp_path / "token_selection").mkdir()
    (tmp_path / "token_selection" / "__init__.py").write_text("")  # a copy beside the chapter
    with pytest.raises(RuntimeError, match="the course is importable") as stop:
        colab_check.first_visit(python, pristine, {}, tmp_path, uv=None)
    assert str(tmp_path / "token_selection" / "__init__.py") in str(stop.value)


def test_changed_versions_names_each_package_of_the_list_off_colabs_version():
    pins = colab_check.colab_versions()
    name, version = next(iter(pins.items()))
    installed = dict(pins)
    assert colab_check.changed_versions(Path("unused"), installed) == {}
    installed[name] = version + ".post1"
    assert colab_check.changed_versions(Path("unused"), installed) == {name: (version, version + ".post1")}
    del installed[name]
    assert colab_check.changed_versions(Path("unused"), installed) == {name: (version, None)}


def test_each_chapter_starts_as_a_first_visit(monkeypatch, tmp_path):
    calls: list[tuple[str, str]] = []
    monkeypatch.setattr(colab_check, "find_uv", lambda: None)
    monkeypatch.setattr(colab_check, "ensure_venv", lambda venv, uv: tmp_path / "python")
    monkeypatch.setattr(colab_check, "snapshot", lambda where: where)
    monkeypatch.setattr(colab_check, "kernel_environment", lambda venv, package: {})
    monkeypatch.setattr(colab_check, "probe_kernel", lambda *args: None)
    monkeypatch.setattr(colab_check, "installed_distributions", lambda python: {"pip": "24.0", "token-selection": "0.9"})
    monkeypatch.setattr(colab_check, "changed_versions", lambda python: {})

    def first_visit(python, pristine, env, cwd, uv=None):
        assert "token-selection" not in pristine, "the course is never part of the environment a chapter starts from"
        calls.append(("first visit", cwd.name))

    def run(command, cwd=None, env=None, **kwargs):
        calls.append(("run", Path(command[-1]).stem))
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(colab_check, "first_visit", first_visit)
    monkeypatch.setattr(colab_check.subprocess, "run", run)
    chapters = []
    for stem in ("01_a", "02_b"):
        (tmp_path / f"{stem}.ipynb").write_text("{}")
        chapters.append(str(tmp_path / f"{stem}.ipynb"))
    assert colab_check.main([*chapters, "--venv", str(tmp_path / "venv")]) == 0
    assert calls[:4] == [("first visit", "01_a"), ("run", "01_a"), ("first visit", "02_b"), ("run", "02_b")]
    assert [call[0] for call in calls[4:]] == ["first visit"]  # the environment is left as it was built
