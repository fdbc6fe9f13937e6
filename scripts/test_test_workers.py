"""The root conftest.py shares the CPU cores out among pytest-xdist's workers."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("root_conftest", ROOT / "conftest.py")
root_conftest = importlib.util.module_from_spec(spec)
spec.loader.exec_module(root_conftest)


@pytest.mark.parametrize(
    ("cores", "workers", "threads"),
    [(2, 2, 1), (4, 2, 2), (5, 2, 2), (2, 3, 1), (16, 1, 16), (None, 2, 1), (3, 3, 1), (8, 3, 2)],
)
def test_threads_per_worker_is_each_workers_share_of_the_cores(cores, workers, threads):
    assert root_conftest.threads_per_worker(cores, workers) == threads


def test_threads_per_worker_rejects_no_workers():
    with pytest.raises(ValueError, match="at least 1, got 0"):
        root_conftest.threads_per_worker(4, 0)


def test_xdist_workers_get_their_share_of_the_cores(tmp_path):
    """Two pytest-xdist workers run under this repository's conftest.py: each sees its share in its environment."""
    (tmp_path / "conftest.py").write_text((ROOT / "conftest.py").read_text())
    probe = "def test_{0}():\n    (Path(__file__).parent / '{0}.txt').write_text(os.environ.get('OMP_NUM_THREADS', '-'))\n"
    (tmp_path / "test_probe.py").write_text("import os\nfrom pathlib import Path\n\n" + probe.format("a") + probe.format("b"))
    env = {k: v for k, v in os.environ.items() if k not in root_conftest.THREAD_VARIABLES}
    command = [sys.executable, "-m", "pytest", "-n", "2", "-p", "no:cacheprovider", str(tmp_path)]
    subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, check=True)
    expected = str(root_conftest.threads_per_worker(os.cpu_count(), 2))
    assert [(tmp_path / f"{name}.txt").read_text() for name in "ab"] == [expected, expected]


class _Config:
    pass


def test_a_thread_count_set_by_hand_is_kept_and_a_run_without_workers_is_left_alone(monkeypatch):
    for name in root_conftest.THREAD_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    root_conftest.pytest_configure(_Config())
    assert not any(name in os.environ for name in root_conftest.THREAD_VARIABLES), "no workers: nothing to share"
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "1")
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    root_conftest.pytest_configure(_Config())
    assert os.environ["OMP_NUM_THREADS"] == "3"
    assert "MKL_NUM_THREADS" not in os.environ, "a count set by hand stands for all of them"
    monkeypatch.delenv("OMP_NUM_THREADS")
    root_conftest.pytest_configure(_Config())
    cores = str(root_conftest.threads_per_worker(os.cpu_count(), 1))
    assert [os.environ[name] for name in root_conftest.THREAD_VARIABLES] == [cores] * 3
