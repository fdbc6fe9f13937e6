"""Flow-sweep metrics for the report's tests: uneven seed counts per dimension, the four discretisations."""

from __future__ import annotations

NAMES = ["euler_1", "euler_10", "rk45", "dop853"]


def _counted(passed: int, trials: int) -> dict:
    return {"passed": passed, "trials": trials, "ci95": None}


def column(trials: int, selects: int, reached: int) -> dict:
    """One discretisation's counts: ``selects`` and ``reached`` of ``trials`` seeds, every reaching seed selecting."""
    return {
        "counts": {
            "selects": _counted(selects, trials),
            "reached": _counted(reached, trials),
            "reached_given_selects": _counted(reached, selects),
        }
    }


def flow_metrics(
    d512: tuple[int, int, int], d2048: tuple[int, int, int], *, coarse: tuple[int, int] = (0, 0), changed: list[int] | None = None
) -> dict:
    """A flow record's metrics: (trials, selects, reached) under the finest solver at each d; ``coarse`` gives (selects,
    reached) with unit steps at both d (as given, never equal to the flow's unless asked); ``changed``: seeds on which
    the two finest disagree at d = 512. The other discretisations carry decoy counts of 0."""
    out: dict = {"discretisations": NAMES}
    for d, (trials, selects, reached) in ((512, d512), (2048, d2048)):
        entry = {name: column(trials, 0, 0) for name in NAMES}
        entry["dop853"] = column(trials, selects, reached)
        entry["euler_1"] = column(trials, *coarse) if coarse != (0, 0) else column(trials, trials, trials)
        entry["changed_seeds"] = list(changed or []) if d == 512 else []
        out[f"d{d}"] = entry
    return out
