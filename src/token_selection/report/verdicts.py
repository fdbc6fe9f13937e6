"""Verdict rules of the reproduction report: how our number for a claim becomes a verdict.

Each rule is stated in words by ``describe`` (the report prints it next to the claim) and
applied by ``judge``, which returns the verdict and one sentence of why. The thresholds are
the course's choices; the report page states them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

VERDICTS = ("reproduced", "partly", "not reproduced", "not run")

Judgement = tuple[str, str]


@dataclass(frozen=True)
class AtLeast:
    """Reproduced when the number is at least ``threshold``."""

    threshold: float

    def describe(self) -> str:
        return f"reproduced if ours >= {self.threshold:g}, else not reproduced"

    def judge(self, value: float) -> Judgement:
        if value >= self.threshold:
            return "reproduced", f"{value:.3g} >= {self.threshold:g}"
        return "not reproduced", f"{value:.3g} < {self.threshold:g}"


@dataclass(frozen=True)
class Within:
    """Reproduced when the number lies within ``tolerance`` of the paper's ``paper``; partly within twice that."""

    paper: float
    tolerance: float

    def describe(self) -> str:
        return (
            f"reproduced if within {self.tolerance:g} of {self.paper:g}, partly if within {2 * self.tolerance:g}, "
            "else not reproduced"
        )

    def judge(self, value: float) -> Judgement:
        distance = abs(value - self.paper)
        if distance <= self.tolerance:
            return "reproduced", f"|{value:.3g} - {self.paper:g}| <= {self.tolerance:g}"
        if distance <= 2 * self.tolerance:
            return "partly", f"|{value:.3g} - {self.paper:g}| <= {2 * self.tolerance:g}"
        return "not reproduced", f"|{value:.3g} - {self.paper:g}| > {2 * self.tolerance:g}"


@dataclass(frozen=True)
class WithinFactor:
    """A ratio above 1: reproduced within a factor ``factor`` of the paper's ``paper``; partly when only above 1."""

    paper: float
    factor: float

    def describe(self) -> str:
        low, high = self.paper / self.factor, self.paper * self.factor
        return f"reproduced if between {low:.3g} and {high:.3g} (a factor {self.factor:g} of {self.paper:g}), partly if > 1"

    def judge(self, value: float) -> Judgement:
        if self.paper / self.factor <= value <= self.paper * self.factor:
            return "reproduced", f"{value:.3g} is within a factor {self.factor:g} of {self.paper:g}"
        if value > 1:
            return "partly", f"{value:.3g} > 1 (the direction holds) but not within a factor {self.factor:g} of {self.paper:g}"
        return "not reproduced", f"{value:.3g} <= 1"


@dataclass(frozen=True)
class PositiveInterval:
    """Reproduced when the lower end of the number's interval (a dict with ``value``, ``low``, ``high``) is above 0."""

    def describe(self) -> str:
        return "reproduced if the 95% interval lies above 0, else not reproduced"

    def judge(self, value: dict[str, float]) -> Judgement:
        shown = f"{value['value']:.3g} [{value['low']:.3g}, {value['high']:.3g}]"
        if value["low"] > 0:
            return "reproduced", f"{shown} lies above 0"
        return "not reproduced", f"{shown} reaches 0"


@dataclass(frozen=True)
class ShapeIs:
    """Reproduced when ``classify_shape`` (a verdict dict with key ``shape``) finds the claimed ``shape``."""

    shape: str

    def describe(self) -> str:
        return f"reproduced if the shape rule finds '{self.shape}', else not reproduced"

    def judge(self, value: dict[str, Any]) -> Judgement:
        if value["shape"] == self.shape:
            return "reproduced", f"the shape rule finds '{value['shape']}'"
        return "not reproduced", f"the shape rule finds '{value['shape']}', not '{self.shape}'"


@dataclass(frozen=True)
class WeakerTrend:
    """Compares two Spearman intervals (a dict with ``ours`` and ``reference``, each ``[low, high]``).

    Reproduced when ours lies wholly below the reference's; partly when only its midpoint is lower.
    """

    reference: str

    def describe(self) -> str:
        return (
            f"reproduced if the Spearman interval lies wholly below that of {self.reference}, partly if only its "
            "midpoint is lower, else not reproduced"
        )

    def judge(self, value: dict[str, list[float]]) -> Judgement:
        ours, reference = value["ours"], value["reference"]
        shown = f"[{ours[0]:+.2f}, {ours[1]:+.2f}] against [{reference[0]:+.2f}, {reference[1]:+.2f}]"
        if ours[1] < reference[0]:
            return "reproduced", f"{shown}: wholly below"
        if sum(ours) < sum(reference):
            return "partly", f"{shown}: lower, but the intervals overlap"
        return "not reproduced", f"{shown}: not lower"


Rule = AtLeast | Within | WithinFactor | PositiveInterval | ShapeIs | WeakerTrend


def judge(rule: Rule, value: Any) -> Judgement:
    """``rule.judge(value)``, or ("not run", why) when value is None."""
    if value is None:
        return "not run", "no record at this scale"
    return rule.judge(value)
