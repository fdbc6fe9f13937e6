"""Every claim tag in the chapters and pages is one of the five, and every claim given to the sources cites them.

The five tags (``[abstract]``, ``[discussion]``, ``[inferred]``, ``[derived]``, ``[ours]``) say where a claim
comes from. A claim tagged ``[abstract]`` names the abstract; one tagged ``[discussion]`` names the passage
of the OpenReview discussion it paraphrases: a reviewer (q6jg, vwUg, E1M4, or the first review, which
carries no id) or the decision. The citation stands in the tag itself or in the tagged paragraph (or,
inside a directive such as a theorem box, anywhere in the box).
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from token_selection.sources import SOURCE_TAGS as TAGS

ROOT = Path(__file__).resolve().parent.parent
TAG = re.compile(r"\[(?P<name>[a-z][a-z ]*?)(?P<rest>(?:[,:][^\]]*)?)\]")
CITES = {
    "abstract": re.compile(r"abstract", re.IGNORECASE),
    "discussion": re.compile(
        r"q6jg|vwUg|E1M4|first review|review 1|reviewer 1|decision",
        re.IGNORECASE,
    ),
}
ITALIC_TAG = re.compile(r"\*\[(?P<name>[^\]]*)\]\*")
PAPER_TITLE = re.compile(r"^```\{[\w:-]+\}.*\(paper\b.*$", re.MULTILINE)
"""A block titled "(paper ...)": the old tag, in a title; the title names the source instead."""


def pages() -> list[tuple[str, str]]:
    """(name, Markdown text) of every chapter notebook's Markdown cells and every book page."""
    found = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        found.append(
            (
                path.name,
                "\n\n".join(
                    c.source
                    for c in notebook.cells
                    if c.cell_type == "markdown"
                ),
            )
        )
    for path in sorted((ROOT / "book").glob("*.md")):
        found.append((f"book/{path.name}", path.read_text()))
    return found


def scope(text: str, start: int) -> str:
    """The paragraph around ``start``; inside a fenced directive, the whole directive."""
    begin = text.rfind("\n\n", 0, start) + 1
    end = text.find("\n\n", start)
    end = len(text) if end < 0 else end
    fence_open = text.rfind("```{", 0, start)
    if (
        fence_open >= 0 and text.count("\n```", fence_open, start) == 0
    ):  # the tag sits in an open directive
        close = text.find("\n```", start)
        begin, end = (
            min(begin, fence_open),
            max(end, len(text) if close < 0 else close),
        )
    return text[begin:end]


def problems(text: str) -> list[str]:
    """What is wrong with the tags of ``text``: unknown tags and uncited source claims."""
    found = [
        f"old tag in a title {match.group(0)!r}: name the source instead"
        for match in PAPER_TITLE.finditer(text)
    ]
    for match in ITALIC_TAG.finditer(text):
        first = re.split(r"[,:]", match.group("name"))[0].strip()
        if first not in TAGS:
            found.append(f"unknown tag {match.group(0)!r}")
    for match in TAG.finditer(text):
        name = match.group("name").strip()
        if name == "paper" or name.startswith("paper "):
            found.append(f"old tag {match.group(0)!r}: use one of {TAGS}")
        if name not in CITES:
            continue
        window = match.group("rest") + TAG.sub(
            " ", scope(text, match.start())
        )  # the tags themselves cite nothing
        if not CITES[name].search(window):
            excerpt = " ".join(
                text[match.start() : match.end() + 120].split()
            )
            found.append(
                f"[{name}] claim without its source passage: {excerpt!r}"
            )
    return found


@pytest.mark.parametrize(
    "name, text", pages(), ids=[name for name, _ in pages()]
)
def test_claim_tags_are_known_and_cited(name, text):
    found = problems(text)
    assert not found, f"{name}:\n" + "\n".join(found)


def test_the_checker_rejects_uncited_and_unknown_tags():
    assert problems(
        "*[discussion]* The authors say it works.\n\nNext paragraph names reviewer q6jg."
    )
    assert problems("*[abstract]* One step aligns the embeddings.")
    assert problems("*[paper]* Theorem 4.3 holds.")
    assert problems("*[guess]* Probably so.")
    assert problems(
        "```{prf:theorem} Selection (paper)\n*[ours]* A choice.\n```"
    )
    assert not problems(
        "*[discussion]* The authors say so (rebuttal to reviewer q6jg, W1)."
    )
    assert not problems(
        "*[abstract]* One step aligns the embeddings (source: the abstract)."
    )
    assert not problems(
        "```{prf:theorem} T\n*[discussion]* A claim.\n\nMore of the box, citing reviewer vwUg.\n```"
    )
