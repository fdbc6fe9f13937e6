"""Licence, citation, changelog and the release check."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
import release_check
import yaml

ROOT = Path(__file__).resolve().parent.parent
# The Citation File Format 1.2.0 schema (citation-file-format.github.io), kept offline in ci/.
CFF_SCHEMA = json.loads((ROOT / "ci" / "citation-cff-schema-1.2.0.json").read_text())


def cff_errors(data: dict) -> list[str]:
    validator = jsonschema.Draft7Validator(CFF_SCHEMA, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    return [f"{'/'.join(map(str, error.path))}: {error.message}" for error in validator.iter_errors(data)]


def test_citation_file_is_valid_cff_and_cites_the_paper():
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    assert cff_errors(citation) == []
    paper = citation["preferred-citation"]
    assert [a["family-names"] for a in paper["authors"]] == ["Wu", "Shevchenko", "Oymak", "Mondelli"]
    assert "arXiv:2505.17282" in [identifier["value"] for identifier in paper["identifiers"]]


def test_schema_check_can_fail():
    citation = yaml.safe_load((ROOT / "CITATION.cff").read_text())
    del citation["authors"]
    citation["date-released"] = "23 November 2026"
    errors = cff_errors(citation)
    assert any("'authors' is a required property" in e for e in errors)
    assert any(e.startswith("date-released") for e in errors)


def test_licence_states_code_mit_and_text_cc_by():
    licence = (ROOT / "LICENSE").read_text()
    assert "MIT License" in licence and "Permission is hereby granted, free of charge" in licence
    assert "CC BY 4.0" in licence and "creativecommons.org/licenses/by/4.0" in licence


def test_references_page_bibtex_is_the_bib_entry():
    page = (ROOT / "book" / "references.md").read_text()
    block = page.split("```bibtex\n", 1)[1].split("```", 1)[0].strip()
    bib = (ROOT / "book" / "references.bib").read_text()
    entry = bib[bib.index("@inproceedings{wu2025attention") :].split("\n}\n", 1)[0] + "\n}"
    assert block == entry


def test_version_is_released_consistently():
    problems = release_check.metadata_problems(ROOT, release_check.installed_version())
    assert problems == [], problems


@pytest.fixture
def release_tree(tmp_path: Path) -> Path:
    """A minimal repository that is ready for release 2.3.4."""
    (tmp_path / "src" / "token_selection").mkdir(parents=True)
    (tmp_path / "src" / "token_selection" / "_version.py").write_text('__version__ = "2.3.4"\n')
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "CITATION.cff").write_text("version: 2.3.4\ndate-released: '2027-01-02'\n")
    (tmp_path / "CHANGELOG.md").write_text("# Changelog\n\n## [2.3.4] - 2027-01-02\n\n- things\n")
    (tmp_path / "requirements.txt").write_text("# ranges\ntorch==2.13.0\nnumpy>=2.1,<3\n")
    (tmp_path / "requirements.lock").write_text("numpy==2.4.6\n    # via -r requirements.txt\ntorch==2.13.0\n")
    (tmp_path / "_build" / "html").mkdir(parents=True)
    (tmp_path / "_build" / "html" / "index.html").write_text("<html></html>")
    (tmp_path / "_build" / "pdf").mkdir()
    (tmp_path / "_build" / "pdf" / "course.pdf").write_bytes(b"%PDF-1.4\n")
    return tmp_path


def test_release_check_passes_on_a_ready_tree(release_tree):
    assert release_check.problems(release_tree, installed="2.3.4") == []


@pytest.mark.parametrize(
    ("breakage", "message"),
    [
        (lambda r: (r / "CHANGELOG.md").write_text("## [2.3.3] - 2026-01-01\n"), "CHANGELOG.md: no entry '## [2.3.4]"),
        (
            lambda r: (r / "CITATION.cff").write_text("version: 2.3.3\ndate-released: '2027-01-02'\n"),
            "CITATION.cff: version 2.3.3",
        ),
        (lambda r: (r / "CITATION.cff").write_text("version: 2.3.4\ndate-released: '2027-01-09'\n"), "date-released 2027-01-09"),
        (lambda r: (r / "requirements.lock").write_text("torch==2.13.0\n"), "does not pin numpy"),
        (lambda r: (r / "requirements.lock").unlink(), "requirements.lock is missing"),
        (lambda r: (r / "_build" / "pdf" / "course.pdf").write_text("<html>"), "course.pdf is missing or not a PDF"),
        (lambda r: shutil.rmtree(r / "_build" / "html"), "no built site"),
        (lambda r: (r / "src" / "token_selection" / "_version.py").write_text('__version__ = "2.3"\n'), "is not X.Y.Z"),
    ],
)
def test_release_check_names_what_is_missing(release_tree, breakage, message):
    breakage(release_tree)
    assert any(message in problem for problem in release_check.problems(release_tree, installed=None))


def test_release_check_compares_the_installed_version(release_tree):
    assert release_check.problems(release_tree, installed="2.3.3") == [
        "the installed package says 2.3.3, src/token_selection/_version.py says 2.3.4 (reinstall: make install)"
    ]
