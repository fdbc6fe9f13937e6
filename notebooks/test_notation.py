"""One meaning per symbol: the collisions the Notation page resolved do not come back in the book's Markdown.

Two checks read the Markdown cells of every chapter (code cells may keep their variable names) and the
pages in ``book/``:

* ``COLLISIONS``: each pattern is a use of a symbol that ``book/notation.md`` gave to something else (its
  table gives the symbol each meaning now has). A hit names the page, the pattern and the text around it.
* every symbol that two pages or more use in their mathematics is listed in the Notation page's table, or
  is one of the few index and operator letters of ``GENERIC``, or is local to one proof of ``LOCAL``.

A third reads the two bars of its table (the direction bar, the selection bar) against the package's constants.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "notebooks").glob("*.ipynb"))
PAGES = sorted((ROOT / "book").glob("*.md"))
NOTATION = ROOT / "book" / "notation.md"

# name -> (regex, the symbol to use instead, where it applies: "text" or "math")
COLLISIONS = {
    # d_{ji}, d_{j i}, d_{ji}^{...}: the constraint vectors (d is the dimension)
    "constraint vector d_ji": (
        re.compile(r"(?<![A-Za-z\\])d_\{\s*j\s*,?\s*i\s*\}"),
        "a_{ji}",
        "text",
    ),
    # \gamma_{ji}, \gamma_{j i}, \gamma_{j,i}: the value gap (gamma is the margin)
    "value gap gamma_ji": (
        re.compile(r"\\gamma_\{?\s*j\s*,?\s*i\b"),
        "\\kappa_{ji}",
        "text",
    ),
    # r = \eta/\eta^*, r = \eta / \eta^{\star}, and the alignment law r/\sqrt{1+r^2} in it:
    # the step multiple (r is the relevant token)
    "step multiple r = eta/eta*": (
        re.compile(
            r"(?<![A-Za-z\\])r\s*=\s*\\eta\s*/\s*\\eta\^\{?(?:\*|\\star)\}?"
            r"|(?<![A-Za-z\\])r\s*/\s*\\sqrt\{\s*1\s*\+\s*r\^2\s*\}|\\frac\{r\}\{\\sqrt\{1\s*\+\s*r\^2\}\}"
        ),
        "\\tau = \\eta/\\eta^*",
        "text",
    ),
    # "score(s) $s_i$", "s_i = p \cdot E": an attention score named s (s is a token)
    "score s_i": (
        re.compile(
            r"scores?\s+\$s_\{?i\}?|(?<![A-Za-z\\])s_\{?i\}?\s*=\s*p\s*\\cdot"
        ),
        "z_i = p \\cdot E_{x_i}",
        "text",
    ),
    # x_s for the posterior gap (x_i is a token id)
    "posterior gap x_s": (
        re.compile(
            r"posterior gap[^.$]{0,40}\$x_\{?s\}?|(?<![A-Za-z\\])x_\{?s\}?\s*=\s*P\("
        ),
        "\\omega_s",
        "text",
    ),
    # Zipf rank r: "rank $r$", "\log r", "r^{-a}" next to Zipf
    "Zipf rank r": (
        re.compile(
            r"rank\s+\$r\$|Zipf[^.]{0,80}\$r\$|\\log\s+r\b|(?<![A-Za-z\\])r\^\{?-"
        ),
        "k",
        "text",
    ),
    # m is the number of relevant tokens per class: not a maximum, a minimum or a sum index
    "m as a max, min or index": (
        re.compile(
            r"(?<![A-Za-z\\])m\s*=\s*\\(?:max|min)_|\\sum_\{?m(?![A-Za-z])"
            r"|(?<![A-Za-z\\])z_m(?![A-Za-z])|e\^\{c\s*m\}"
        ),
        "z^\\star for a top score, a proof's own letter for a minimum, l for an index",
        "math",
    ),
    # delta is the data's relevant-token rate: not Kronecker's delta, not a gap in a proof
    "delta as Kronecker or a gap": (
        re.compile(
            r"\\delta_\{?[a-z]|\\cdot\s*a_\{[a-z]+\}\s*\\ge\s*[^$]{0,20}\\delta"
            r"|\\ge\s*\\delta(?![A-Za-z])"
        ),
        "\\mathbb 1\\{k = i\\} for Kronecker's delta, another letter for a gap",
        "math",
    ),
    # pi is a Zipf probability: not a class probability, not a share of the labels
    "pi as a class probability or label share": (
        re.compile(
            r"\\pi_\{?j|2\\pi\s*-\s*1|share\s+\$\\pi\$|\\log\s*\\pi"
        ),
        "P_{jk} for a class probability, P(1) for the share of positive sequences",
        "text",
    ),
    # w is only a sample weight w_j (and the w of alpha^w): not an output vector, a weight vector,
    # a regression weight or an unnormalised attention weight
    "w other than the sample weights w_j": (
        re.compile(
            r"(?<![A-Za-z\\^{])w(?!_j(?![A-Za-z0-9{])|_\{j\})(?![A-Za-z])"
        ),
        "v_k for an output vector, theta for a generic weight vector, tilde q for an "
        "unnormalised attention weight",
        "math",
    ),
    # a is only a constraint vector a_{ji} (a_k in the prerequisites)
    "a other than a constraint vector": (
        re.compile(
            r"(?<![A-Za-z\\])a(?!_\{[jk][a-z]\}|_k(?![A-Za-z0-9]))(?![A-Za-z])"
        ),
        "phi/psi for the accumulators, z_r/z_x for score levels, r_A/r_B for tokens",
        "math",
    ),
    # b as an accumulator, a token or a bin (b_s, E_b, n_b, u_b)
    "b as an accumulator, token or bin": (
        re.compile(
            r"(?<![A-Za-z\\])b_\{?[a-z]|E_b(?![A-Za-z])|E_\{b\}|(?<![A-Za-z\\])[nu]_b(?![A-Za-z])"
        ),
        "psi_s for the accumulator, r_B for a token, l for a bin",
        "math",
    ),
    # c is only a count: c_{js} and c_s (also c_{jr_j}); not a scale, a component or a query
    "c other than a count": (
        re.compile(
            r"(?<![A-Za-z\\])c(?!_\{j|_s(?![A-Za-z0-9])|_\{s\})(?![A-Za-z])"
        ),
        "rho for the scale of p, p . v-hat for its component along v, p + h for a query",
        "math",
    ),
    # K is only the number of classes: not relevant positions K_j, not a number of pairs
    "K as positions or pairs": (
        re.compile(
            r"(?<![A-Za-z\\_{])K_\{?j\b|\\ln\s*\(?\s*2?\s*K\b|(?<![A-Za-z\\_{])K\s*e\^"
        ),
        "n^{rel}_j for relevant positions, N_{pairs} for pairs",
        "math",
    ),
    # s is only a token: not a signal s_0, not a score in a derivative
    "s as a signal or a score": (
        re.compile(r"(?<![A-Za-z\\])s_0|\\partial\s*s_"),
        "u_{sig} for a signal, z for a score",
        "math",
    ),
    # gamma is only the margin; z is only a score
    "gamma as a gap, z as noise": (
        re.compile(r"gap\s+\$\\gamma|noise\s+\$z_"),
        "Delta for a score gap, u_s(0) for the initial value",
        "text",
    ),
}

# Letters that many pages use as indices or operators, not as quantities: the Notation page names them
# in its line on indices.
GENERIC = {
    "i": "a position",
    "j": "a sequence",
    "k": "an index (a position in a sum, a class, a Zipf rank)",
    "l": "a second index",
    "O": "big-O",
    "e": "Euler's number, and unit vectors e_1, e_s",
    "x": "a token: x_i the token id at position i, a bare x a token other than the relevant one",
    "t": "time (a step of training)",
}

MATH = re.compile(r"\$\$.*?\$\$|\$[^$]+?\$", re.S)
CODE = re.compile(r"`[^`\n]*`")
STRIP = re.compile(
    r"\\(?:mathrm|text|operatorname|label|textbf|mathbf)\s*\{[^{}]*\}"
    r"|\\(?:mathbb|mathcal)\s*\{?[A-Za-z]\}?"
    r"|[_^]\{[^{}]*\}|[_^][A-Za-z0-9]"
)
GREEK = set(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta kappa lambda mu nu xi "
    "pi rho sigma tau phi varphi psi chi omega Gamma Delta Theta Lambda Xi Pi Sigma "
    "Phi Psi Omega".split()
)
TOKEN = re.compile(r"\\[A-Za-z]+|(?<![A-Za-z\\])[A-Za-z](?![A-Za-z])")


def markdown(path: Path) -> str:
    if path.suffix == ".md":
        return path.read_text()
    cells = json.loads(path.read_text())["cells"]
    return "\n\n".join(
        "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
    )


def maths(text: str) -> list[str]:
    return [m.group() for m in MATH.finditer(CODE.sub(" ", text))]


def hits(name: str, text: str) -> list[str]:
    pattern, _, scope = COLLISIONS[name]
    pieces = [text] if scope == "text" else maths(text)
    return [
        piece[max(0, m.start() - 40) : m.end() + 20].replace("\n", " ")
        for piece in pieces
        for m in pattern.finditer(piece)
    ]


def symbols(text: str) -> set[str]:
    """Greek letters and single Latin letters used as quantities (not sub- or superscripts)."""
    found = set()
    for piece in maths(text):
        stripped = None
        while stripped != piece:  # nested subscripts such as E_{x_{ji}}
            stripped, piece = piece, STRIP.sub(" ", piece)
        for token in TOKEN.findall(piece):
            if not token.startswith("\\") or token[1:] in GREEK:
                found.add(token)
    return found


def notation_table() -> str:
    rows = [
        line.split("|")[1]
        for line in NOTATION.read_text().splitlines()
        if line.startswith("| ") and not line.startswith("| symbol")
    ]
    return "\n".join(rows)


@pytest.mark.parametrize("name", sorted(COLLISIONS))
@pytest.mark.parametrize(
    "path", CHAPTERS + PAGES, ids=[p.stem for p in CHAPTERS + PAGES]
)
def test_no_listed_collision_comes_back(path, name):
    found = hits(name, markdown(path))
    assert not found, (
        f"{path.name}: {name} (write {COLLISIONS[name][1]}): "
        + " | ".join(found[:5])
    )


def test_every_shared_symbol_is_on_the_notation_page():
    pages = defaultdict(set)
    for path in CHAPTERS + PAGES:
        if path != NOTATION:
            for symbol in symbols(markdown(path)):
                pages[symbol].add(path.stem)
    listed = symbols(notation_table())
    missing = {
        s: sorted(p)
        for s, p in pages.items()
        if len(p) >= 2 and s not in listed and s not in GENERIC
    }
    assert not missing, (
        f"used on two pages or more, not on the Notation page: {missing}"
    )


def test_the_notation_page_names_its_generic_letters():
    text = NOTATION.read_text()
    for letter in GENERIC:
        assert f"${letter}$" in text, (
            f"the Notation page should say what ${letter}$ is"
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
        # the collisions a cold reader found: m, delta, pi, w, a/b, c (and K, s, gamma, z)
        (
            "m as a max, min or index",
            "Let $m = \\max_i \\hat p\\cdot E_{x_i}$",
            True,
        ),
        (
            "m as a max, min or index",
            "Let $m = \\min_{j,i}\\bar p\\cdot a_{ji}$",
            True,
        ),
        ("m as a max, min or index", "$Z = \\sum_m e^{z_m}$", True),
        (
            "m as a max, min or index",
            "$m$ relevant tokens, ids $0, \\dots, m-1$, $\\sum_{s < m}$, $m = \\max(1, V)$",
            False,
        ),
        ("delta as Kronecker or a gap", "$q_k(\\delta_{ki} - q_i)$", True),
        (
            "delta as Kronecker or a gap",
            "with $\\bar p\\cdot a_{ji} \\ge m + \\delta$",
            True,
        ),
        (
            "delta as Kronecker or a gap",
            "at $\\delta = 0$, $T\\delta + (1-\\delta)^T$, $\\tilde\\delta$, for $\\delta > 0$",
            False,
        ),
        (
            "pi as a class probability or label share",
            "$\\pi_{jk} = \\frac1K$",
            True,
        ),
        (
            "pi as a class probability or label share",
            "$\\pi_j = \\operatorname{softmax}$",
            True,
        ),
        (
            "pi as a class probability or label share",
            "rate, $2\\pi - 1 =$ 0.2",
            True,
        ),
        (
            "pi as a class probability or label share",
            "a positive share $\\pi$ (their",
            True,
        ),
        (
            "pi as a class probability or label share",
            "probability $\\pi_k \\propto 1/k$, $\\pi_{20}$, $\\pi_s/(2T)$",
            False,
        ),
        (
            "w other than the sample weights w_j",
            "output vectors $w_0, \\dots, w_{K-1}$",
            True,
        ),
        (
            "w other than the sample weights w_j",
            "the direction $w/\\|w\\|$",
            True,
        ),
        (
            "w other than the sample weights w_j",
            "$p = a\\,v + w$ with $w \\perp v$",
            True,
        ),
        ("w other than the sample weights w_j", "$w_{ji}(t) \\to 0$", True),
        (
            "w other than the sample weights w_j",
            "$w_t = e^{p\\cdot E_t}$",
            True,
        ),
        (
            "w other than the sample weights w_j",
            "$w_j = 2 g_j$, $\\alpha^{w}_s$, $\\alpha^w_s$, $\\sum_j w_j\\, y_j$, $W_{KQ}$",
            False,
        ),
        (
            "a other than a constraint vector",
            "$\\nabla_E L = a\\, p^\\top + b\\, v^\\top$",
            True,
        ),
        ("a other than a constraint vector", "one score $a$ and", True),
        (
            "a other than a constraint vector",
            "relevant token $a$) also",
            True,
        ),
        (
            "a other than a constraint vector",
            "picks one token $a_j$ in",
            True,
        ),
        (
            "a other than a constraint vector",
            "$a_{ji} = E_{r_j} - E_{x_{ji}}$, $a_{kl}$, $a_k\\cdot p \\ge 1$, $\\mathrm{acc}$",
            False,
        ),
        ("b as an accumulator, token or bin", "$b_s = -\\frac1n$", True),
        (
            "b as an accumulator, token or bin",
            "$p\\cdot(E_a - E_b) \\ge 1$",
            True,
        ),
        (
            "b as an accumulator, token or bin",
            "bins with $n_b$ tokens",
            True,
        ),
        (
            "b as an accumulator, token or bin",
            "$\\mathrm{relu}(W z + b)$",
            False,
        ),
        (
            "c other than a count",
            "Split $p = c\\,\\hat v + p_\\perp$",
            True,
        ),
        (
            "c other than a count",
            "let $p = c\\,\\hat p$ with $c \\to \\infty$",
            True,
        ),
        ("c other than a count", "the query $c$ includes", True),
        (
            "c other than a count",
            "$c_{js}$, $c_{j s}$, $c_{jr_j}$, $c_s$, $\\sqrt{c_s}$, $\\circ$, $\\mathrm{corr}$",
            False,
        ),
        ("K as positions or pairs", "has $K_j$ relevant positions", True),
        ("K as positions or pairs", "$d^* = \\frac{4}{s^2}\\ln(2K)$", True),
        (
            "K as positions or pairs",
            "$K$ classes, $\\frac1K$, $v_0, \\dots, v_{K-1}$",
            False,
        ),
        (
            "s as a signal or a score",
            "$s_0 := \\frac{\\eta}{2}|\\alpha_r|$",
            True,
        ),
        (
            "s as a signal or a score",
            "$\\partial q_i / \\partial s_k$",
            True,
        ),
        ("s as a signal or a score", "token $s$, $E_s$, $s_j$", False),
        ("gamma as a gap, z as noise", "by a gap $\\gamma > 0$ has", True),
        ("gamma as a gap, z as noise", "and noise $z_s$ independent", True),
        (
            "gamma as a gap, z as noise",
            "the margin $\\gamma$ and a gap $\\Delta$",
            False,
        ),
    ],
)
def test_the_patterns_on_their_boundary(name, text, hit):
    assert bool(hits(name, text)) is hit


def test_symbols_reads_quantities_not_subscripts():
    text = "$a_{ji} = E_{r_j} - E_{x_{ji}}$, $\\mathcal N(0, I/d)$, `$x$`, $\\mathrm{std}_s \\alpha_s$"
    assert symbols(text) == {"a", "E", "I", "d", "\\alpha"}


def test_the_bars_on_the_notation_page_are_the_packages():
    from token_selection.theory.thresholds import (
        DIRECTION_COSINE,
        SELECTED_ATTENTION,
    )

    text = NOTATION.read_text()
    for name, value in (
        ("direction bar", DIRECTION_COSINE),
        ("selection bar", SELECTED_ATTENTION),
    ):
        row = re.search(
            rf"^\| the {name} \| ([0-9.]+):", text, re.MULTILINE
        )
        assert row is not None, f"notation.md has no row for the {name}"
        assert float(row.group(1)) == value, (
            f"notation.md gives the {name} as {row.group(1)}, the package {value}"
        )
