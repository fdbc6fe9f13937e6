"""Check that the working tree is ready to be tagged as a release (``make release-check``).

It verifies that

* the version is written once, in ``src/token_selection/_version.py`` (``X.Y.Z``), and that the
  package metadata (``pyproject.toml``), the installed package and ``CITATION.cff`` agree with it;
* ``CHANGELOG.md`` has a dated entry ``## [X.Y.Z] - YYYY-MM-DD``;
* the lock (``requirements.lock``) exists and pins every package of ``requirements.txt``;
* the built site (``_build/html``) and the PDF (``_build/pdf/course.pdf``) exist.

    python scripts/release_check.py          # exit 1 and list what is missing
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from importlib import metadata
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
VERSION_FILE = Path("src/token_selection/_version.py")
SEMVER = re.compile(r"\d+\.\d+\.\d+")
REQUIREMENT_NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)")


def course_version(root: Path) -> str:
    """The ``__version__`` string assigned in ``_version.py``."""
    tree = ast.parse((root / VERSION_FILE).read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__version__" for t in node.targets):
            return ast.literal_eval(node.value)
    raise ValueError(f"{VERSION_FILE} assigns no __version__")


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def lock_problems(root: Path) -> list[str]:
    lock, requirements = root / "requirements.lock", root / "requirements.txt"
    if not lock.is_file():
        return ["requirements.lock is missing (make lock)"]
    pinned = {
        _normalise(match.group(1))
        for line in lock.read_text().splitlines()
        if "==" in line and (match := REQUIREMENT_NAME.match(line))
    }
    wanted = [
        match.group(1)
        for line in requirements.read_text().splitlines()
        if not line.lstrip().startswith(("#", "-")) and (match := REQUIREMENT_NAME.match(line))
    ]
    unpinned = [name for name in wanted if _normalise(name) not in pinned]
    return [f"requirements.lock does not pin {', '.join(unpinned)} (make lock)"] if unpinned else []


def installed_version() -> str | None:
    """The version of the installed ``token_selection`` distribution, or None when it is not installed."""
    try:
        return metadata.version("token_selection")
    except metadata.PackageNotFoundError:
        return None


def metadata_problems(root: Path = ROOT, installed: str | None = None) -> list[str]:
    """Disagreements about the version: _version.py, pyproject.toml, the installed package, CITATION.cff, CHANGELOG.md.

    ``installed`` is the installed package's version (None: not installed, not compared).
    """
    found = []
    version = course_version(root)
    if not SEMVER.fullmatch(version):
        found.append(f"{VERSION_FILE}: version {version!r} is not X.Y.Z")
    pyproject = (root / "pyproject.toml").read_text()
    if not re.search(r'^dynamic = \[[^]]*"version"', pyproject, re.M) or not re.search(
        r'^version = \{ *attr *= *"token_selection\._version\.__version__" *\}', pyproject, re.M
    ):
        found.append("pyproject.toml: the version must be dynamic, read from token_selection._version.__version__")
    if installed is not None and installed != version:
        found.append(f"the installed package says {installed}, {VERSION_FILE} says {version} (reinstall: make install)")
    citation = yaml.safe_load((root / "CITATION.cff").read_text())
    if str(citation.get("version")) != version:
        found.append(f"CITATION.cff: version {citation.get('version')}, not {version}")
    entry = re.search(rf"^## \[{re.escape(version)}\] - (\d{{4}}-\d{{2}}-\d{{2}})$", (root / "CHANGELOG.md").read_text(), re.M)
    if entry is None:
        found.append(f"CHANGELOG.md: no entry '## [{version}] - YYYY-MM-DD'")
    elif str(citation.get("date-released")) != entry.group(1):
        found.append(f"CITATION.cff: date-released {citation.get('date-released')}, the changelog says {entry.group(1)}")
    return found


def artifact_problems(root: Path = ROOT) -> list[str]:
    """The built site and the PDF, when missing."""
    found = []
    if not (root / "_build" / "html" / "index.html").is_file():
        found.append("_build/html has no built site (make book)")
    pdf = root / "_build" / "pdf" / "course.pdf"
    if not pdf.is_file() or pdf.read_bytes()[:5] != b"%PDF-":
        found.append("_build/pdf/course.pdf is missing or not a PDF (make pdf)")
    return found


def problems(root: Path = ROOT, installed: str | None = None) -> list[str]:
    """Everything that stops a release, as sentences (empty when ready)."""
    return metadata_problems(root, installed) + lock_problems(root) + artifact_problems(root)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args(argv)
    found = problems(args.root, installed_version())
    for problem in found:
        print(problem)
    version = course_version(args.root)
    print(f"release {version}: " + ("ready" if not found else f"{len(found)} problems"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
