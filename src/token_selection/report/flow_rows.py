"""What the report's selection, max-margin and global rows read: shares of the seed sweep under the gradient flow.

The abstract's claims and the global claim are about gradient flow, so the rows are scored on the finest
discretisation of the flow in the ``flow_seed_sweep`` record (an adaptive solver, checked against a second one),
with the count of the same seeds under normalised GD with unit steps beside it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..studies.flow_seed_sweep import RECORD as FLOW_RECORD
from .measures import Records, share_interval, show_share

REFERENCE_D = 512
"""Dimension of the course's reference case, where the abstract's selection and max-margin rows are scored."""
GLOBAL_DIMENSIONS = (512, 2048)
"""Dimensions of the seed sweep the global claim is scored at: the reference case's and the paper's."""
COARSE = "euler_1"
"""The discretisation shown beside the flow's count: normalised GD with steps of length 1 (chapters 4 and 4b)."""
TESTS = ("selects", "reached", "reached_given_selects")
"""What a share counts: every sequence selects its relevant token; that and cos(p, p_mm) at least the threshold;
the latter among the seeds that select (the max-margin claim read as conditional on the selection)."""


def flow_share(test: str, d: int) -> Callable[[Records], dict[str, Any]]:
    """The share of the flow sweep's seeds at dimension ``d`` that pass ``test`` (one of ``TESTS``) under the finest
    discretisation, with its Wilson 95% interval, ``d``, the discretisation's name ("flow") and, under "coarse", the
    same share with unit steps. ValueError names a test or a dimension the record does not hold."""
    if test not in TESTS:
        raise ValueError(f"test must be one of {TESTS}, got {test!r}")

    def read(records: Records) -> dict[str, Any]:
        metrics = records[FLOW_RECORD]
        if f"d{d}" not in metrics:
            held = sorted(int(key[1:]) for key in metrics if key.startswith("d") and key[1:].isdigit())
            raise ValueError(f"the flow sweep has no d = {d}; it holds d = {held}")
        entry, finest = metrics[f"d{d}"], metrics["discretisations"][-1]

        def share(name: str) -> dict[str, Any]:
            counted = entry[name]["counts"][test]
            return share_interval(counted["passed"], counted["trials"])

        return {**share(finest), "d": d, "flow": finest, "coarse": share(COARSE), "settled": not entry["changed_seeds"]}

    return read


def show_flow_share(value: dict[str, Any]) -> str:
    """A share under the flow at its d, then the unit-step count of the same seeds, e.g. ``54 of 100 seeds (54 %,
    Wilson 95% [44, 63] %) at d = 512 under the flow; unit steps: 90 of 100``."""
    coarse = value["coarse"]
    settled = "" if value["settled"] else " (the two solvers disagree on some seeds)"
    return f"{show_share(value)} at d = {value['d']} under the flow{settled}; unit steps: {coarse['passed']} of {coarse['n']}"


def global_shares(records: Records) -> list[dict[str, Any]]:
    """For each of ``GLOBAL_DIMENSIONS``: the share of seeds whose p selects every relevant token and reaches p_mm."""
    return [flow_share("reached", d)(records) for d in GLOBAL_DIMENSIONS]


def show_global_shares(value: list[dict[str, Any]]) -> str:
    """Each dimension's share with its own interval and unit-step count, separated by semicolons."""
    return "; ".join(show_flow_share(share) for share in value)
