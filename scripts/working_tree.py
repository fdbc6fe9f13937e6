"""The working tree: a copy of what a clone would hold, and its state before and after a test run.

The wheel test and `make colab-check` build the package from such a copy (``snapshot``), as pip does
from a `git+https://...` address, so a file the package needs but git ignores is caught here.

``.ci/run`` records the tree's state (``state``: every changed or untracked file that git does not
ignore, with the hash of its content) before `make test` and checks it after: a test run that
rewrites a committed record, or leaves a new file outside the ignored build folders, fails.

    python scripts/working_tree.py state > before
    make test
    python scripts/working_tree.py check before    # exit 1, naming the files, when the state changed
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def snapshot(destination: Path, root: Path = ROOT) -> Path:
    """Copy every tracked or untracked-but-not-ignored file of ``root`` into ``destination``.

    Virtual environments at the top level (a folder holding ``pyvenv.cfg``) are skipped even when
    git does not ignore them: they are never part of the repository.
    """
    listing = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    venvs = {path.parent.name for path in root.glob("*/pyvenv.cfg")}
    for name in filter(None, listing.split("\0")):
        source = root / name
        # a file deleted in the working tree is still listed by --cached
        if source.is_file() and name.split("/")[0] not in venvs:
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return destination


def state(root: Path | None = None) -> list[str]:
    """One line per file of ``root`` (default: the repository) that differs from the last commit or is untracked and
    not ignored: status, sha256, path. A clean tree gives no line. A deleted file's hash is "-".
    """
    root = ROOT if root is None else root
    listing = subprocess.run(
        ["git", "status", "--porcelain=v1", "-z", "--untracked-files=all"], cwd=root, capture_output=True, text=True, check=True
    ).stdout
    lines = []
    entries = iter(listing.split("\0"))
    for entry in entries:
        if not entry:
            continue
        status, name = entry[:2], entry[3:]
        if "R" in status or "C" in status:
            next(entries, None)  # a rename's second field is its old name
        path = root / name
        digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "-"
        lines.append(f"{status} {digest} {name}")
    return sorted(lines)


def changes(before: list[str], after: list[str]) -> list[str]:
    """The lines of ``after`` not in ``before`` and the reverse, each marked with + or -."""
    return [f"+ {line}" for line in after if line not in before] + [f"- {line}" for line in before if line not in after]


def main(argv: list[str]) -> int:
    if argv[:1] == ["state"] and len(argv) == 1:
        print("\n".join(state()))
        return 0
    if argv[:1] == ["check"] and len(argv) == 2:
        before = [line for line in Path(argv[1]).read_text().splitlines() if line]
        changed = changes(before, state())
        if changed:
            print("the test run changed the working tree (+ now, - before):", *changed, sep="\n  ")
            return 1
        print("the working tree is as the test run found it")
        return 0
    print("usage: working_tree.py state | check FILE", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
