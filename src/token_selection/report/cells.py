"""How the report writes each row's number in its cell: correlations, worst sequences, intervals, ratios, shapes."""

from __future__ import annotations

from ..intervals import show_interval
from .converged_arms import convergence_words
from .measures import show_shape


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
    met = "every seed converged" if value["converged"] else "no budget where every seed converged; the longest"
    return f"trained to the end of {value['budget']} epochs ({met}: {convergence_words(value)})"


def show_converged_shape(verdict: dict) -> str:
    """The converged arm's shape with its budget, then the early-stopped arm's shape beside it."""
    return f"{show_shape(verdict)} {_budget_words(verdict)}; early-stopped: {show_shape(verdict['early_stopped'])}"


def show_converged_ratio(interval: dict) -> str:
    """Both arms trained to the end of a budget: the raw ratio with its budget and how each arm met the convergence
    rule, the scale-free ratio beside it, the seed means at the other budgets (the raw ratio depends on the training
    length), then the early-stopped arms' raw ratio."""
    others = [b for b in interval["by_budget"] if b != interval["budget"]]
    shorter = ", ".join(
        f"{interval['by_budget'][b]:.2f}x (scale-free {interval['scale_free_by_budget'][b]:.2f}x) after {b}" for b in others
    )
    return (
        f"{show_ratio(interval)}, scale-free {show_ratio(interval['scale_free'])}, {_budget_words(interval)}"
        + (f"; other budgets: {shorter} epochs" if others else "")
        + f"; early-stopped: {show_ratio(interval['early_stopped'])}"
    )


def show_gap(value: dict) -> str:
    """An accuracy gap in points with its interval, and over how many seeds."""
    basis = None if value["n"] > 1 else "one seed; interval from the test-set sizes"
    return show_interval(value, "{:.1f}", 1, " points", basis=basis)


def show_spearman(value: dict) -> str:
    """Our Spearman interval (``ours``), and the Spearman of our 20 bin means where known."""
    bins = f"; on the 20 bins {value['bins'][0]:+.2f}" if "bins" in value else ""
    return f"Spearman [{value['ours'][0]:+.2f}, {value['ours'][1]:+.2f}]{bins}"
