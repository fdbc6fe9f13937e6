"""The working-tree check that ends `.ci/run`: a test run that changes any file git does not ignore fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from working_tree import changes, main, state  # noqa: E402


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with two committed files, one ignored build folder and one file changed before the run."""
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "config", "user.email", "ci@example.org")
    _git(tmp_path, "config", "user.name", "ci")
    (tmp_path / ".gitignore").write_text("_build/\n")
    (tmp_path / "record.json").write_text('{"accuracy": 0.847}\n')
    (tmp_path / "notes.md").write_text("notes\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "commit", "-qm", "start")
    (tmp_path / "notes.md").write_text("notes, edited before the run\n")
    return tmp_path


def test_a_clean_tree_has_no_state_line(repo):
    _git(repo, "checkout", "notes.md")
    assert state(repo) == []


def test_output_in_an_ignored_folder_changes_nothing(repo):
    before = state(repo)
    (repo / "_build").mkdir()
    (repo / "_build" / "page.html").write_text("<html></html>")
    assert changes(before, state(repo)) == []


def test_a_rewritten_committed_record_is_caught_even_at_rounding_level(repo):
    before = state(repo)
    (repo / "record.json").write_text('{"accuracy": 0.8470000001}\n')
    changed = changes(before, state(repo))
    assert len(changed) == 1 and changed[0].startswith("+  M ") and changed[0].endswith(" record.json")


def test_a_file_changed_before_the_run_and_again_during_it_is_caught(repo):
    before = state(repo)
    assert [line.split()[-1] for line in before] == ["notes.md"]
    (repo / "notes.md").write_text("notes, edited again by the run\n")
    changed = changes(before, state(repo))
    assert sorted(line[0] for line in changed) == ["+", "-"]


def test_a_new_file_and_a_deleted_file_are_caught(repo):
    before = state(repo)
    (repo / "stray.csv").write_text("1,2\n")
    (repo / "record.json").unlink()
    after = state(repo)
    assert any(line.startswith("?? ") and line.endswith(" stray.csv") for line in after)
    assert any(line.startswith(" D - ") and line.endswith("record.json") for line in after)
    assert len(changes(before, after)) == 2


def test_check_exits_1_naming_the_file_and_0_when_unchanged(repo, monkeypatch, capsys, tmp_path_factory):
    monkeypatch.setattr("working_tree.ROOT", repo)
    saved = tmp_path_factory.mktemp("state") / "before"
    assert main(["state"]) == 0
    saved.write_text(capsys.readouterr().out)
    assert main(["check", str(saved)]) == 0
    assert "as the test run found it" in capsys.readouterr().out
    (repo / "record.json").write_text("{}\n")
    assert main(["check", str(saved)]) == 1
    out = capsys.readouterr().out
    assert "changed the working tree" in out and "record.json" in out and "notes.md" not in out
    assert main(["bogus"]) == 2
