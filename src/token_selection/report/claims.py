"""``CLAIMS``: every claim of the paper the course scores, with its source, our measure and a verdict rule.

A claim is here only if a passage of the sources makes it (the abstract or the public
OpenReview discussion); the course's own derivations are checked in the chapters, not
scored here. Each claim names the results records its number comes from and how that
number is read from them (``measure``), so the report table is generated from this one
definition (``report.table``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .. import sources as pn
from ..intervals import show_interval
from ..theory.thresholds import DIRECTION_COSINE, SELECTED_ATTENTION
from .measures import (
    CONVERGED,
    THEORY_RECORD,
    Records,
    accuracy,
    converged_shape,
    converged_std_ratio,
    gap,
    plateau_words,
    real_record,
    shape_verdict,
    share_interval,
    show_shape,
    show_share,
    theory,
    weaker,
    worst_class,
)
from .verdicts import AtLeast, PositiveInterval, Rule, ShapeIs, ShareOfSeeds, WeakerTrend, Within, WithinFactor


@dataclass(frozen=True)
class Claim:
    """One row of the report.

    key: identifier; statement: the claim, in the course's words; tag: "abstract" or
    "discussion", or "inferred" for a row the sources do not state but the course reads into them
    (it is scored, and labelled as ours); source: the passage; paper: the paper's number as text ("" when the source
    gives none); table: (centres, means) of a rebuttal table the shape rule can read, or None;
    records: names of the results records our number needs; measure: their metrics -> the
    value the rule judges; show: that value as text; rule: the verdict rule; protocol: what
    our number is, in words; chapter: where the course discusses the claim.
    """

    key: str
    statement: str
    tag: str
    source: str
    paper: str
    table: tuple[np.ndarray, np.ndarray] | None
    records: tuple[str, ...]
    measure: Callable[[Records], Any]
    show: Callable[[Any], str]
    rule: Rule
    protocol: str
    chapter: str


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


REFERENCE_D = 512
"""Dimension of the course's reference case, where the abstract's selection and max-margin rows are scored."""
GLOBAL_DIMENSIONS = (512, 2048)
"""Dimensions of the seed sweep the global claim is scored at: the reference case's and the paper's."""


def sweep_share(test: str, d: int) -> Callable[[Records], dict]:
    """The share of the seed sweep at dimension ``d`` that passes ``test`` ("selects", "reaches" or "both", counted
    in the record by the course's thresholds), with its Wilson 95% interval and ``d``."""

    def read(records: Records) -> dict:
        sweep = records[THEORY_RECORD][f"seed_sweep_d{d}"]
        return {**share_interval(sweep["passed"][test], sweep["seeds"]), "d": d}

    return read


def show_sweep_share(value: dict) -> str:
    """One share of the seed sweep: passed of n seeds, percent, Wilson interval, at which d."""
    return f"{show_share(value)} at d = {value['d']}"


def global_shares(records: Records) -> list[dict]:
    """For each of ``GLOBAL_DIMENSIONS``: the share of seeds that select every relevant token and reach p_mm."""
    return [sweep_share("both", d)(records) for d in GLOBAL_DIMENSIONS]


def show_global_shares(value: list[dict]) -> str:
    """Each dimension's share with its own Wilson interval, separated by semicolons."""
    return "; ".join(show_sweep_share(share) for share in value)


def show_gap(value: dict) -> str:
    """An accuracy gap in points with its interval, and over how many seeds."""
    return f"{value['value']:.1f} points [{value['low']:.1f}, {value['high']:.1f}]" + (
        f" over {value['n']} seeds" if value["n"] > 1 else " (one seed; interval from the test-set sizes)"
    )


def show_spearman(value: dict) -> str:
    """Our Spearman interval (``ours``), and the Spearman of our 20 bin means where known."""
    bins = f"; on the 20 bins {value['bins'][0]:+.2f}" if "bins" in value else ""
    return f"Spearman [{value['ours'][0]:+.2f}, {value['ours'][1]:+.2f}]{bins}"


_KQ = "two-layer model with key-query matrices in both layers (ours, chapter 8b)"
_ONE_LAYER = "one-layer model, E, p, v trained jointly on IMDB reviews"
_SHAPE_PROTOCOL = (
    "shape rule over tokens seen at least the pipeline's minimum count, importance = posterior gap, read with its "
    "effect size (theory.shape_effect); the verdict on the 20 bin means shown beside it"
)

CLAIMS: tuple[Claim, ...] = (
    Claim(
        "one_step_alignment",
        "After one gradient step on the embeddings, E_s . v is proportional to the token's average signed frequency",
        "abstract",
        "abstract",
        "",
        None,
        (THEORY_RECORD,),
        theory("one_step.corr"),
        show_corr,
        AtLeast(0.9),
        "corr(E_s . v, alpha_s) on the synthetic reference case, eta about 14 eta*",
        "03_one_step",
    ),
    Claim(
        "one_step_any_data",
        "The one-step alignment needs no assumption on the data, only a large embedding dimension (Lemma 4.1)",
        "discussion",
        "authors' reply to reviewer vwUg",
        "",
        None,
        (THEORY_RECORD,),
        theory("one_step_several.corr"),
        show_corr,
        AtLeast(0.9),
        "the same correlation on synthetic data that break Assumption 1 (delta = 0.3)",
        "03_one_step",
    ),
    Claim(
        "selection",
        "After p is trained to convergence, the softmax selects the important tokens",
        "abstract",
        "abstract",
        "",
        None,
        (THEORY_RECORD,),
        sweep_share("selects", REFERENCE_D),
        show_sweep_share,
        ShareOfSeeds(),
        f"share of the reference case's seeds (data and initialisation) whose worst training sequence puts more than "
        f"{SELECTED_ATTENTION:g} of its attention on its relevant token after normalised GD on p",
        "04b_numerics",
    ),
    Claim(
        "max_margin",
        "The trained <cls> embedding p maximises the margin for that selection",
        "abstract",
        "abstract",
        "",
        None,
        (THEORY_RECORD,),
        sweep_share("reaches", REFERENCE_D),
        show_sweep_share,
        ShareOfSeeds(),
        f"share of the reference case's seeds with cos(p, p_mm) >= {DIRECTION_COSINE:g} (the course's direction "
        "threshold) after normalised GD on p",
        "04b_numerics",
    ),
    Claim(
        "global",
        "From a random initialisation and one step, p converges to a max-margin direction that selects "
        "every relevant token; no other direction is possible (Theorem 4.3)",
        "discussion",
        "authors' rebuttal to reviewer q6jg (W3)",
        "",
        None,
        (THEORY_RECORD,),
        global_shares,
        show_global_shares,
        ShareOfSeeds(),
        f"share of seeds (data and initialisation) whose worst sequence puts more than {SELECTED_ATTENTION:g} of its "
        f"attention on its relevant token and whose cos(p, p_mm) >= {DIRECTION_COSINE:g}, at the reference case's "
        "d = 512 and at d = 2048, each with its Wilson 95% interval",
        "04b_numerics",
    ),
    Claim(
        "several_relevant",
        "Beyond Assumption 1: if p converges in direction it selects at least one relevant token in every sequence",
        "discussion",
        "authors' rebuttal to reviewer q6jg (W2)",
        "",
        None,
        (THEORY_RECORD,),
        theory("selection_several.min_attention"),
        show_worst_sequence,
        AtLeast(0.99),
        "total attention on the relevant tokens, worst sequence, delta = 0.3 (several per sequence)",
        "08b_models",
    ),
    Claim(
        "multiclass_one_step",
        "With K classes, after one step E_s . v_k follows a generalised signed frequency of class k",
        "discussion",
        "authors' rebuttal to reviewer E1M4 (Q2)",
        "",
        None,
        (THEORY_RECORD,),
        theory("multiclass_corr"),
        show_worst_class_corr,
        AtLeast(0.9),
        "K = 4 synthetic classes (ours), correlation of E_s . v_k with the class-k signed frequency",
        "08b_models",
    ),
    Claim(
        "trained_accuracy",
        "Trained embeddings: test accuracy around 95%",
        "discussion",
        "authors' rebuttal to reviewer q6jg (W1)",
        f"about {pn.TRAINED_ACCURACY:.0%} (dataset not stated)",
        None,
        (real_record("one_layer"),),
        accuracy(real_record("one_layer")),
        show_accuracy,
        Within(pn.TRAINED_ACCURACY, 0.05),
        f"{_ONE_LAYER}, test accuracy",
        "06_imdb",
    ),
    Claim(
        "frozen_accuracy",
        "Embeddings frozen at random, only p and the classifier trained: test accuracy around 72%",
        "discussion",
        "authors' rebuttal to reviewer q6jg (W1)",
        f"about {pn.FROZEN_ACCURACY:.0%} (dataset not stated)",
        None,
        (real_record("one_layer", "frozen_random"),),
        accuracy(real_record("one_layer", "frozen_random")),
        show_accuracy,
        Within(pn.FROZEN_ACCURACY, 0.05),
        "one-layer model on IMDB, E frozen at its random draw",
        "08_beyond",
    ),
    Claim(
        "frozen_gap",
        "Training the embeddings matters: trained beats frozen random embeddings",
        "discussion",
        "authors' rebuttal to reviewer q6jg (W1)",
        f"{100 * (pn.TRAINED_ACCURACY - pn.FROZEN_ACCURACY):.0f} points",
        None,
        (real_record("one_layer"), real_record("one_layer", "frozen_random")),
        gap,
        show_gap,
        PositiveInterval(round(100 * (pn.TRAINED_ACCURACY - pn.FROZEN_ACCURACY))),
        "trained minus frozen test accuracy, paired by seed: 95% Student-t interval over seeds (from the test-set "
        "sizes when there is one seed)",
        "08_beyond",
    ),
    Claim(
        "std_ratio_values",
        "One step on E, then E frozen: the average per-bin std of E_s . v is smaller than after training E to convergence",
        "discussion",
        "authors' rebuttal to reviewer vwUg (Q3)",
        f"about {pn.ONE_STEP_STD_RATIO_VALUES:.0f}x",
        None,
        (CONVERGED, real_record("one_layer"), real_record("one_layer", "one_step_frozen")),
        converged_std_ratio("values"),
        show_converged_ratio,
        WithinFactor(pn.ONE_STEP_STD_RATIO_VALUES, 1.5, at_plateau=True),
        "count-weighted mean per-bin std at the rebuttal's 20 bins: jointly trained to the end of the longest budget "
        "at which every seed's training loss reached its plateau, else of the longest budget (the last epoch kept, no "
        "early stopping), over one step then frozen, paired by seed; the ratio at the other budgets and the "
        "early-stopped joint arm beside it",
        "08_beyond",
    ),
    Claim(
        "std_ratio_scores",
        "The same for E_s . p",
        "discussion",
        "authors' rebuttal to reviewer vwUg (Q3)",
        f"about {pn.ONE_STEP_STD_RATIO_SCORES:.0f}x",
        None,
        (CONVERGED, real_record("one_layer"), real_record("one_layer", "one_step_frozen")),
        converged_std_ratio("scores"),
        show_converged_ratio,
        WithinFactor(pn.ONE_STEP_STD_RATIO_SCORES, 1.5, at_plateau=True),
        "as above, for E_s . p",
        "08_beyond",
    ),
    Claim(
        "joint_values",
        "With all embeddings trained to convergence, E_s . v still increases with the token's importance",
        "discussion",
        "reviewer vwUg's summary of the experiments; the authors' reply (Q1) calls the theory well aligned with them",
        "",
        None,
        (CONVERGED, real_record("one_layer")),
        converged_shape("values"),
        show_converged_shape,
        ShapeIs("increasing"),
        f"{_ONE_LAYER}, jointly trained to the end of the longest budget at which every seed's training loss reached "
        f"its plateau, else of the longest budget (the last epoch kept, no early stopping; every seed), the "
        f"early-stopped arm beside it; {_SHAPE_PROTOCOL}",
        "06_imdb",
    ),
    Claim(
        "joint_scores",
        "The one-layer model's E_s . p is high for tokens of either sign (U-shaped): not stated by the sources, our "
        "reading of the rebuttal's tables for the W_KQ and MLP models",
        "inferred",
        "our reading of the authors' tables to reviewers q6jg (Q2) and E1M4 (Q4); no source states it for one layer",
        "",
        None,
        (real_record("one_layer"),),
        shape_verdict(real_record("one_layer"), "scores"),
        show_shape,
        ShapeIs("U-shaped"),
        f"{_ONE_LAYER}; {_SHAPE_PROTOCOL}",
        "06_imdb",
    ),
    Claim(
        "key_query_scores",
        "Key-query matrices in both layers: p . W2 E_s is U-shaped",
        "discussion",
        "authors' rebuttal to reviewer q6jg (Q2)",
        "table of 20 bin means",
        (pn.REBUTTAL_BIN_CENTRES, pn.REBUTTAL_KEY_QUERY["scores"]),
        (real_record("key_query"),),
        shape_verdict(real_record("key_query"), "scores"),
        show_shape,
        ShapeIs("U-shaped"),
        f"{_KQ}; {_SHAPE_PROTOCOL}",
        "08b_models",
    ),
    Claim(
        "key_query_values",
        "Key-query matrices in both layers: E_s . v increases with importance",
        "discussion",
        "authors' rebuttal to reviewer q6jg (Q2)",
        "table of 20 bin means",
        (pn.REBUTTAL_BIN_CENTRES, pn.REBUTTAL_KEY_QUERY["values"]),
        (real_record("key_query"),),
        shape_verdict(real_record("key_query"), "values"),
        show_shape,
        ShapeIs("increasing"),
        f"{_KQ}; {_SHAPE_PROTOCOL}",
        "08b_models",
    ),
    Claim(
        "mlp_scores",
        "An MLP after the attention: E_s . p still tracks importance (the rebuttal says it increases "
        "with alpha_s; its table over the posterior gap is U-shaped)",
        "discussion",
        "authors' rebuttal to reviewer E1M4 (Q4)",
        "table of 20 bin means",
        (pn.REBUTTAL_BIN_CENTRES, pn.REBUTTAL_MLP["scores"]),
        (real_record("mlp"),),
        shape_verdict(real_record("mlp"), "scores"),
        show_shape,
        ShapeIs("U-shaped"),
        f"attention + residual MLP (ours, chapter 8b); {_SHAPE_PROTOCOL}",
        "08b_models",
    ),
    Claim(
        "mlp_values",
        "An MLP after the attention: the monotonicity of E_s . v is less evident",
        "discussion",
        "authors' rebuttal to reviewer E1M4 (Q4)",
        "table of 20 bin means",
        (pn.REBUTTAL_BIN_CENTRES, pn.REBUTTAL_MLP["values"]),
        (real_record("mlp"), real_record("one_layer")),
        weaker,
        show_spearman,
        WeakerTrend("the one-layer model"),
        "Spearman interval of E_s . v in the MLP model against the one-layer model's, same data",
        "08b_models",
    ),
    Claim(
        "yelp_stars",
        "4-class Yelp: E_s . v_k increases with the class-k importance",
        "discussion",
        "authors' rebuttal to reviewer E1M4 (Q2)",
        "tables for classes 2 and 4 (19 bins each); class 4 shown",
        pn.REBUTTAL_YELP_STARS[4],
        (real_record("multiclass", dataset="yelp_stars"),),
        worst_class,
        show_shape,
        ShapeIs("increasing"),
        "K = 4 star classes of Yelp (1, 2, 4, 5 stars; offline, the local star-rated stand-in); worst class",
        "08b_models",
    ),
)
"""Every scored claim, in the order of the report."""
