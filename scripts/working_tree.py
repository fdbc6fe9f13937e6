"""Copy the files a clone of the repository would hold: the working tree, without ignored files.

The wheel test and `make colab-check` build the package from such a copy, as pip does from a
`git+https://...` address, so a file the package needs but git ignores is caught here.
"""

from __future__ import annotations

import shutil
import subprocess
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
