"""One name for the paper's global statement: "the global claim" (the paper's Theorem 4.3), on every page.

The paper's one global statement (as the authors' rebuttal to reviewer q6jg, W3, describes their Theorem 4.3:
from a random start after one step, every limit of gradient flow on p selects all relevant tokens) used to be
the course's auto-numbered "Theorem 1" in chapter 4, "Theorem 3" in chapter 5 and "Theorem 4" in chapter 10.
The checks read the Markdown cells of every chapter and the pages in ``book/``:

* no other name for it (``VARIANTS``): "global reading", "global theorem", "Claim 4.3", a bare "Theorem 4.3"
  (write "the paper's Theorem 4.3"), or a typed theorem number (the book numbers the course's own theorems);
* every proof-directive block that states or restates it (mentions "Theorem 4.3" or "the global claim") is
  unnumbered (``:nonumber:``), and one whose title names Theorem 4.3 is titled "The global claim ...";
* every cross-reference to such a block names it: ``{prf:ref}`the global claim <label>``` (a bare reference
  to an unnumbered block prints only "Theorem");
* a page that mentions the paper's Theorem 4.3 also uses the name.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PAGES = sorted((ROOT / "book").glob("*.md"))
NAME = re.compile(r"global claim", re.IGNORECASE)

# name -> (pattern, what to write instead)
VARIANTS = {
    "another 'global ...' name": (
        re.compile(
            r"global\s+(?:reading|theorem|statement|part|result|selection\s+claim)",
            re.IGNORECASE,
        ),
        "the global claim",
    ),
    "Claim 4.3": (
        re.compile(r"\bClaim\s+4\.3"),
        "the global claim (the paper's Theorem 4.3)",
    ),
    "a bare Theorem 4.3": (
        re.compile(r"(?<!paper's )(?<!paper’s )\bTheorem\s+4\.3"),
        "the paper's Theorem 4.3",
    ),
    "a typed theorem number": (
        re.compile(r"\bTheorems?\s+\d+\b(?!\.\d)"),
        "a {prf:ref} (the book numbers the course's theorems), or the global claim",
    ),
}

BLOCK = re.compile(
    r"^(?P<fence>`{3,})\{prf:(?P<kind>[a-z]+)\}[ \t]*(?P<title>[^\n]*)\n(?P<body>.*?)^(?P=fence)[ \t]*$",
    re.MULTILINE | re.DOTALL,
)
OPTION = re.compile(
    r"^:(?P<key>[a-z-]+):[ \t]*(?P<value>[^\n]*)$", re.MULTILINE
)
REF = re.compile(r"\{prf:ref\}`(?P<inner>[^`]*)`")
STATES_IT = re.compile(r"Theorem\s+4\.3|global claim", re.IGNORECASE)


def markdown(path: Path) -> str:
    if path.suffix == ".md":
        return path.read_text()
    cells = json.loads(path.read_text())["cells"]
    return "\n\n".join(
        "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
    )


def variants(text: str) -> list[str]:
    """Each use of another name: the variant, what to write, and the text around it."""
    return [
        f"{name} (write {instead}): ...{text[max(0, m.start() - 40) : m.end() + 30]}...".replace(
            "\n", " "
        )
        for name, (pattern, instead) in VARIANTS.items()
        for m in pattern.finditer(text)
    ]


def claim_blocks(text: str) -> list[dict]:
    """The proof-directive blocks that state or restate the global claim: kind, title, options, label."""
    found = []
    for block in BLOCK.finditer(text):
        if not STATES_IT.search(
            block.group("title") + "\n" + block.group("body")
        ):
            continue
        options = {
            m.group("key"): m.group("value")
            for m in OPTION.finditer(block.group("body"))
        }
        found.append(
            {
                "kind": block.group("kind"),
                "title": block.group("title").strip(),
                "options": options,
                "label": options.get("label"),
            }
        )
    return found


def block_problems(text: str) -> list[str]:
    problems = []
    for block in claim_blocks(text):
        if "nonumber" not in block["options"]:
            problems.append(
                f"{{prf:{block['kind']}}} {block['title']!r} states the global claim but is numbered: add :nonumber:"
            )
        if re.search(r"Theorem\s+4\.3", block["title"]) and not block[
            "title"
        ].lower().startswith("the global claim"):
            problems.append(
                f"{{prf:{block['kind']}}} {block['title']!r}: its title should start 'The global claim'"
            )
    return problems


def named_labels(texts: list[str]) -> set[str]:
    """Labels of the blocks titled 'The global claim ...' on any page."""
    return {
        block["label"]
        for text in texts
        for block in claim_blocks(text)
        if block["label"]
        and block["title"].lower().startswith("the global claim")
    }


def reference_problems(text: str, labels: set[str]) -> list[str]:
    problems = []
    for ref in REF.finditer(text):
        inner = ref.group("inner")
        explicit = re.fullmatch(
            r"(?P<words>.*\S)\s*<(?P<label>[^<>]+)>", inner, re.DOTALL
        )
        label = (
            explicit.group("label").strip() if explicit else inner.strip()
        )
        if label not in labels:
            continue
        before = text[max(0, ref.start() - 80) : ref.start()]
        if not explicit:
            problems.append(
                f"bare reference {ref.group(0)}: write {{prf:ref}}`the global claim <{label}>`"
            )
        elif not (
            NAME.search(explicit.group("words")) or NAME.search(before)
        ):
            problems.append(
                f"reference {ref.group(0)} does not name the global claim"
            )
    return problems


def problems(text: str, labels: set[str]) -> list[str]:
    found = (
        variants(text)
        + block_problems(text)
        + reference_problems(text, labels)
    )
    if re.search(r"Theorem\s+4\.3", text) and not NAME.search(text):
        found.append(
            "mentions the paper's Theorem 4.3 but never calls it the global claim"
        )
    return found


ALL = CHAPTERS + PAGES


@pytest.mark.parametrize("path", ALL, ids=[p.stem for p in ALL])
def test_the_global_claim_has_one_name(path):
    labels = named_labels([markdown(p) for p in ALL])
    found = problems(markdown(path), labels)
    assert not found, f"{path.name}:\n" + "\n".join(found)


def test_the_book_states_the_global_claim_in_chapter_4():
    labels = named_labels([markdown(p) for p in ALL])
    assert "ch4-thm-abstract" in labels, (
        "chapter 4's statement of the paper's claim should be titled 'The global claim'"
    )


OLD = {
    # the texts the learner read on 2026-11-28, each of which must fail
    "ch04 theorem block": (
        "```{prf:theorem} Trained p selects the important tokens (the paper's Theorem 4.3, as our sources describe it)\n"
        ":label: ch4-thm-abstract\n\nFix $v$ ... This is global.\n```"
    ),
    "ch04 global part": (
        "and 3. The rebuttal's global part of Theorem 4.3 ({prf:ref}`ch4-thm-abstract`) is hypothesis 3, selection"
    ),
    "ch04 margin": "*[discussion: authors' rebuttal to q6jg, W3]* The global reading, Assumption 1 and the contrast",
    "ch04b ending": "They do contradict the global reading of the theorem, which excludes every limit",
    "ch04b margin": "*[discussion]* Theorem 4.3 as a global statement that excludes every direction",
    "ch05 box": "```{prf:theorem} What the sources say panels 2 and 3 should show\n:label: ch5-thm-panels\n\n"
    "Under Assumption 1, the global claim (the paper's Theorem 4.3) says that p ...\n```",
    "ch10 summary": "The global theorem ({prf:ref}`ch10-thm-global`) excludes every such miss",
    "ch10 bare reference": "the protocol of {prf:ref}`ch10-thm-global`, with a start of our choosing",
    "a typed number": "The paper's claim is the course's Theorem 1, and Theorem 2 assumes it.",
    "the learner's proposal": "Call the paper's claim Claim 4.3 (paper) once in ch04.",
}
NEW = {
    "ch04 theorem block": (
        "```{prf:theorem} The global claim: trained p selects the important tokens (the paper's Theorem 4.3)\n"
        ":label: ch4-thm-abstract\n:nonumber:\n\nFix $v$ ... This is global.\n```"
    ),
    "a named reference": "{prf:ref}`The global claim <ch4-thm-abstract>` supplies hypothesis 3, selection",
    "a reference after the name": "This is the global claim of {prf:ref}`chapter 4 <ch4-thm-abstract>`, stated here",
    "the limit theorem": "The failures are not counterexamples to the limit theorem, {prf:ref}`ch4-thm-limit`:",
    "the global question": "They are the global question of chapter 10, and the global claim (the paper's Theorem 4.3).",
}


@pytest.mark.parametrize("name", sorted(OLD))
def test_the_old_names_fail(name):
    assert problems(OLD[name], {"ch4-thm-abstract", "ch10-thm-global"}), (
        f"{name} should be caught"
    )


@pytest.mark.parametrize("name", sorted(NEW))
def test_the_name_passes(name):
    assert (
        problems(NEW[name], {"ch4-thm-abstract", "ch10-thm-global"}) == []
    )
