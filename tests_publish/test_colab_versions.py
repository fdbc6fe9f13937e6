"""The Colab image's versions (ci/colab-versions.txt) satisfy the package's ranges."""

from __future__ import annotations

import re
from pathlib import Path

import colab_check
import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent


def test_the_list_is_dated_and_complete():
    text = (ROOT / "ci" / "colab-versions.txt").read_text()
    assert re.search(r"^# image-date: \d{4}-\d{2}$", text, flags=re.MULTILINE)
    pins = colab_check.colab_versions()
    assert {"numpy", "ipywidgets", "plotly", "datasets", "tokenizers", "pandas", "pyarrow", "cvxpy"} <= set(pins)


def test_every_colab_version_satisfies_the_package_ranges():
    block = re.search(r"^dependencies = \[\n(.*?)^\]", (ROOT / "pyproject.toml").read_text(), flags=re.M | re.S)
    lines = re.findall(r'^\s*"([^"]+)",?\s*$', block.group(1), flags=re.M)
    requirements = {Requirement(line).name.lower(): Requirement(line) for line in lines}
    assert "ipywidgets" in requirements and "numpy" in requirements
    pins = colab_check.colab_versions()
    outside = {
        name: f"{version} not in {requirements[name].specifier}"
        for name, version in pins.items()
        if name in requirements and not requirements[name].specifier.contains(version, prereleases=True)
    }
    assert outside == {}, f"installing the course would replace Colab's packages: {outside}"


def test_a_line_without_a_pin_is_refused(tmp_path):
    path = tmp_path / "versions.txt"
    path.write_text("# comment\nnumpy==2.1.3\nplotly>=5\n")
    with pytest.raises(ValueError, match="name==version, got 'plotly>=5'"):
        colab_check.colab_versions(path)
