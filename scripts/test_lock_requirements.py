"""The lock file matches requirements.txt, and a changed requirements.txt is caught."""

from __future__ import annotations

import re

from lock_requirements import (
    LOCK,
    REQUIREMENTS,
    locked_names,
    normalise,
    recorded_sha256,
    render,
    requirements_sha256,
    stale_reason,
)


def test_lock_was_generated_from_the_current_requirements():
    reason = stale_reason()
    assert reason is None, reason


def test_every_requirement_is_pinned_in_the_lock():
    pinned = locked_names()
    for line in REQUIREMENTS.read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name = normalise(re.split(r"[<>=!~;\[ ]", line, maxsplit=1)[0])
            assert name in pinned, f"{name} is in requirements.txt but not pinned in {LOCK.name}: run `make lock`"


def test_a_changed_requirements_file_makes_the_lock_stale(tmp_path):
    requirements = tmp_path / "requirements.txt"
    requirements.write_text("numpy>=1.26,<3\n")
    lock = tmp_path / "requirements.lock"
    lock.write_text(render([("numpy", "2.0.0")], requirements_sha256(requirements)))
    assert stale_reason(requirements, lock) is None
    assert recorded_sha256(lock) == requirements_sha256(requirements)

    requirements.write_text("numpy>=1.26,<3\nscipy>=1.11,<2\n")
    reason = stale_reason(requirements, lock)
    assert reason is not None and "make lock" in reason and "changed" in reason

    lock.unlink()
    assert "missing" in stale_reason(requirements, lock)
