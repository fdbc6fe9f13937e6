"""One meaning per symbol: the collisions the Notation page resolved do not come back in a chapter's Markdown.

Each pattern below is a collision that ``book/notation.md`` removed (its table gives the symbol
each meaning now has). The test reads the Markdown cells of every chapter (code cells may keep
their variable names) and names the chapter, the pattern and the text around each hit.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))

# name -> (regex over a chapter's Markdown, the symbol to use instead)
COLLISIONS = {
    # d_{ji}, d_{j i}, d_{ji}^{...}: the constraint vectors (d is the dimension)
    "constraint vector d_ji": (
        re.compile(r"(?<![A-Za-z\\])d_\{\s*j\s*,?\s*i\s*\}"),
        "a_{ji}",
    ),
    # \gamma_{ji}, \gamma_{j i}, \gamma_{j,i}: the value gap (gamma is the margin)
    "value gap gamma_ji": (
        re.compile(r"\\gamma_\{?\s*j\s*,?\s*i\b"),
        "\\kappa_{ji}",
    ),
    # r = \eta/\eta^*, r = \eta / \eta^{\star}, and the alignment law r/\sqrt{1+r^2} in it:
    # the step multiple (r is the relevant token)
    "step multiple r = eta/eta*": (
        re.compile(
            r"(?<![A-Za-z\\])r\s*=\s*\\eta\s*/\s*\\eta\^\{?(?:\*|\\star)\}?"
            r"|(?<![A-Za-z\\])r\s*/\s*\\sqrt\{\s*1\s*\+\s*r\^2\s*\}|\\frac\{r\}\{\\sqrt\{1\s*\+\s*r\^2\}\}"
        ),
        "\\tau = \\eta/\\eta^*",
    ),
    # "score(s) $s_i$", "s_i = p \cdot E": an attention score named s (s is a token)
    "score s_i": (
        re.compile(
            r"scores?\s+\$s_\{?i\}?|(?<![A-Za-z\\])s_\{?i\}?\s*=\s*p\s*\\cdot"
        ),
        "z_i = p \\cdot E_{x_i}",
    ),
    # x_s for the posterior gap (x_i is a token id)
    "posterior gap x_s": (
        re.compile(
            r"posterior gap[^.$]{0,40}\$x_\{?s\}?|(?<![A-Za-z\\])x_\{?s\}?\s*=\s*P\("
        ),
        "\\omega_s",
    ),
    # Zipf rank r: "rank $r$", "\log r", "r^{-a}" next to Zipf
    "Zipf rank r": (
        re.compile(
            r"rank\s+\$r\$|Zipf[^.]{0,80}\$r\$|\\log\s+r\b|(?<![A-Za-z\\])r\^\{?-"
        ),
        "k",
    ),
}


def markdown(path: Path) -> str:
    cells = json.loads(path.read_text())["cells"]
    return "\n\n".join(
        "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
    )


def hits(name: str, text: str) -> list[str]:
    pattern = COLLISIONS[name][0]
    return [
        text[max(0, m.start() - 40) : m.end() + 20].replace("\n", " ")
        for m in pattern.finditer(text)
    ]


@pytest.mark.parametrize("name", sorted(COLLISIONS))
@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_no_listed_collision_comes_back(path, name):
    found = hits(name, markdown(path))
    assert not found, (
        f"{path.name}: {name} (write {COLLISIONS[name][1]}): "
        + " | ".join(found[:5])
    )


@pytest.mark.parametrize(
    ("name", "text", "hit"),
    [
        (
            "constraint vector d_ji",
            "vectors $d_{ji} = E_{r_j} - E_x$",
            True,
        ),
        (
            "constraint vector d_ji",
            "$a_{ji}$ in dimension $d$, $d_{\\mathrm{eff}}$",
            False,
        ),
        ("value gap gamma_ji", "gap $\\gamma_{ji} = y_j(u_r - u_x)$", True),
        (
            "value gap gamma_ji",
            "margin $\\gamma = 1/\\|p\\|$, $\\kappa_{ji}$",
            False,
        ),
        (
            "step multiple r = eta/eta*",
            "with $r = \\eta / \\eta^*$ and",
            True,
        ),
        (
            "step multiple r = eta/eta*",
            "with $r = \\eta/\\eta^\\star = 15$",
            True,
        ),
        ("step multiple r = eta/eta*", "follows $r/\\sqrt{1+r^2}$", True),
        (
            "step multiple r = eta/eta*",
            "with $\\tau = \\eta/\\eta^*$, $\\tau/\\sqrt{1+\\tau^2}$",
            False,
        ),
        ("score s_i", "the score $s_i$ of position", True),
        ("score s_i", "$s_i = p \\cdot E_{x_i}$", True),
        ("score s_i", "the score $z_i$ of token $s$, $E_s$", False),
        ("posterior gap x_s", "the posterior gap $x_s$ of", True),
        ("posterior gap x_s", "$x_s = P(1 \\mid s)$", True),
        ("posterior gap x_s", "token ids $x_i$, gap $\\omega_s$", False),
        ("Zipf rank r", "the token of rank $r$ has", True),
        ("Zipf rank r", "slope of $\\log(count)$ on $\\log r$", True),
        (
            "Zipf rank r",
            "the relevant token $r$ and $r_j$, rank $k$",
            False,
        ),
    ],
)
def test_the_patterns_on_their_boundary(name, text, hit):
    assert bool(hits(name, text)) is hit
