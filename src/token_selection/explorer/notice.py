"""The sentence under the explorer's panels: fixed rules on the numbers of one ``ExplorerResult``."""

from __future__ import annotations

import re

from ..theory.thresholds import DIRECTION_COSINE, SELECTED_ATTENTION
from .result import SELECTED_MASS, ExplorerResult

NOISY_ALIGNMENT = 0.9
"""Below this corr(E.v, alpha) the sentence is about the noise: it blurs the signal, or beats it below 1/sqrt(2)
(where the spread of the signal falls under that of the noise: eta < eta*, chapter 3)."""


NAMED_LOSSES = 0.01
"""Share of lost sequences above which the sentence says that p loses sequences."""


def _lost_clause(result: ExplorerResult) -> str:
    """The clause ', and p loses N% of the sequences' when p loses more than ``NAMED_LOSSES`` of them, else nothing."""
    return f", and p loses {result.lost_fraction:.0%} of the sequences" if result.lost_fraction > NAMED_LOSSES else ""


def what_to_notice(result: ExplorerResult) -> str:
    """One sentence, computed from the numbers of ``result``, saying what the panels show.

    The first rule that applies wins: the alignment falls short, through the noise or, where the law predicts a
    good one, through the step's weights g_j; there is no
    max-margin direction; p loses sequences (an irrelevant token takes their attention); p drops some relevant tokens;
    p attends to several relevant tokens per sequence; p converges to p_mm (or not yet).
    """
    c = result.config
    corr, cos, own = result.correlation, result.final_cosine, result.selection_cosine
    prefix = f"delta={c.delta:g}, d={c.d}, T={c.T}: "
    if corr < NOISY_ALIGNMENT:
        # the spread over tokens of the signal (eta/2)|v|^2 alpha_s against that of the noise E_s(0).v
        signal, noise = result.predicted_slope * float(result.alpha.std()), c.d**-0.5
        spreads = f"signal spread eta/2 * |v|^2 * std(alpha) = {signal:.2g} against noise 1/sqrt(d) = {noise:.2g}"
        if result.predicted_correlation >= NOISY_ALIGNMENT:
            # the law, which reads the noise, predicts a good alignment: what fails is the step's g_j = 1/2
            return (
                prefix + f"the signal is {signal / noise:.0f} times the noise ({spreads}), so the law predicts "
                f"alignment {result.predicted_correlation:.3f}, yet E.v reaches {corr:.2f} only: the leading-order "
                "step sets every weight g_j to 1/2, and here they are not (chapter 3's exact step)" + _lost_clause(result)
            )
        verb = "beats" if corr < 0.5**0.5 else "blurs"
        return (
            prefix + f"with a step of {c.step_factor:g} eta* the noise {verb} the signal: alignment {corr:.2f}, "
            f"predicted {result.predicted_correlation:.2f} ({spreads})"
        )
    if cos is None:
        if result.irrelevant_share == 0:
            return prefix + "every position holds a relevant token, so attention has nothing to select against (no p_mm)"
        return (
            prefix + f"E.v follows alpha (alignment {corr:.4f}), but no p can score every sequence's relevant token "
            f"above the other tokens of its sequence, in all sequences at once (no max-margin direction in d={c.d}); "
            f"after training, relevant tokens hold {result.final_mean_attention:.0%} of a sequence's attention on average"
            + _lost_clause(result)
        )
    own_text = "" if own is None else f" (cos {own:.3f})"
    if result.lost_fraction > NAMED_LOSSES:
        return (
            prefix + f"p loses {result.lost_fraction:.0%} of the sequences (an irrelevant token takes their "
            f"attention) and converges to the max-margin direction of the selection it makes{own_text}, not to p_mm "
            f"(cos {cos:.2f})"
        )
    if result.selected_fraction < 0.99:
        return (
            prefix + f"{result.relevant_per_sequence:.1f} relevant tokens per sequence on average, but p attends to "
            f"{result.selected_per_sequence:.1f} per sequence (each holding at least {SELECTED_MASS:.0%} of the attention) and "
            "converges to the max-margin direction of its own "
            f"selection{own_text}, not to p_mm over all relevant tokens (cos {cos:.2f})"
        )
    if result.relevant_per_sequence > 1.05:
        return (
            prefix + f"several relevant tokens per sequence ({result.relevant_per_sequence:.1f} on average), "
            f"and p attends to all of them (cos(p, p_mm) = {cos:.3f})"
        )
    worst = result.final_min_attention
    selection = (
        f"every sequence puts more than {SELECTED_ATTENTION:g} of its attention on its relevant token"
        if worst > SELECTED_ATTENTION
        else f"the worst sequence puts {worst:.2f} of its attention on its relevant token"
    )
    if cos >= DIRECTION_COSINE:
        return (
            prefix + f"E.v follows alpha (alignment {corr:.4f}, predicted {result.predicted_correlation:.4f}), "
            f"p converges to p_mm (cos {cos:.3f}) and {selection}"
        )
    return prefix + f"{selection}, but the direction of p is still off p_mm (cos {cos:.3f}) when training stops"


_SHOWN = (  # (pattern, replacement), in this order: the sentence's plain-text maths as a reader's page sets it
    (r"\bdelta=", "δ = "),
    (r"\bd=(\d)", r"d = \1"),
    (r"\bT=(\d)", r"T = \1"),
    (r"\bE\.v\b", "E·v"),
    (r"\|v\|\^2", "‖v‖²"),
    (r"\bsqrt\((\w)\)", r"√\1"),
    (r"\balpha\b", "α"),
    (r"\beta\b", "η"),
    (r" \* ", " · "),
)


def shown_notice(notice: str) -> str:
    """``notice`` as the explorer shows it: its plain-text maths (delta=, E.v, alpha, eta, |v|^2, sqrt(d), *)
    set in Unicode (δ = , E·v, α, η, ‖v‖², √d, ·). Plain text still, so it can be escaped or wrapped like the original."""
    for pattern, replacement in _SHOWN:
        notice = re.sub(pattern, replacement, notice)
    return notice
