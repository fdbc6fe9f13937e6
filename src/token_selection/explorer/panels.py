"""The three linked panels of one ``ExplorerResult`` as a matplotlib figure (the live explorer draws these), and
the front page's version of them (``draw_hero``: plain-language titles, sized for the book's text column, drawn by
``scripts/draw_hero_figure.py``, which records beside the image what it was drawn from: ``hero_record``).

Panel 3's title says which relevant tokens end above every irrelevant one, computed from the scores it draws
(``score_pattern``), so a title never names a shape its panel does not show.
"""

from __future__ import annotations

import hashlib
import html
import inspect
import io
import textwrap
from dataclasses import asdict

import numpy as np
from matplotlib.figure import Figure

from ..theory.plots import CLASS_COLORS, CLASS_LABELS, plot_against_importance
from .notice import shown_notice
from .result import ExplorerResult

SCORE_PATTERNS = {
    "both": "both classes on top",
    "some of both": "some of both classes on top",
    1: "no negative token on top",
    -1: "no positive token on top",
    "none": "no relevant token on top",
}
"""The words of ``score_pattern``; "on top" means above every irrelevant token. Each fits a panel title (<= 30 characters)."""


def score_pattern(scores, token_class) -> str:
    """Which relevant tokens end above every irrelevant token: what panel 3 shows, in words.

    scores: (V,) final scores ``E_s . p / |p|`` (None or NaN where a score is missing);
    token_class: (V,) in {-1, 0, +1}. Returns one of ``SCORE_PATTERNS``' values: "both classes on top"
    when every relevant token of both classes scores above every irrelevant one (the two levels),
    "some of both classes on top" when some of each class do, "no negative token on top" (or positive)
    when some of one class do and none of the other, "no relevant token on top" otherwise. Returns ""
    (nothing claimed) when a score is missing or the vocabulary lacks one of the three classes.
    Raises ValueError when the two arrays differ in length or a class is not -1, 0 or +1.
    """
    values = np.array([np.nan if s is None else s for s in np.ravel(np.asarray(scores, dtype=object))], dtype=np.float64)
    classes = np.ravel(np.asarray(token_class))
    if values.shape != classes.shape:
        raise ValueError(f"scores and token_class must have the same length, got {values.size} and {classes.size}")
    if not np.isin(classes, (-1, 0, 1)).all():
        raise ValueError(f"token_class must hold only -1, 0 and +1, got {sorted(set(classes.tolist()))}")
    if np.isnan(values).any() or not all((classes == c).any() for c in (-1, 0, 1)):
        return ""
    best_irrelevant = values[classes == 0].max()
    on_top = {c: values[classes == c] > best_irrelevant for c in (1, -1)}
    if all(top.all() for top in on_top.values()):
        return SCORE_PATTERNS["both"]
    if all(top.any() for top in on_top.values()):
        return SCORE_PATTERNS["some of both"]
    for c, top in on_top.items():
        if top.any():
            return SCORE_PATTERNS[c]
    return SCORE_PATTERNS["none"]


def scores_title(scores, token_class, *, first_line: str = "3. final scores", newline: str = "\n") -> str:
    """Panel 3's title: ``first_line``, then ``score_pattern``'s words on a second line when it has any.

    newline: "\\n" for matplotlib, "<br>" for plotly.
    """
    pattern = score_pattern(scores, token_class)
    return first_line + (f"{newline}{pattern}" if pattern else "")


LEGEND_SIZE = 9.5
"""Points, of the panels' legends and notes: a figure 11 inches wide is shown about 700 px wide in the book."""
_BESIDE = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0)}
"""A stacked figure's legends: to the right of their panel."""


def draw_panels(result: ExplorerResult, *, width: float = 11.0, stacked: bool = False) -> Figure:
    """The three panels as a matplotlib ``Figure`` (not registered with pyplot): side by side, ``width`` x
    ``0.3 * width`` inches (the live explorer), or ``stacked`` one above another, 7 x 9 inches (a static figure in
    the book's text column, where three panels side by side shrink to small print; the legends then sit to the right
    of their panels, off the data)."""
    # a fixed layout: constrained layout would double the drawing time of a redraw
    if stacked:
        fig = Figure(figsize=(7.0, 9.0))
        fig.subplots_adjust(left=0.12, right=0.66, bottom=0.06, top=0.89, hspace=0.62)
        ax_step, ax_train, ax_score = fig.subplots(3, 1)
    else:
        fig = Figure(figsize=(width, width * 0.3))
        fig.subplots_adjust(left=0.065, right=0.99, bottom=0.17, top=0.77, wspace=0.36)
        ax_step, ax_train, ax_score = fig.subplots(1, 3)
    plot_against_importance(ax_step, result.alpha, result.values, result.token_class)
    plot_against_importance(ax_score, result.alpha, result.scores, result.token_class)

    ends = np.array([result.alpha.min(), result.alpha.max()])
    intercept = result.values.mean() - result.slope * result.alpha.mean()
    ax_step.plot(ends, intercept + result.slope * ends, color="black", lw=1.2, label=f"fit: slope {result.slope:.3g}")
    ax_step.plot(ends, result.predicted_slope * ends, color="black", lw=1.2, ls="--",
                 label=f"predicted {result.predicted_slope:.3g}")  # fmt: skip
    ax_step.set_xlabel(r"signed frequency $\alpha_s$")
    ax_step.set_ylabel(r"$E_s \cdot v$ after one step")
    ax_step.set_title(
        f"1. one step of {result.config.step_factor:g} $\\eta^*$\ncorr(E.v, alpha) = {result.correlation:.3f} "
        f"(predicted {result.predicted_correlation:.3f})",
        fontsize=LEGEND_SIZE + 1,
    )
    ax_step.legend(fontsize=LEGEND_SIZE, **(_BESIDE if stacked else {"loc": "upper left"}))

    steps = result.history["step"]
    shown = steps > 0
    if result.final_cosine is not None:
        ax_train.plot(steps[shown], result.history["cosine"][shown], color="black", label=r"cos$(p, p_{mm})$")
        title = f"2. training p\ncos(p, p_mm) = {result.final_cosine:.3f}"
        if result.selection_cosine is not None and result.selection_cosine != result.final_cosine:
            title += f"; own selection: {result.selection_cosine:.3f}"
    else:
        # above the side-by-side layout's legend (lower right), on white: the attention curves pass behind it
        message = "\n".join(textwrap.wrap(result.max_margin_message, 34))
        ax_train.text(0.5, 0.62, "no max-margin direction:\n" + message, ha="center", va="center",
                      transform=ax_train.transAxes, fontsize=LEGEND_SIZE, color="#8b0000",
                      bbox=dict(facecolor="white", alpha=0.85, edgecolor="none"))  # fmt: skip
        title = "2. training p\nno p_mm"
    for key, style, label in (("mean_relevant_attention", "-", "mean"), ("min_relevant_attention", ":", "min")):
        ax_train.plot(steps[shown], result.history[key][shown], color="#2ca02c", ls=style, label=f"{label} relevant attention")
    ax_train.set_xscale("log")
    ax_train.set_ylim(-0.05, 1.05)
    ax_train.set_xlabel("normalised-GD steps on p (log scale)")
    ax_train.set_ylabel("cosine / attention mass")
    ax_train.set_title(title, fontsize=LEGEND_SIZE + 1)
    ax_train.legend(fontsize=LEGEND_SIZE, **(_BESIDE if stacked else {"loc": "lower right"}))

    ax_score.set_xlabel(r"importance: signed frequency $\alpha_s$")
    ax_score.set_ylabel(r"$E_s \cdot p/\|p\|$ after training p")
    ax_score.set_title(
        scores_title(result.scores, result.token_class, first_line="3. final scores (colours as in 1)"),
        fontsize=LEGEND_SIZE + 1,
    )
    fig.suptitle(result.config.label(), fontsize=LEGEND_SIZE + 1)
    return fig


def figure_png(fig: Figure, dpi: int = 80) -> bytes:
    """PNG bytes of a figure. Displaying PNG works whatever the matplotlib backend (Agg included)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def notice_html(notice: str):
    """The sentence as a displayable paragraph (a display, not a print, so it stays below its figure), its plain-text
    maths set in Unicode (``notice.shown_notice``)."""
    from IPython.display import HTML

    return HTML(f"<p><b>What to notice:</b> {html.escape(shown_notice(notice))}.</p>")


def show_panels(result: ExplorerResult) -> None:
    """Display the three panels and the sentence in the current output area."""
    from IPython.display import Image, display

    display(Image(data=figure_png(draw_panels(result, stacked=True))))
    display(notice_html(result.notice))


HERO_FONT_SIZE = 10.5
"""Points; at the book's column width (about 750 px for a 9-inch figure) this reads like the page's small print."""

RECORDED_NUMBERS = ("correlation", "predicted_correlation", "slope", "final_cosine", "final_mean_attention",
                    "final_min_attention", "lost_fraction")  # fmt: skip
"""The numbers of a run that ``hero_record`` keeps: what the three panels show, in a few scalars."""


def draw_hero(result: ExplorerResult, *, width: float = 9.0) -> Figure:
    """The three panels of ``result`` as a matplotlib ``Figure`` of ``width`` x ``0.34 * width`` inches.

    1. values ``E_s . v`` after one step against the signed frequency ``alpha_s``, with the fitted line;
    2. while ``p`` trains: the mean attention on relevant tokens and cos(p, p_mm) (log step axis);
    3. final scores ``E_s . p/|p|`` against ``alpha_s``, titled by ``score_pattern``.
    Raises ValueError when ``result`` has no max-margin direction (the front page shows a run that has one).
    """
    if result.final_cosine is None:
        raise ValueError("the front page's figure needs a run with a max-margin direction (final_cosine is None)")
    if not width > 0:
        raise ValueError(f"width must be a positive number of inches, got {width!r}")
    fig = Figure(figsize=(width, 0.34 * width))
    fig.subplots_adjust(left=0.07, right=0.99, bottom=0.18, top=0.79, wspace=0.3)
    ax_step, ax_train, ax_score = fig.subplots(1, 3)
    size = HERO_FONT_SIZE

    plot_against_importance(ax_step, result.alpha, result.values, result.token_class)
    ends = np.array([result.alpha.min(), result.alpha.max()])
    intercept = result.values.mean() - result.slope * result.alpha.mean()
    ax_step.plot(ends, intercept + result.slope * ends, color="black", lw=1)
    ax_step.text(0.97, 0.05, f"correlation {result.correlation:.3f}", transform=ax_step.transAxes, ha="right",
                 fontsize=size - 1.5)  # fmt: skip
    ax_step.set_title("1. one gradient step on $E$:\nvalues line up with importance", fontsize=size)
    ax_step.set_xlabel(r"importance $\alpha_s$ (signed frequency)", fontsize=size - 1)
    ax_step.set_ylabel(r"value $E_s\cdot v$", fontsize=size - 1)
    ax_step.legend(fontsize=size - 2.5, loc="upper left", handletextpad=0.1, borderaxespad=0.3, frameon=False)

    steps = result.history["step"]
    shown = steps > 0
    ax_train.plot(steps[shown], result.history["mean_relevant_attention"][shown], color="#2ca02c", lw=1.6,
                  label="mean relevant attention")  # fmt: skip
    ax_train.plot(steps[shown], result.history["cosine"][shown], color="black", lw=1.2, ls="--",
                  label=r"$\cos(p,\ $max-margin direction$)$")  # fmt: skip
    ax_train.set_xscale("log")
    ax_train.set_ylim(-0.03, 1.05)
    ax_train.set_title("2. training $p$: attention moves\nonto the relevant tokens", fontsize=size)
    ax_train.set_xlabel("gradient steps on $p$ (log scale)", fontsize=size - 1)
    ax_train.legend(fontsize=size - 2.5, loc="lower right", frameon=False)

    plot_against_importance(ax_score, result.alpha, result.scores, result.token_class)
    pattern = score_pattern(result.scores, result.token_class)
    ax_score.set_title(r"3. final scores $E_s\cdot p/\|p\|$:" + (f"\n{pattern}" if pattern else ""), fontsize=size)
    ax_score.set_xlabel(r"importance $\alpha_s$ (signed frequency)", fontsize=size - 1)
    ax_score.set_ylabel(r"score $E_s\cdot p\,/\,\|p\|$", fontsize=size - 1)
    for ax in (ax_step, ax_train, ax_score):
        ax.tick_params(labelsize=size - 2)
    return fig


def drawing_sha256() -> str:
    """sha256 of the source of everything that turns a result into the front page's figure (``draw_hero``, the
    panel-3 words, the scatter helper): a change to any of them makes a committed image stale."""
    sources = [inspect.getsource(f) for f in (draw_hero, score_pattern, plot_against_importance)]
    sources.append(repr(SCORE_PATTERNS) + repr(CLASS_COLORS) + repr(CLASS_LABELS))
    return hashlib.sha256("\n".join(sources).encode()).hexdigest()


def hero_record(result: ExplorerResult) -> dict:
    """What a hero image was drawn from: the run's settings, its key numbers, panel 3's words and the drawing
    code's hash (``drawing_sha256``). JSON-ready; stored beside the image and compared with a fresh run."""
    numbers = {name: float(getattr(result, name)) for name in RECORDED_NUMBERS}
    return {
        "config": asdict(result.config),
        "numbers": numbers,
        "score_pattern": score_pattern(result.scores, result.token_class),
        "drawing_sha256": drawing_sha256(),
    }


def stale_parts(recorded: dict, fresh: dict, *, rtol: float = 1e-6) -> list[str]:
    """What differs between a recorded ``hero_record`` and a fresh one (empty when the image is current).

    Settings, panel-3 words and the drawing hash must match exactly; numbers within ``rtol`` (float64 runs
    agree to far better, on any machine that runs the course).
    """
    found = [key for key in ("config", "score_pattern", "drawing_sha256") if recorded.get(key) != fresh[key]]
    old = recorded.get("numbers") or {}
    for name, value in fresh["numbers"].items():
        if name not in old or not np.isclose(old[name], value, rtol=rtol, atol=0.0):
            found.append(f"numbers.{name}")
    return found
