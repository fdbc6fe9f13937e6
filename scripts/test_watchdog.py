"""scripts/watchdog.sh: a command past its limit is stopped and run once more; any other exit is its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

WATCHDOG = Path(__file__).resolve().parent / "watchdog.sh"

# each run appends a line to the count file, then hangs while the file has fewer than `hangs` + 1 lines
SCRIPT = """
import sys, time
count, hangs, code = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(count, "a") as f:
    f.write("run\\n")
if len(open(count).read().splitlines()) <= hangs:
    time.sleep(60)
sys.exit(code)
"""


def watch(tmp_path: Path, limit: str, hangs: int, code: int = 0) -> tuple[int, int, str]:
    count = tmp_path / "runs"
    done = subprocess.run(
        ["bash", str(WATCHDOG), limit, sys.executable, "-c", SCRIPT, str(count), str(hangs), str(code)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    runs = len(count.read_text().splitlines()) if count.exists() else 0
    return done.returncode, runs, done.stderr


def test_a_command_within_its_limit_runs_once_and_keeps_its_status(tmp_path: Path) -> None:
    assert watch(tmp_path, "20", hangs=0, code=0)[:2] == (0, 1)


def test_a_failure_is_not_run_again(tmp_path: Path) -> None:
    status, runs, stderr = watch(tmp_path, "20", hangs=0, code=3)
    assert (status, runs) == (3, 1)
    assert "watchdog" not in stderr


def test_a_hang_is_stopped_said_and_run_once_more(tmp_path: Path) -> None:
    status, runs, stderr = watch(tmp_path, "2", hangs=1, code=0)
    assert (status, runs) == (0, 2)
    assert "stopped after 2 s (run 1 of 2)" in stderr


def test_a_second_hang_fails_with_the_timeout_status(tmp_path: Path) -> None:
    status, runs, stderr = watch(tmp_path, "1", hangs=2, code=0)
    assert (status, runs) == (124, 2)
    assert "run 2 of 2" in stderr


@pytest.mark.parametrize("limit", ["0", "-5", "1.5", "ten"])
def test_a_limit_that_is_not_a_positive_whole_number_is_refused(tmp_path: Path, limit: str) -> None:
    status, runs, stderr = watch(tmp_path, limit, hangs=0)
    assert (status, runs) == (2, 0)
    assert f"got '{limit}'" in stderr
