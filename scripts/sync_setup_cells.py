"""Keep every copy of where the course lives in line with its one source, ``_config.yml``.

The source is ``repository.url`` (the GitHub repository) and ``repository.branch`` (the ref the
Colab launch buttons open and the first cell installs from). From it this script

* writes the first code cell of every chapter (``notebooks/*.ipynb``) from one template, and
* with ``--check``, changes nothing and lists every copy that disagrees: a first cell that is not
  the template's output, or a link to the course repository, its Colab pages or its GitHub Pages
  site (in the README, the book and its tests, the contributor guide, the citation file, the
  project metadata, the workflows) that names another repository or ref.

    python scripts/sync_setup_cells.py            # rewrite the first cells
    python scripts/sync_setup_cells.py --check    # exit 1 and list what disagrees
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import yaml
from fold_prompts import SETUP

ROOT = Path(__file__).resolve().parent.parent

# The first code cell of every chapter. The course package is not there before the install, so
# the cell itself records what is installed (``before``), installs with pip in Colab only (an
# IPython shell line, which shows pip's messages in the cell), and hands the record to
# ``ts.finish_setup`` (src/token_selection/setup_check.py): it stops the cell when pip failed or
# when the install changed a package the session had already imported (asking for a restart),
# and otherwise prints one line, the version, the device and the compute scale. The chapters use
# ``ts`` (the package's short name) from this cell.
SETUP_CELL = """\
# Setup. In Colab: install the course package; elsewhere: nothing to do.
import os
import sys
from importlib.metadata import distributions, version

before = {{d.name: version(d.name) for d in distributions()}}
course = "git+{url}@{ref}"
if "google.colab" in sys.modules:
    package = os.environ.get("COURSE_PACKAGE", course)
    !pip install -q "{{package}}"
import token_selection as ts

ts.finish_setup(before)"""

# Files that may name the course repository, relative to the repository root.
COPY_GLOBS = (
    "README.md",
    "CONTRIBUTING.md",
    "CHANGELOG.md",
    "CITATION.cff",
    "pyproject.toml",
    "_config.yml",
    "book/**/*.md",
    "book/**/*.py",
    "notebooks/*.ipynb",
    ".github/**/*.yml",
    ".github/**/*.md",
)
# Repositories other than the course's that these files may link to (by GitHub owner).
THIRD_PARTY_OWNERS = frozenset({"googlecolab", "executablebooks", "jupyter-book"})

GITHUB_LINK = re.compile(r"github\.com/([\w.-]+)/([\w.-]+)")
COLAB_LINK = re.compile(r"colab\.research\.google\.com/github/([\w.-]+)/([\w.-]+)(?:/blob/([\w.-]+))?")
PAGES_LINK = re.compile(r"([\w-]+)\.github\.io/([\w.-]+)")


@dataclass(frozen=True)
class CourseLocation:
    """Where the course lives: ``url`` is https://github.com/OWNER/NAME, ``ref`` a branch or tag."""

    url: str
    ref: str

    @property
    def owner(self) -> str:
        return self.url.split("/")[3]

    @property
    def name(self) -> str:
        return self.url.split("/")[4]

    def colab_url(self, notebook: str) -> str:
        """The Colab address of ``notebook`` (a path such as ``notebooks/01_model.ipynb``)."""
        return f"https://colab.research.google.com/github/{self.owner}/{self.name}/blob/{self.ref}/{notebook}"


def course_location(root: Path = ROOT) -> CourseLocation:
    """Read ``repository.url`` and ``repository.branch`` from ``root/_config.yml``."""
    config = yaml.safe_load((root / "_config.yml").read_text())
    repository = config.get("repository") or {}
    url, ref = str(repository.get("url", "")).rstrip("/"), str(repository.get("branch", ""))
    if not re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", url):
        raise ValueError(f"_config.yml repository.url must be https://github.com/OWNER/NAME, got {url!r}")
    if not re.fullmatch(r"[\w./-]+", ref):
        raise ValueError(f"_config.yml repository.branch must name a branch or tag, got {ref!r}")
    return CourseLocation(url, ref)


def setup_cell(location: CourseLocation) -> str:
    """The first code cell of every chapter, for ``location``."""
    return SETUP_CELL.format(url=location.url, ref=location.ref)


def chapters(root: Path) -> list[Path]:
    return sorted((root / "notebooks").glob("*.ipynb"))


def first_code_cell(notebook: nbformat.NotebookNode, path: Path) -> nbformat.NotebookNode:
    for cell in notebook.cells:
        if cell.cell_type == "code":
            return cell
    raise ValueError(f"{path}: no code cell; a chapter must start its code with the setup cell")


SETUP_TAGS = {"hide-input", "remove-output"}
"""The set-up cell's tags: its code folded, its output not in the book."""
SETUP_PROMPTS = dict(zip(("code_prompt_show", "code_prompt_hide"), SETUP, strict=True))
"""The words on its toggle in the book, ``fold_prompts.SETUP`` (MyST-NB reads them from the cell's ``mystnb`` metadata)."""


def _labelled(cell: nbformat.NotebookNode) -> bool:
    settings = cell.metadata.get("mystnb", {})
    return all(settings.get(key) == value for key, value in SETUP_PROMPTS.items())


def write_setup_cells(root: Path = ROOT) -> list[Path]:
    """Write the first code cell of every chapter from the template; return the files changed.

    A first code cell that is not a setup cell (it does not start with ``# Setup``) is kept, and
    the setup cell is inserted before it.
    """
    source = setup_cell(course_location(root))
    changed = []
    for path in chapters(root):
        notebook = nbformat.read(path, as_version=4)
        cell = first_code_cell(notebook, path)
        if not cell.source.startswith("# Setup"):
            cell = nbformat.v4.new_code_cell()
            notebook.cells.insert(next(i for i, c in enumerate(notebook.cells) if c.cell_type == "code"), cell)
        tags = cell.metadata.get("tags", [])
        stale = cell.source != source or cell.outputs or cell.execution_count is not None
        if stale or not SETUP_TAGS <= set(tags) or not _labelled(cell):
            # the book folds the set-up cell's code away and leaves its one line (version, device, scale) out of the
            # reading path; a notebook (Colab, Jupyter) prints it, where it says what this session installed and runs
            cell.source, cell.outputs, cell.execution_count = source, [], None
            cell.metadata["tags"] = [*(t for t in tags if t not in SETUP_TAGS), *sorted(SETUP_TAGS)]
            cell.metadata["mystnb"] = {**cell.metadata.get("mystnb", {}), **SETUP_PROMPTS}
            nbformat.write(notebook, path)
            changed.append(path)
    return changed


def _disagreements_in(text: str, location: CourseLocation) -> list[str]:
    found = []
    for match in GITHUB_LINK.finditer(text):
        owner, name = match.group(1), match.group(2).rstrip(".").removesuffix(".git")
        if owner.lower() not in THIRD_PARTY_OWNERS and (owner, name) != (location.owner, location.name):
            found.append(f"names repository {owner}/{name}")
    for match in COLAB_LINK.finditer(text):
        if (match.group(1), match.group(2)) != (location.owner, location.name):
            found.append(f"opens Colab on repository {match.group(1)}/{match.group(2)}")
        elif match.group(3) not in (None, location.ref):
            found.append(f"opens Colab at ref {match.group(3)}")
    for match in PAGES_LINK.finditer(text):
        if (match.group(1), match.group(2)) != (location.owner, location.name):
            found.append(f"links the site {match.group(0)}")
    return found


def check(root: Path = ROOT) -> list[str]:
    """Every disagreement with the one source, as 'path: what' lines (empty when all agree)."""
    location = course_location(root)
    source = setup_cell(location)
    problems = []
    for path in chapters(root):
        cell = first_code_cell(nbformat.read(path, as_version=4), path)
        if cell.source != source:
            problems.append(f"{path.relative_to(root)}: first code cell differs from the template (run this script)")
        elif not _labelled(cell):
            problems.append(f"{path.relative_to(root)}: the set-up cell's toggle is not labelled (run this script)")
    for pattern in COPY_GLOBS:
        for path in sorted(root.glob(pattern)):
            for what in sorted(set(_disagreements_in(path.read_text(), location))):
                problems.append(f"{path.relative_to(root)}: {what}, not {location.owner}/{location.name}@{location.ref}")
    readme = root / "README.md"
    example = location.colab_url("notebooks/01_model.ipynb")
    if readme.exists() and example not in readme.read_text():
        problems.append(f"README.md: does not give the Colab address {example}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a copy disagrees")
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root (default: this checkout)")
    args = parser.parse_args(argv)
    if args.check:
        problems = check(args.root)
        for problem in problems:
            print(problem)
        location = course_location(args.root)
        print(f"{len(problems)} copies disagree with {location.url} @ {location.ref} (_config.yml)")
        return 1 if problems else 0
    for path in write_setup_cells(args.root):
        print(f"rewrote the setup cell of {path.relative_to(args.root)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
