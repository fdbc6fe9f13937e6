"""How the report writes each row's number in its cell: correlations, worst sequences, intervals, ratios, shapes."""

from __future__ import annotations

from ..intervals import show_interval
from .measures import plateau_words, show_shape


def show_corr(value: float) -> str:
    """A correlation, three decimals."""
    return f"corr {value:.3f}"


def show_worst_sequence(value: float) -> str:
    """The worst sequence's attention, four decimals."""
    return f"worst sequence {value:.4f}"


def show_worst_class_corr(value: float) -> str:
    """The worst class's correlation, three decimals."""
    return f"worst class corr {value:.3f}"


def show_accuracy(interval: dict) -> str:
    """A test accuracy interval in percent, one decimal."""
    return show_interval(interval, "{:.1f}", 100, " %")


def show_ratio(interval: dict) -> str:
    """A ratio interval, two decimals, as a factor."""
    return show_interval(interval, "{:.2f}", 1, "x")


def _budget_words(value: dict) -> str:
    return f"trained to the end of {value['budget']} epochs ({plateau_words(value)})"


def show_converged_shape(verdict: dict) -> str:
    """The converged arm's shape with its budget, then the early-stopped arm's shape beside it."""
    return f"{show_shape(verdict)} {_budget_words(verdict)}; early-stopped: {show_shape(verdict['early_stopped'])}"


def show_converged_ratio(interval: dict) -> str:
    """The converged arm's ratio with its budget (and whether its loss reached the plateau), the seed means at the
    other budgets (``by_budget``, where kept: the ratio depends on the training length), then the early-stopped arm's
    ratio beside it."""
    others = [(b, r) for b, r in interval.get("by_budget", {}).items() if b != interval["budget"]]
    shorter = "; other budgets: " + ", ".join(f"{r:.2f}x after {b}" for b, r in others) + " epochs" if others else ""
    return f"{show_ratio(interval)} {_budget_words(interval)}{shorter}; early-stopped: {show_ratio(interval['early_stopped'])}"


def show_gap(value: dict) -> str:
    """An accuracy gap in points with its interval, and over how many seeds."""
    return f"{value['value']:.1f} points [{value['low']:.1f}, {value['high']:.1f}]" + (
        f" over {value['n']} seeds" if value["n"] > 1 else " (one seed; interval from the test-set sizes)"
    )


def show_spearman(value: dict) -> str:
    """Our Spearman interval (``ours``), and the Spearman of our 20 bin means where known."""
    bins = f"; on the 20 bins {value['bins'][0]:+.2f}" if "bins" in value else ""
    return f"Spearman [{value['ours'][0]:+.2f}, {value['ours'][1]:+.2f}]{bins}"
