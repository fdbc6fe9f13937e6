"""The wheel pip builds from the repository carries the data the chapters read (issue: Colab)."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from release_check import course_version
from working_tree import snapshot

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DATA = ("records/*.json", "explorer/*.json", "explorer/*.sha256", "explorer/*.js")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> tuple[Path, zipfile.ZipFile]:
    """The wheel built by `pip wheel --no-deps` from a copy of the working tree (as from a clone)."""
    work = tmp_path_factory.mktemp("wheel")
    source = snapshot(work / "repository")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--disable-pip-version-check", "-q", str(source), "-w", str(work)],
        check=True,
        timeout=600,
    )
    (built,) = work.glob("token_selection-*.whl")
    with zipfile.ZipFile(built) as archive:
        yield source, archive


def test_wheel_holds_the_results_records_and_the_explorer_grid(wheel):
    source, archive = wheel
    package = source / "src" / "token_selection"
    expected = sorted(str(p.relative_to(package.parent)) for pattern in PACKAGE_DATA for p in package.glob(pattern))
    assert any("/records/" in name for name in expected), "no results record in src/token_selection/records/"
    grids = [name for name in expected if name.startswith("token_selection/explorer/") and name.endswith(".json")]
    assert grids, "no precomputed explorer grid in src/token_selection/explorer/"
    assert all(f"{grid}.sha256" in expected for grid in grids), "every explorer grid needs its .sha256 beside it"
    missing = sorted(set(expected) - set(archive.namelist()))
    assert missing == [], f"package data left out of the wheel: {missing}"


def test_wheel_version_is_the_one_in_version_py_and_it_carries_the_licence(wheel):
    _, archive = wheel
    (metadata_name,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
    metadata = archive.read(metadata_name).decode()
    assert f"\nVersion: {course_version(ROOT)}\n" in metadata
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in archive.namelist())
