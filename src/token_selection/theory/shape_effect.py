"""Reading a shape verdict with its effect size and a control: when is a significant shape a finding?

``classify_shape`` decides by significance: over thousands of tokens, a rank correlation of
-0.03 is significant, and a curve whose arms correlate at -0.07 and +0.07 passes as a U. The
rebuttal's tables are judged on 20 bins, where only large effects are significant. So the
course reads every verdict in three steps (the thresholds are the course's choices):

1. **Effect size.** A U's effect is its weaker arm, ``min(-left_spearman, right_spearman)``;
   an increasing (decreasing) curve's is its Spearman correlation (its negative). A flat
   verdict has none.
2. **Minimum effect.** A shape whose effect is below ``MIN_EFFECT`` reads as flat: it is
   significant but too weak to call a shape. ``MIN_EFFECT = 0.2`` is a rank correlation
   between Cohen's "small" (0.1) and "medium" (0.3).
3. **Control.** Where a control run exists (the same model with ``E`` frozen at random: no
   step, no training of ``E``), the shape must also beat the control's effect for the same
   shape, measured the same way, or it reads as "not distinguishable from the control".

A reading whose effect is unknown (a record that did not keep a seed's arm correlations)
keeps its tested shape but is not counted as cleared.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..results import seed_shapes, shape_counts
from .shape import SHAPES

MIN_EFFECT = 0.2
"""Smallest effect (a rank correlation: the weaker arm of a U, or the Spearman of a monotone curve) read as a shape."""
CONTROL = "no stronger than the control"
"""The reading of a shape that clears the minimum but not the control's effect."""


def effect_size(verdict: Mapping[str, Any], shape: str | None = None) -> float:
    """The effect of ``shape`` (default: the verdict's own) in a verdict dict (``ShapeVerdict.as_dict()`` or less).

    U-shaped: the weaker arm ``min(-left_spearman, right_spearman)``, which is 0 where the fit had
    no interior minimum (NaN arms) and NaN where the arms were not kept (keys absent);
    increasing: ``spearman``; decreasing: ``-spearman``; flat: 0.
    """
    shape = verdict["shape"] if shape is None else shape
    if shape not in SHAPES:
        raise ValueError(f"shape must be one of {SHAPES}, got {shape!r}")
    if shape == "flat":
        return 0.0
    if shape == "U-shaped":
        if "left_spearman" not in verdict or "right_spearman" not in verdict:
            return math.nan
        left, right = float(verdict["left_spearman"]), float(verdict["right_spearman"])
        if math.isnan(left) or math.isnan(right):
            return 0.0
        return min(-left, right)
    rho = float(verdict["spearman"])
    return rho if shape == "increasing" else -rho


@dataclass(frozen=True)
class ShapeReading:
    """A verdict read with its effect size and, where there is one, a control's.

    tested: the significance verdict's shape; effect: its effect size (NaN: not kept);
    minimum: the minimum effect; control_effect: the control's effect for the same shape
    (None: no control; NaN: the control's arms were not kept).
    """

    tested: str
    effect: float
    minimum: float = MIN_EFFECT
    control_effect: float | None = None

    @property
    def known(self) -> bool:
        """Whether the effect (and the control's, where there is a control) is known."""
        control_known = self.control_effect is None or not math.isnan(self.control_effect)
        return self.tested == "flat" or (not math.isnan(self.effect) and control_known)

    @property
    def clears_minimum(self) -> bool:
        return self.tested != "flat" and self.effect >= self.minimum

    @property
    def clears_control(self) -> bool:
        """True without a control; else whether the effect exceeds the control's."""
        return self.control_effect is None or self.effect > self.control_effect

    @property
    def shape(self) -> str:
        """The reading: the tested shape when it clears the minimum and the control; "flat" when its effect is
        below the minimum; ``CONTROL`` when it clears the minimum only; the tested shape when the effect is unknown."""
        if not self.known:
            return self.tested
        if not self.clears_minimum:
            return "flat"
        return self.tested if self.clears_control else CONTROL

    @property
    def cleared(self) -> bool:
        """Whether the tested shape stands: known, above the minimum and above the control."""
        return self.known and self.tested != "flat" and self.shape == self.tested

    def describe(self) -> str:
        """The reading in words, with the numbers behind it, e.g. "flat (U-shaped by significance, effect 0.07 < 0.2)"."""
        if self.tested == "flat":
            return "flat"
        if not self.known:
            return f"{self.tested} (effect not kept in this record)"
        control = "" if self.control_effect is None else f", control {self.control_effect:.2f}"
        if self.shape == self.tested:
            return f"{self.tested} (effect {self.effect:.2f}{control})"
        if self.shape == "flat":
            return f"flat ({self.tested} by significance, effect {self.effect:.2f} < {self.minimum:g})"
        return f"no more than the control ({self.tested}, effect {self.effect:.2f}{control})"


def read_shape(
    verdict: Mapping[str, Any], control: Mapping[str, Any] | None = None, *, minimum: float = MIN_EFFECT
) -> ShapeReading:
    """Read ``verdict`` (a dict with ``shape``, ``spearman`` and, for a U, the arms) against an optional
    ``control`` verdict of the same quantity, with the minimum effect ``minimum`` in (0, 1]."""
    if not 0 < minimum <= 1:
        raise ValueError(f"minimum must lie in (0, 1] (a rank correlation), got {minimum}")
    tested = verdict["shape"]
    effect = effect_size(verdict)
    control_effect = None if control is None else effect_size(control, tested)
    return ShapeReading(tested=tested, effect=effect, minimum=minimum, control_effect=control_effect)


# --- the verdicts a results record keeps, per seed ------------------------------------------------


def curve_at(metrics: dict[str, Any], quantity: str) -> dict[str, Any]:
    """The curve ``quantity`` of a record's metrics: ``"values"``, ``"scores"`` or ``"classes.k"``."""
    if quantity.startswith("classes."):
        return metrics["classes"][int(quantity.split(".")[1])]
    if quantity not in ("values", "scores"):
        raise ValueError(f"quantity must be 'values', 'scores' or 'classes.<k>', got {quantity!r}")
    return metrics[quantity]


def seed_verdicts(metrics: dict[str, Any], quantity: str) -> list[dict[str, Any]]:
    """One verdict dict per seed (``shape``, ``spearman`` and, where kept, ``left_spearman``, ``right_spearman``).

    Seed 0's comes whole from the record's curve; the others from ``per_seed`` (arms only where the
    record kept them, so a missing key means "not kept", never "no interior minimum").
    """
    curve, per = curve_at(metrics, quantity), metrics.get("per_seed", {})
    shapes = per.get(f"{quantity}.shape") or [curve["shape"]]
    rhos = per.get(f"{quantity}.verdict.spearman")
    if rhos is None:  # a record that kept seed 0's correlation alone: the others' effects are unknown
        rhos = [curve["verdict"]["spearman"]] + [math.nan] * (len(shapes) - 1)
    lefts, rights = per.get(f"{quantity}.verdict.left_spearman"), per.get(f"{quantity}.verdict.right_spearman")
    if len(rhos) != len(shapes):
        raise ValueError(f"record keeps {len(shapes)} shapes but {len(rhos)} correlations for {quantity}")
    verdicts = []
    for k, (shape, rho) in enumerate(zip(shapes, rhos, strict=True)):
        verdict = {"shape": shape, "spearman": float(rho)}
        if lefts is not None and rights is not None:
            verdict |= {"left_spearman": float(lefts[k]), "right_spearman": float(rights[k])}
        elif k == 0 and "left_spearman" in curve["verdict"] and "right_spearman" in curve["verdict"]:
            verdict |= {key: float(curve["verdict"][key]) for key in ("left_spearman", "right_spearman")}
        verdicts.append(verdict)
    return verdicts


def shape_cell(metrics: dict[str, Any], quantity: str) -> str | None:
    """A shape column's cell: each seed's shape read with its effect size (a significant shape whose effect is below
    the minimum reads flat), every reading with its count (the most common first: no seed is singled out), and where
    the significance verdicts differ from the readings, theirs beside it, counted the same way; None when the record
    keeps no verdict of ``quantity``."""
    curve = metrics.get(quantity)
    if not isinstance(curve, dict) or "verdict" not in curve or "shape" not in curve:
        return None
    verdicts = seed_verdicts(metrics, quantity)
    tested = [v["shape"] for v in verdicts]
    readings = [read_shape(v).shape for v in verdicts]
    text = seed_shapes(readings)
    if readings != tested:
        if len(tested) == 1:
            text += f"; by significance alone {tested[0]}"
        else:  # every tested shape with its count, the most common first
            text += f"; by significance alone {shape_counts(tested, most_common_first=True)}"
    return text
