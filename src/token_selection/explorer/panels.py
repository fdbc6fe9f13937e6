"""The three linked panels of one ``ExplorerResult`` as a matplotlib figure (the live explorer draws these)."""

from __future__ import annotations

import html
import io
import textwrap

import numpy as np
from matplotlib.figure import Figure

from ..theory.plots import plot_against_importance
from .result import ExplorerResult


def draw_panels(result: ExplorerResult, *, width: float = 15.0) -> Figure:
    """The three panels as a matplotlib ``Figure`` (not registered with pyplot)."""
    # a fixed layout: constrained layout would double the drawing time of a redraw
    fig = Figure(figsize=(width, width * 0.3))
    fig.subplots_adjust(left=0.055, right=0.99, bottom=0.15, top=0.8, wspace=0.27)
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
        f"(predicted {result.predicted_correlation:.3f})"
    )
    ax_step.legend(fontsize=8, loc="upper left")

    steps = result.history["step"]
    shown = steps > 0
    if result.final_cosine is not None:
        ax_train.plot(steps[shown], result.history["cosine"][shown], color="black", label=r"cos$(p, p_{mm})$")
        title = f"2. training p\ncos(p, p_mm) = {result.final_cosine:.3f}"
        if result.selection_cosine is not None and result.selection_cosine != result.final_cosine:
            title += f"; own selection: {result.selection_cosine:.3f}"
    else:
        message = "\n".join(textwrap.wrap(result.max_margin_message, 48))
        ax_train.text(0.5, 0.35, "no max-margin direction:\n" + message, ha="center", va="center",
                      transform=ax_train.transAxes, fontsize=8, color="#8b0000")  # fmt: skip
        title = "2. training p\nno p_mm"
    for key, style, label in (("mean_relevant_attention", "-", "mean"), ("min_relevant_attention", ":", "min")):
        ax_train.plot(steps[shown], result.history[key][shown], color="#2ca02c", ls=style, label=f"{label} relevant attention")
    ax_train.set_xscale("log")
    ax_train.set_ylim(-0.05, 1.05)
    ax_train.set_xlabel("normalised-GD steps on p (log scale)")
    ax_train.set_ylabel("cosine / attention mass")
    ax_train.set_title(title)
    ax_train.legend(fontsize=8, loc="lower right")

    ax_score.set_xlabel(r"importance: signed frequency $\alpha_s$")
    ax_score.set_ylabel(r"$E_s \cdot p/\|p\|$ after training p")
    ax_score.set_title("3. final scores\n(colours as in 1)")
    fig.suptitle(result.config.label(), fontsize=10)
    return fig


def figure_png(fig: Figure, dpi: int = 80) -> bytes:
    """PNG bytes of a figure. Displaying PNG works whatever the matplotlib backend (Agg included)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def notice_html(notice: str):
    """The sentence as a displayable paragraph (a display, not a print, so it stays below its figure)."""
    from IPython.display import HTML

    return HTML(f"<p><b>What to notice:</b> {html.escape(notice)}.</p>")


def show_panels(result: ExplorerResult) -> None:
    """Display the three panels and the sentence in the current output area."""
    from IPython.display import Image, display

    display(Image(data=figure_png(draw_panels(result))))
    display(notice_html(result.notice))
