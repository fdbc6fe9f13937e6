"""What a reader sees when a built page opens, and how much of it is about the course's machinery.

Two layers: the *reading path* is what shows when a page of the built book opens; the audit
trail is folded beside it. :func:`reading_path` reads a page's HTML (stdlib ``html.parser``)
and keeps only the reading path of its ``<article>``. Left out, as folded or beside the text:

- every ``<details>`` element: collapsed cell inputs (``hide-input``, ``hide-cell``) and
  dropdowns (``{dropdown}``, sphinx-design), "How this page checks itself" among them;
- margin and side notes (``<aside>``, elements of class ``margin``, ``sidebar``, ``sidenote``,
  ``marginnote``) and toggled content (class ``dropdown``, ``toggle-hidden``: exercise solutions);
- scripts, styles and the page's chrome outside ``<article>``.

It returns the visible prose (typeset mathematics replaced by ``x``, code and cell outputs
left out) and the visible code (every ``<pre>`` still shown).

:func:`is_machinery` is the sentence classifier. A sentence is about the machinery when one of
:data:`MACHINERY` matches it, in three families:

- **provenance**: claim tags (``[abstract]`` ...), reviewer ids and the rebuttal, "our sources";
- **checks**: asserts, tests, checks, tolerances, standard errors, "has teeth", nbval;
- **infrastructure**: records, scales (``fast``/``full``), caches, grids, sha256, CI, scripts.

:func:`machinery_share` is the share of such sentences among the reading path's sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser

from .sources import SOURCE_TAGS

HIDDEN_TAGS = frozenset({"details", "aside", "script", "style", "template", "noscript"})
HIDDEN_CLASSES = frozenset({"margin", "sidebar", "sidenote", "marginnote", "dropdown", "toggle-hidden"})
PROSE_SKIP_CLASSES = frozenset({"math", "cell_output", "output"})
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"})
BLOCKS = frozenset({"p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "td", "th", "dt", "dd", "section", "table", "tr"})

MACHINERY: dict[str, re.Pattern[str]] = {
    "provenance": re.compile(
        r"\[(?:" + "|".join(SOURCE_TAGS) + r")\]|\b(?:q6jg|vwUg|E1M4)\b|\breviewers?\b|\brebuttal\b"
        r"|\bauthors' reply\b|\bOpenReview\b|\bour sources\b|\bthe sources\b|\bprovenance\b",
        re.IGNORECASE,
    ),
    "checks": re.compile(
        r"\bassert(?:s|ed|ion|ions)?\b|\btests?\b|\btested\b|\bchecks?\b|\bchecked\b|\btolerances?\b"
        r"|\bstandard errors?\b|\bhas teeth\b|\bnbval\b|\bwide margin\b",
        re.IGNORECASE,
    ),
    "infrastructure": re.compile(
        r"\brecords?\b|\brecorded\b|`?\b(?:fast|full)`? scale\b|\bscale `?(?:fast|full)\b|\bcach(?:e|es|ed)\b"
        r"|\bgrid\.json\b|\bsha256\b|\bCI\b|\bscripts/|\bmake \w+|\bTOKEN_SELECTION_\w+|\bjson\b",
        re.IGNORECASE,
    ),
}


@dataclass(frozen=True)
class ReadingPath:
    """The visible layer of a page: its prose (for sentences) and its code (for assert lines)."""

    prose: str
    code: str


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, bool, bool, bool]] = []  # tag, hidden, not prose, code
        self.in_article = 0
        self.prose: list[str] = []
        self.code: list[str] = []

    def _state(self) -> tuple[bool, bool, bool]:
        if not self.stack:
            return False, False, False
        return self.stack[-1][1], self.stack[-1][2], self.stack[-1][3]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            if tag == "br":
                self.prose.append("\n")
            return
        classes = set((dict(attrs).get("class") or "").split())
        hidden, not_prose, code = self._state()
        if tag == "article":
            self.in_article += 1
        hidden = hidden or tag in HIDDEN_TAGS or bool(classes & HIDDEN_CLASSES)
        code = code or tag == "pre"
        not_prose = not_prose or code or bool(classes & PROSE_SKIP_CLASSES) or tag in ("code", "mjx-container")
        if tag in ("mjx-container",) or "math" in classes:
            if not hidden and self.in_article and not code:
                self.prose.append(" x ")
        self.stack.append((tag, hidden, not_prose, code))
        if tag in BLOCKS:
            self.prose.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        while self.stack:
            top = self.stack.pop()[0]
            if top == "article":
                self.in_article -= 1
            if top == tag:
                break
        if tag in BLOCKS:
            self.prose.append("\n")

    def handle_data(self, data: str) -> None:
        hidden, not_prose, code = self._state()
        if hidden or not self.in_article:
            return
        if code:
            self.code.append(data)
        elif not not_prose:
            self.prose.append(data)


def reading_path(html: str) -> ReadingPath:
    """The reading path of a built page's ``<article>`` (module docstring): visible prose and code."""
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return ReadingPath(prose="".join(reader.prose), code="".join(reader.code))


def assert_lines(code: str) -> list[str]:
    """The lines of ``code`` that are assert statements (``assert`` as the line's first word)."""
    return [line.strip() for line in code.split("\n") if re.match(r"\s*assert\b", line)]


_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[A-Z(\"'*`$])|\n\s*\n|\n(?=\s*[-•*]\s)")


def sentences(prose: str) -> list[str]:
    """The sentences of ``prose``: split at a full stop before a capital and at paragraph breaks.

    Fragments of fewer than four words (headings, labels, "x" left by mathematics) are left out.
    """
    parts = []
    for block in re.split(r"\n\s*\n", prose):
        block = " ".join(block.split())
        parts += [p.strip() for p in _SENTENCE_END.split(block) if p and p.strip()]
    return [p for p in parts if len(p.split()) >= 4]


def machinery_kind(sentence: str) -> str | None:
    """The first family of :data:`MACHINERY` that matches ``sentence``, or None (it teaches)."""
    return next((kind for kind, pattern in MACHINERY.items() if pattern.search(sentence)), None)


def is_machinery(sentence: str) -> bool:
    """Whether ``sentence`` is about the course's machinery (module docstring)."""
    return machinery_kind(sentence) is not None


def machinery_share(prose: str) -> tuple[float, int, int]:
    """(share, machinery sentences, all sentences) of ``prose``; share 0.0 when there are none."""
    found = sentences(prose)
    machinery = sum(map(is_machinery, found))
    return (machinery / len(found) if found else 0.0), machinery, len(found)
