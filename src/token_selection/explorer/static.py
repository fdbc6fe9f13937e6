"""The static explorer: the three panels over the precomputed grid, as one plotly figure with a slider per axis.

No kernel and no hand-written JavaScript: every grid point is a plotly *frame*, and each
slider step animates to the frame that changes its own setting and keeps the others.
Each frame's layout carries the sliders as they stand at that point, so the sliders
compose although plotly's sliders are one-dimensional. A grid with a seed axis gets a
fourth slider. The figure's ``layout.meta`` holds the point as ``"delta,d,T,seed"``
(the browser test reads it).

plotly.js comes from where the figure is shown: the rendered book serves its own copy
(``BOOK_PLOTLYJS``), Colab loads it from plotly's CDN, and Jupyter draws the figure from
plotly's own MIME type.
"""

from __future__ import annotations

import html
import math
import sys
import textwrap

import plotly.graph_objects as go
import plotly.io as pio
from matplotlib.colors import to_hex
from plotly.subplots import make_subplots

from ..theory.plots import CLASS_COLORS, CLASS_LABELS
from .compute import SELECTED_MASS
from .config import DEFAULT_CONFIG
from .grid import DIGITS, grid_point
from .notice import shown_notice
from .panels import scores_title

ELEMENT_ID = "ch5-explorer"
"""The id of the figure's ``div`` in the page."""

BOOK_PLOTLYJS = "../_static/plotly.min.js"
"""plotly.js as the book serves it, relative to a chapter's page."""

SLIDER_PREFIX = {
    "delta": "delta (relevant rate) = ",
    "d": "d (embedding dim.) = ",
    "T": "T (sequence length) = ",
    "seed": "seed = ",
}
"""Each slider's label, by axis, in the order of the sliders."""
SLIDER_GAP = 0.05
"""Horizontal gap between two sliders (share of the width)."""
LABEL_PAD = 3
"""Characters of room a slider's stop needs beside its longest label."""
MIN_CHARACTERS = 14
"""A slider is as wide as the characters of its longest printed line, counted as at least this many (the seed's
"seed = 2" would otherwise leave its three stops too close for a finger)."""
PANEL_TITLES = ("1. one step on E", "2. training p", "3. final scores")
"""The panels' titles; panel 3 adds, per point, which relevant tokens end on top (``panels.score_pattern``)."""
GREEN = "#2ca02c"
SPACING = 0.1
"""Horizontal gap between panels (share of the width): room for the y-axis title of the next panel."""
PANEL_CENTERS = tuple((1 - 2 * SPACING) / 6 * (2 * k + 1) + SPACING * k for k in range(3))
"""The x centre (share of the width) of each panel, where its title goes."""
LINE_CHARACTERS = 95
"""The longest line of the numbers and the sentence under the sliders: wider lines run past the figure's right edge."""
HEIGHT, PLOT_TOP, PLOT_BOTTOM = 800, 90, 390
"""Figure height and margins in px: the panels get the middle 320 px; above them the two-line panel titles clear
plotly's toolbar (top right, shown on hover); legend, sliders and up to six lines of numbers and sentence sit below,
the longest block (three lines of numbers, three of sentence) ending about 20 px above the figure's bottom edge."""


def frame_name(delta: float, d: int, T: int, seed: int) -> str:
    """The frame (and ``layout.meta``) of a grid point: ``"delta,d,T,seed"``."""
    return f"{delta:g},{d},{T},{seed}"


def point_state(point: dict) -> tuple:
    """The grid point of a stored payload: (delta, d, T, seed)."""
    return (point["delta"], point["d"], point["T"], point["seed"])


def _by_class(point: dict, key: str, token_class: list[int], cls: int) -> list:
    return [value for value, c in zip(point[key], token_class, strict=True) if c == cls]


def _span(values: list, pad: float = 0.06) -> list[float]:
    finite = [v for v in values if v is not None]
    lo, hi = min(finite), max(finite)
    margin = pad * (hi - lo or 1.0)
    return [lo - margin, hi + margin]


def _traces(point: dict, token_class: list[int]) -> list[dict]:
    """The 11 traces of one point, in a fixed order (frames replace them index by index)."""
    classes = [(cls, CLASS_LABELS[cls], to_hex(CLASS_COLORS[cls])) for cls in (1, -1, 0)]
    alpha = point["alpha"]
    ends = [min(alpha), max(alpha)]
    mean = sum(alpha) / len(alpha)
    intercept = sum(point["ev"]) / len(point["ev"]) - point["slope"] * mean
    kept = [i for i, step in enumerate(point["step"]) if step > 0]
    steps = [point["step"][i] for i in kept]
    traces = [
        dict(type="scatter", mode="markers", name=label, legendgroup=label, marker=dict(color=color, size=7),
             x=_by_class(point, "alpha", token_class, cls), y=_by_class(point, "ev", token_class, cls), xaxis="x", yaxis="y")
        for cls, label, color in classes
    ]  # fmt: skip
    # the slopes as stored (DIGITS significant digits): rounding a stored number again can differ in its last
    # digit from the same number rounded once, as the chapter prints it
    traces += [
        dict(type="scatter", mode="lines", name=f"fit: slope {point['slope']:.{DIGITS}g}", line=dict(color="black"),
             x=ends, y=[intercept + point["slope"] * a for a in ends], xaxis="x", yaxis="y"),
        dict(type="scatter", mode="lines", name=f"predicted slope {point['pred']:.{DIGITS}g}",
             line=dict(color="black", dash="dash"), x=ends, y=[point["pred"] * a for a in ends], xaxis="x", yaxis="y"),
        dict(type="scatter", mode="lines", name="cos(p, p_mm)", line=dict(color="black", dash="dashdot"), xaxis="x2", yaxis="y2",
             x=steps if point["cos"] else [], y=[point["cos"][i] for i in kept] if point["cos"] else []),
        dict(type="scatter", mode="lines", name="mean relevant attention", line=dict(color=GREEN), xaxis="x2", yaxis="y2",
             x=steps, y=[point["att_mean"][i] for i in kept]),
        dict(type="scatter", mode="lines", name="min relevant attention", line=dict(color=GREEN, dash="dot"),
             xaxis="x2", yaxis="y2", x=steps, y=[point["att_min"][i] for i in kept]),
    ]  # fmt: skip
    traces += [
        dict(type="scatter", mode="markers", name=label, legendgroup=label, showlegend=False, marker=dict(color=color, size=7),
             x=_by_class(point, "alpha", token_class, cls), y=_by_class(point, "ep", token_class, cls), xaxis="x3", yaxis="y3")
        for cls, label, color in classes
    ]  # fmt: skip
    return traces


def _plain(value: float, digits: int) -> str:
    """``value`` to ``digits`` significant digits without an exponent (10020 -> '10,020', not '1.002e+04')."""
    return f"{float(f'{value:.{digits}g}'):,g}"


def _numbers(point: dict, step_factor: float) -> str:
    """The key numbers of a point, one line each for the one step and the training of p."""
    step = (
        f"one step of {step_factor:g} η* (η* = {_plain(point['eta_star'], 4)}, η = {_plain(point['eta'], 4)}): "
        f"corr(E·v, α) = {point['corr']:.4g}, predicted {point['corr_pred']:.4g}"
    )
    if point["cos_final"] is None:
        training = "training p: no max-margin direction p_mm"
    else:
        training = f"training p: cos(p, p_mm) = {point['cos_final']:.3f}"
        if point["cos_own"] is not None and point["cos_own"] != point["cos_final"]:
            training += f"; cos with the max-margin direction of the tokens p does select: {point['cos_own']:.3f}"
    if point["rel"] > 1:  # several relevant tokens in some sequence (delta > 0): how many does p attend?
        # no-break spaces: "0.50 attended" and "(≥ 1%" each stay on one line; "attended" is chapter 5's word for a
        # relevant token holding at least SELECTED_MASS of its sequence's attention
        attended = f"{point['sel']:.2f}\u00a0attended (≥\u00a0{SELECTED_MASS:.0%} of the attention each)"
        training += f"; relevant tokens per sequence, on average: {point['rel']:.2f} present, {attended}"
    return "<br>".join(piece for line in (step, training) for piece in textwrap.wrap(line, LINE_CHARACTERS))


def _slider_characters(name: str, labels: list[str]) -> int:
    """How many characters wide the slider of ``name`` must be: the line it prints above itself (its prefix and a
    value) must end before the next slider's begins, and each stop needs room for the longest label and
    ``LABEL_PAD`` more (plotly drops every other label of a slider whose stops are closer); at least
    ``MIN_CHARACTERS``."""
    longest = max(len(label) for label in labels)
    return max(len(SLIDER_PREFIX[name]) + longest, len(labels) * (longest + LABEL_PAD), MIN_CHARACTERS)


def _sliders(grid: dict, state: tuple) -> list[dict]:
    """The sliders at ``state`` = (delta, d, T, seed), one per axis of the grid: each step goes to the frame that
    changes one setting. Without a seed axis there are three, each a little wider."""
    axes = grid["config"]["axes"]
    names = [name for name in SLIDER_PREFIX if name in axes]
    wants = [_slider_characters(name, [f"{v:g}" for v in axes[name]]) for name in names]
    lengths = [(1.0 - SLIDER_GAP * (len(names) - 1)) * n / sum(wants) for n in wants]
    animate = dict(mode="immediate", frame=dict(duration=0, redraw=True), transition=dict(duration=0))
    sliders = []
    for k, name in enumerate(names):
        position = list(SLIDER_PREFIX).index(name)
        steps = []
        for value in axes[name]:
            target = list(state)
            target[position] = value
            steps.append(dict(label=f"{value:g}", method="animate", args=[[frame_name(*target)], animate]))
        sliders.append(dict(active=axes[name].index(state[position]), steps=steps,
                            x=sum(lengths[:k]) + SLIDER_GAP * k, len=lengths[k], y=-0.4, yanchor="top",
                            pad=dict(t=0, b=0), currentvalue=dict(prefix=SLIDER_PREFIX[name], font=dict(size=13))))  # fmt: skip
    return sliders


def _layout(grid: dict, point: dict) -> dict:
    """What changes with the point besides the traces: sliders, axis ranges, titles and sentences."""
    state = point_state(point)
    notice = "<br>".join(textwrap.wrap(f"What to notice: {shown_notice(point['notice'])}.", LINE_CHARACTERS))
    titles = (*PANEL_TITLES[:2], scores_title(point["ep"], grid["token_class"], first_line=PANEL_TITLES[2], newline="<br>"))
    annotations = [
        dict(text=title, x=x, y=1.0, xref="paper", yref="paper", xanchor="center", yanchor="bottom", showarrow=False,
             font=dict(size=14))
        for title, x in zip(titles, PANEL_CENTERS, strict=True)
    ]  # fmt: skip
    annotations.append(dict(text=_numbers(point, grid["config"]["settings"]["step_factor"]) + "<br>" + notice,
                            x=0.0, y=-0.7, xref="paper", yref="paper", xanchor="left", yanchor="top", align="left",
                            showarrow=False, font=dict(size=14)))  # fmt: skip
    # in every frame, shown only where p_mm does not exist: an animation merges a frame's annotations into the figure's
    # by position, so a note that some frames lacked would stay on screen after a frame that had it
    # on a white ground: the attention curves of the panel may pass under it
    annotations.append(dict(text="no max-margin direction", x=0.5, y=0.7, xref="x2 domain", yref="y2 domain",
                            showarrow=False, font=dict(color="#8b0000"), bgcolor="rgba(255, 255, 255, 0.85)",
                            visible=point["cos_final"] is None))  # fmt: skip
    steps = [s for s in point["step"] if s > 0]
    return dict(
        meta=frame_name(*state),
        sliders=_sliders(grid, state),
        annotations=annotations,
        xaxis=dict(range=_span(point["alpha"])),
        yaxis=dict(range=_span(point["ev"] + [point["pred"] * a for a in point["alpha"]])),
        xaxis2=dict(range=[0.0, math.log10(max(steps)) + 0.05 if steps else 1.0]),
        xaxis3=dict(range=_span(point["alpha"])),
        yaxis3=dict(range=_span(point["ep"])),
    )


def static_figure(grid: dict, *, start: tuple | None = None) -> go.Figure:
    """The static explorer as a plotly ``Figure`` with one frame per grid point.

    start: (delta, d, T) or (delta, d, T, seed), a grid point; default the live explorer's defaults.
    """
    start = start or (DEFAULT_CONFIG.delta, DEFAULT_CONFIG.d, DEFAULT_CONFIG.T, DEFAULT_CONFIG.seed)
    first = grid_point(grid, *start)
    fig = make_subplots(rows=1, cols=3, horizontal_spacing=SPACING)
    fig.add_traces(_traces(first, grid["token_class"]))
    fig.update_layout(
        template="plotly_white", height=HEIGHT, margin=dict(l=60, r=20, t=PLOT_TOP, b=PLOT_BOTTOM), font=dict(size=12),
        legend=dict(orientation="h", x=0.0, y=-0.2, yanchor="top", font=dict(size=11)), **_layout(grid, first)
    )  # fmt: skip
    titles = (
        ("signed frequency \u03b1\u209b", "E\u209b \u00b7 v after one step"),
        ("normalised-GD steps on p (log scale)", "cosine / attention mass"),
        ("signed frequency \u03b1\u209b", "E\u209b \u00b7 p / \u2016p\u2016 after training"),
    )
    for col, (x_title, y_title) in enumerate(titles, start=1):
        fig.update_xaxes(title_text=x_title, automargin=True, row=1, col=col)
        fig.update_yaxes(title_text=y_title, automargin=True, row=1, col=col)
    fig.update_xaxes(type="log", dtick=1, row=1, col=2)  # ticks at the powers of 10 only
    fig.update_yaxes(range=[-0.05, 1.05], row=1, col=2)
    # at most six ticks on the y axes of panels 1 and 3: their labels stay short (0.1, not 0.05), so that the axis
    # title beside them stays out of the panel to its left (checked over every frame of the grid at the book's width)
    for col in (1, 3):
        fig.update_yaxes(nticks=6, row=1, col=col)
    fig.frames = [
        go.Frame(name=frame_name(*point_state(p)), data=_traces(p, grid["token_class"]), layout=_layout(grid, p))
        for p in grid["points"]
    ]
    return fig


def static_html(fig: go.Figure, *, plotlyjs: str | bool = BOOK_PLOTLYJS, div_id: str = ELEMENT_ID, alt: str | None = None) -> str:
    """An HTML fragment drawing ``fig`` in a ``div`` with id ``div_id`` (default ``ELEMENT_ID``).

    plotlyjs: as ``plotly.io.to_html``'s ``include_plotlyjs``: a path to plotly.min.js,
    ``"cdn"``, True (inline, 3.5 MB) or False (the page provides ``window.Plotly``).
    alt: a text alternative; when given, the fragment is wrapped in a ``div`` with ``role="figure"``
    and that ``aria-label``, which a screen reader announces before the figure's controls.
    """
    fragment = pio.to_html(fig, include_plotlyjs=plotlyjs, full_html=False, div_id=div_id, auto_play=False,
                           config=dict(displaylogo=False, responsive=True))  # fmt: skip
    if alt is None:
        return fragment
    return f'<div role="figure" aria-label="{html.escape(alt, quote=True)}">{fragment}</div>'


class StaticExplorer:
    """A displayable static explorer: the HTML suited to where it is shown, and plotly's MIME type for Jupyter."""

    def __init__(self, fig: go.Figure, div_id: str = ELEMENT_ID, alt: str | None = None) -> None:
        self.figure = fig
        self.div_id = div_id
        """The id of the figure's ``div`` in the page (another static figure, chapter 3's slider, has its own)."""
        self.alt = alt
        """The text alternative (``static_html``), or None."""

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        if "google.colab" in sys.modules:
            # Colab renders HTML only, in a frame of its own: plotly.js must come with it
            return {"text/html": static_html(self.figure, plotlyjs="cdn", div_id=self.div_id, alt=self.alt)}
        return {
            "application/vnd.plotly.v1+json": self.figure.to_plotly_json() | {"config": {"displaylogo": False}},
            "text/html": static_html(self.figure, div_id=self.div_id, alt=self.alt),
        }


EXPLORER_ALT = (
    "Interactive figure with three panels and four sliders below them, for the relevant-token rate delta, the "
    "dimension d, the sequence length T and the seed. Left: scatter of each token's value after the one step "
    "against its signed frequency, red positive-relevant, blue negative-relevant, grey irrelevant, with the "
    "predicted line. Middle: the cosine of p with the max-margin direction and the attention on relevant tokens "
    "while p trains. Right: each token's final score, in the same colours. Moving a slider redraws the three "
    "panels for that setting; a sentence under them names it."
)
"""The explorer's text alternative."""


def static_explorer(grid: dict, *, start: tuple | None = None) -> StaticExplorer:
    """The static explorer of ``grid`` for display in a notebook or the rendered book (see the module docstring)."""
    return StaticExplorer(static_figure(grid, start=start), alt=EXPLORER_ALT)
