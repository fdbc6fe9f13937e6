"""The GitHub workflows: actionlint passes, and every make target they call exists."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def test_the_four_workflows_exist():
    assert [path.name for path in WORKFLOWS] == ["ci.yml", "colab.yml", "publish.yml", "weekly.yml"]


def test_actionlint_passes():
    actionlint = Path(sys.executable).parent / "actionlint"
    result = subprocess.run(
        [str(actionlint), "-no-color", "-oneline", *map(str, WORKFLOWS)], cwd=ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def run_lines(path: Path) -> list[str]:
    workflow = yaml.safe_load(path.read_text())
    return [
        line
        for job in workflow["jobs"].values()
        for step in job.get("steps", [])
        for line in str(step.get("run", "")).splitlines()
    ]


def test_every_make_target_the_workflows_call_exists():
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([\w-]+):", makefile, flags=re.MULTILINE))
    called = {target for path in WORKFLOWS for line in run_lines(path) for target in re.findall(r"\bmake ([\w-]+)", line)}
    assert called, "no workflow calls make"
    assert called - targets == set(), f"targets the workflows call but the Makefile lacks: {sorted(called - targets)}"


def test_hosted_jobs_take_torch_from_the_cpu_index():
    for name in ("ci.yml", "publish.yml", "colab.yml"):
        workflow = yaml.safe_load((ROOT / ".github" / "workflows" / name).read_text())
        for job in workflow["jobs"].values():
            if "steps" in job and any("make" in str(step.get("run", "")) for step in job["steps"]):
                assert job["env"]["PIP_EXTRA_INDEX_URL"] == "https://download.pytorch.org/whl/cpu", name
