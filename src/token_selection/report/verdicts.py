"""Verdict rules of the reproduction report: how our number for a claim becomes a verdict.

Each rule is stated in words by ``describe`` (the report prints it next to the claim) and
applied by ``judge``, which returns the verdict and one sentence of why. The thresholds are
the course's choices; the report page states them. A number measured over several seeds
is judged by its 95% seed interval: a row is reproduced only when the whole interval
supports the claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..intervals import as_interval, show_interval
from ..results import shape_counts

Number = float | dict
"""A number, or a seed interval (``intervals.seed_interval``): rules judge the interval, not only its mean."""


VERDICTS = ("reproduced", "partly", "not reproduced", "not tested", "not run")
"""Every verdict a row can get. "not tested": our model cannot test the claim (a claim about what attention selects,
on a model whose attention selects nothing); it counts neither for nor against the paper."""

Judgement = tuple[str, str]


@dataclass(frozen=True)
class AtLeast:
    """Reproduced when the number is at least ``threshold``."""

    threshold: float

    def describe(self) -> str:
        return (
            f"reproduced if ours (the lower end of its seed interval) >= {self.threshold:g}, partly if only the mean is, "
            "else not reproduced"
        )

    def judge(self, value: Number) -> Judgement:
        interval = as_interval(value)
        shown = show_interval(interval)
        if interval["low"] >= self.threshold:
            return "reproduced", f"{shown} >= {self.threshold:g}"
        if interval["value"] >= self.threshold:
            return "partly", f"{shown}: the mean is >= {self.threshold:g}, the interval reaches below"
        return "not reproduced", f"{shown} < {self.threshold:g}"


@dataclass(frozen=True)
class Within:
    """Reproduced when the number lies within ``tolerance`` of the paper's ``paper``; partly within twice that."""

    paper: float
    tolerance: float

    def describe(self) -> str:
        return (
            f"reproduced if the seed interval lies within {self.tolerance:g} of {self.paper:g}, partly if it reaches "
            f"within {2 * self.tolerance:g}, else not reproduced"
        )

    def judge(self, value: Number) -> Judgement:
        interval = as_interval(value)
        shown, low, high = show_interval(interval), interval["low"], interval["high"]
        if self.paper - self.tolerance <= low and high <= self.paper + self.tolerance:
            return "reproduced", f"{shown} lies within {self.tolerance:g} of {self.paper:g}"
        if high >= self.paper - 2 * self.tolerance and low <= self.paper + 2 * self.tolerance:
            return "partly", f"{shown} reaches within {2 * self.tolerance:g} of {self.paper:g}"
        return "not reproduced", f"{shown} lies further than {2 * self.tolerance:g} from {self.paper:g}"


@dataclass(frozen=True)
class WithinFactor:
    """A ratio above 1: reproduced within a factor ``factor`` of the paper's ``paper``; partly when only above 1.

    ``at_convergence``: the claim compares with training to convergence, and the value says whether its budget is one
    at which every seed of the arms read met the convergence rule (``converged``, with the ratio at every budget in
    ``by_budget``): without it a ratio within the factor is only partly reproduced, since it is the size at one
    training length, not at convergence.
    """

    paper: float
    factor: float
    at_convergence: bool = False

    def describe(self) -> str:
        low, high = self.paper / self.factor, self.paper * self.factor
        text = (
            f"reproduced if the seed interval lies between {low:.3g} and {high:.3g} (a factor {self.factor:g} of "
            f"{self.paper:g}), partly if it lies above 1, else not reproduced"
        )
        if self.at_convergence:
            text += "; partly at most when no training budget is one where every seed converged (no converged value)"
        return text

    def judge(self, value: Number) -> Judgement:
        interval = as_interval(value)
        shown = show_interval(interval)
        if self.paper / self.factor <= interval["low"] and interval["high"] <= self.paper * self.factor:
            if self.at_convergence and not interval["converged"]:
                budgets = ", ".join(f"{ratio:.3g} after {b}" for b, ratio in interval.get("by_budget", {}).items())
                grows = f" (seed means {budgets} epochs)" if budgets else ""
                return "partly", (
                    f"{shown} is within a factor {self.factor:g} of {self.paper:g}, but at no training budget did every "
                    f"seed converge: a size at one training length{grows}, not at convergence"
                )
            return "reproduced", f"{shown} is within a factor {self.factor:g} of {self.paper:g}"
        if interval["low"] > 1:
            return "partly", f"{shown} > 1 (the direction holds) but not within a factor {self.factor:g} of {self.paper:g}"
        return "not reproduced", f"{shown} is not above 1"


@dataclass(frozen=True)
class PositiveInterval:
    """Reproduced when the lower end of the number's interval (a dict with ``value``, ``low``, ``high``) is above 0.

    With the paper's number (``paper``) the reason says that only the direction is judged, never the size.
    """

    paper: float | None = None
    """The paper's own number, when it gives one: shown beside the verdict, not judged (the claim is the sign)."""

    def describe(self) -> str:
        size = "" if self.paper is None else f"; the size is not scored (the paper's is {self.paper:g})"
        return f"reproduced if the 95% interval lies above 0, else not reproduced{size}"

    def judge(self, value: dict[str, float]) -> Judgement:
        shown = show_interval(value, basis="95% interval")
        size = "" if self.paper is None else f": the direction is reproduced, not the size (the paper's {self.paper:g})"
        if value["low"] > 0:
            return "reproduced", f"{shown} lies above 0{size}"
        return "not reproduced", f"{shown} reaches 0"


@dataclass(frozen=True)
class ShapeIs:
    """Reproduced when every seed's shape, read with its effect size (``theory.shape_effect``: a significant shape
    whose effect is below the minimum reads as flat), is the claimed ``shape``; partly for some seeds.

    The value is a verdict dict with ``shape`` and, per seed, ``shapes`` (tested) and ``readings``; a record without
    readings is judged on its tested shapes. A model whose attention is near uniform (``selects`` false for a seed)
    does not count for the claimed shape of its scores: there is no selection to read.
    """

    shape: str

    def describe(self) -> str:
        return (
            f"reproduced if the shape rule, read with its effect size, finds '{self.shape}' for every seed whose "
            "attention selects, partly for some, else not reproduced; a seed whose attention is near uniform does not "
            "count, and when no seed's attention selects the claim is not tested"
        )

    def judge(self, value: dict[str, Any]) -> Judgement:
        tested = list(value.get("shapes") or [value["shape"]])
        readings = list(value.get("readings") or tested)
        chooses = list(value.get("selects") or [True] * len(readings))
        if len(chooses) < len(readings):  # a record that kept seed 0's spread alone: the others are not judged on it
            chooses += [True] * (len(readings) - len(chooses))
        counted = sum(chooses)
        seeds = f"{len(readings)} seed{'s' if len(readings) > 1 else ''}"
        if not counted:
            return "not tested", f"our model does not select: its attention is near uniform in all {seeds}"
        agree = sum(r == self.shape and c for r, c in zip(readings, chooses, strict=True))
        found = shape_counts(readings)
        weak = sum(t != r for t, r in zip(tested, readings, strict=True))
        notes = f" ({weak} below the minimum effect)" if weak else ""
        uniform = len(chooses) - counted
        if uniform:
            notes += f"; attention near uniform in {uniform} seed{'s' if uniform > 1 else ''}, not counted"
        if agree == counted:
            return "reproduced", f"the shape rule finds '{self.shape}' ({found} of {seeds}){notes}"
        if agree:
            return "partly", f"the shape rule finds {found} of {seeds}{notes}"
        return "not reproduced", f"the shape rule finds {found} of {seeds}, not '{self.shape}'{notes}"


@dataclass(frozen=True)
class WeakerTrend:
    """Compares two Spearman intervals (a dict with ``ours`` and ``reference``, each ``[low, high]``) and, where
    given, the Spearman of each model's 20 bin means (``bins``: [ours, reference]).

    Over tokens: reproduced when ours lies wholly below the reference's; partly when only its midpoint is lower.
    With bins, the rebuttal's reading (its tables are 20 bin means) must agree: a trend wholly lower over tokens
    whose bin means are no less monotone than the reference's is only partly reproduced.
    """

    reference: str

    def describe(self) -> str:
        return (
            f"reproduced if the Spearman interval lies wholly below that of {self.reference} and the Spearman of the "
            "20 bin means is lower too; partly if only one of them is lower, else not reproduced"
        )

    def judge(self, value: dict[str, list[float]]) -> Judgement:
        ours, reference = value["ours"], value["reference"]
        shown = f"[{ours[0]:+.2f}, {ours[1]:+.2f}] against [{reference[0]:+.2f}, {reference[1]:+.2f}]"
        tokens = (
            "wholly below"
            if ours[1] < reference[0]
            else ("lower, but the intervals overlap" if sum(ours) < sum(reference) else "not lower")
        )
        if "bins" in value:
            ours_bins, reference_bins = value["bins"]
            lower_bins = ours_bins < reference_bins
            shown += (
                f" over tokens ({tokens}); on the 20 bin means {ours_bins:+.2f} against {reference_bins:+.2f} "
                f"({'lower' if lower_bins else 'not lower: the bin means are as monotone'})"
            )
            lower_tokens = ours[1] < reference[0]
            if lower_tokens and lower_bins:
                return "reproduced", shown
            if lower_tokens or lower_bins:
                return "partly", shown
            return "not reproduced", shown
        if ours[1] < reference[0]:
            return "reproduced", f"{shown}: wholly below"
        if sum(ours) < sum(reference):
            return "partly", f"{shown}: lower, but the intervals overlap"
        return "not reproduced", f"{shown}: not lower"


@dataclass(frozen=True)
class ShareOfSeeds:
    """A claim that should hold for every seed, judged on the share of seeds that pass (``intervals.share_interval``).

    The value is one share or a list of them (one per dimension); the weakest share decides.
    Reproduced when that share is at least ``reproduced`` (1: every seed), partly when it is at
    least ``partly``, else not reproduced. The Wilson interval is shown, not judged: it says how
    well the seeds pin the share.
    """

    reproduced: float = 1.0
    partly: float = 0.5

    def __post_init__(self) -> None:
        if not 0.0 <= self.partly <= self.reproduced <= 1.0:
            raise ValueError(f"need 0 <= partly <= reproduced <= 1, got partly={self.partly}, reproduced={self.reproduced}")

    def describe(self) -> str:
        every = "every seed passes" if self.reproduced == 1 else f"at least {self.reproduced:.0%} of the seeds pass"
        return (
            f"reproduced if {every} (at each dimension measured), partly if at least {self.partly:.0%} of the seeds "
            "do, else not reproduced; the Wilson 95% interval of the share is shown beside it"
        )

    def judge(self, value: dict | list[dict]) -> Judgement:
        shares = value if isinstance(value, list) else [value]
        if not shares:
            raise ValueError("ShareOfSeeds needs at least one share")
        weakest = min(shares, key=lambda share: share["value"])
        where = f" at d = {weakest['d']}" if "d" in weakest and len(shares) > 1 else ""
        shown = f"{weakest['passed']} of {weakest['n']} seeds pass{where}"
        if weakest["value"] >= self.reproduced:
            if len(shares) > 1:
                each = ", ".join(f"{s['passed']} of {s['n']}" + (f" at d = {s['d']}" if "d" in s else "") for s in shares)
                return "reproduced", f"{each} seeds pass"
            return "reproduced", shown
        if weakest["value"] >= self.partly:
            share = f"a share of {weakest['value']:.0%}"
            return "partly", f"{shown}: {share} is at least {self.partly:.0%}, below {self.reproduced:.0%}"
        return "not reproduced", f"{shown}: a share of {weakest['value']:.0%} is below {self.partly:.0%}"


@dataclass(frozen=True)
class NoCounterexample:
    """A claim that excludes every other outcome (no limit but one is possible), judged on the seeds.

    The value is one share or a list of them (one per dimension), as for ``ShareOfSeeds``. Reproduced when every seed
    passes at each dimension; a seed that fails is a counterexample, and the claim is not reproduced, however many
    others pass. The share and its Wilson interval are shown, not judged.
    """

    def describe(self) -> str:
        return (
            "reproduced if every seed passes (at each dimension measured); a seed that fails is a counterexample to a "
            "claim that excludes every other end, and the claim is not reproduced; the Wilson 95% interval of the "
            "share is shown beside it"
        )

    def judge(self, value: dict | list[dict]) -> Judgement:
        shares = value if isinstance(value, list) else [value]
        if not shares:
            raise ValueError("NoCounterexample needs at least one share")
        failing = [share for share in shares if share["passed"] < share["n"]]
        if not failing:
            return ShareOfSeeds().judge(value)
        each = ", ".join(f"{s['n'] - s['passed']} of {s['n']}" + (f" at d = {s['d']}" if "d" in s else "") for s in failing)
        return "not reproduced", f"{each} seeds fail: each is a counterexample"


Rule = AtLeast | Within | WithinFactor | PositiveInterval | ShapeIs | WeakerTrend | ShareOfSeeds | NoCounterexample


def judge(rule: Rule, value: Any) -> Judgement:
    """``rule.judge(value)``, or ("not run", why) when value is None."""
    if value is None:
        return "not run", "no record at this scale"
    return rule.judge(value)
