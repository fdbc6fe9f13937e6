"""The two one-layer arms trained to the end of the same budgets, as one tidy table, and the report's readings of it.

    table = converged_table(read_record(CONVERGED, "full")["metrics"], read_record(CONVERGED_ONE_STEP, "full")["metrics"])
    ratios(table, "values", "raw")          # budget x seed: joint spread over the one-step spread of the same seed

The table has one row per (arm, budget, seed): no seed is special. Every reading of "at convergence" takes its budget
from :func:`converged_budget`, by the convergence rule of ``real_data.converged`` (fitted or settled), applied to each
arm it reads, and says how many seeds of each arm met it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd

from ..intervals import seed_interval
from ..real_data.converged import convergence
from ..theory.shape_effect import read_shape
from .measures import Records, per_seed, real_record, shape_verdict, std_ratio, weaker

CONVERGED = "diagnosis-converged_joint"
"""Joint training to the end of each budget, the last epoch kept: one point per budget and seed."""
CONVERGED_ONE_STEP = "diagnosis-converged_one_step"
"""One step on E, then p and v trained to the end of the same budgets from the same seeds, the last epoch kept."""
ARMS = {"joint": CONVERGED, "one_step": CONVERGED_ONE_STEP}
"""The arm of each record, as the table names it, and the key of its points in the record's metrics."""
READINGS = ("raw", "scale_free")
"""The two readings of a per-bin spread every page quotes together: raw, and over the curve's overall std."""


def converged_table(joint: dict[str, Any], one_step: dict[str, Any] | None = None) -> pd.DataFrame:
    """One row per (arm, budget, seed) of the records' metrics ``joint`` and ``one_step`` (None: the joint arm alone).

    Columns: arm, budget (int), seed, convergence ("fitted", "settled" or "moving"), test_accuracy, p_norm, and per
    quantity (values, scores) and reading (raw, scale_free) ``<quantity>_<reading>``. ValueError for metrics without
    one point per seed in every budget.
    """
    rows = []
    arms = [(arm, metrics) for arm, metrics in (("joint", joint), ("one_step", one_step)) if metrics is not None]
    for arm, metrics in arms:
        seeds = metrics.get("seeds")
        points = metrics.get(arm)
        if not isinstance(seeds, list) or not isinstance(points, dict) or not points:
            raise ValueError(f"the {arm} arm's metrics need 'seeds' and '{arm}': budget -> one point per seed")
        for budget, runs in points.items():
            if len(runs) != len(seeds):
                raise ValueError(f"the {arm} arm holds {len(runs)} points at budget {budget} for {len(seeds)} seeds")
            for seed, run in zip(seeds, runs, strict=True):
                row = {"arm": arm, "budget": int(budget), "seed": seed, "convergence": convergence(run["train_loss"]),
                       "test_accuracy": run["test_accuracy"], "p_norm": run["p_norm"]}  # fmt: skip
                for quantity in ("values", "scores"):
                    for reading in READINGS:
                        row[f"{quantity}_{reading}"] = run[quantity][reading]
                rows.append(row)
    return pd.DataFrame(rows).sort_values(["arm", "budget", "seed"], ignore_index=True)


def converged_budget(table: pd.DataFrame, arms: tuple[str, ...] = ("joint", "one_step")) -> int | None:
    """The longest budget at which every seed of every arm in ``arms`` converged (fitted or settled), or None."""
    met = table[table["arm"].isin(arms)].assign(met=lambda t: t["convergence"] != "moving")
    every = met.groupby("budget")["met"].all()
    budgets = [int(b) for b, ok in every.items() if ok and set(met[met["budget"] == b]["arm"]) == set(arms)]
    return max(budgets) if budgets else None


def _reading_budget(table: pd.DataFrame, arms: tuple[str, ...]) -> tuple[int, bool]:
    """The budget a reading takes: :func:`converged_budget` of ``arms``, else the longest; and whether it converged."""
    chosen = converged_budget(table, arms)
    return (chosen, True) if chosen is not None else (int(table["budget"].max()), False)


def convergence_counts(table: pd.DataFrame, budget: int) -> dict[str, dict[str, int]]:
    """Per arm at ``budget``: how many seeds were fitted, settled and moving, and how many seeds there are (``n``)."""
    counts = {}
    for arm, group in table[table["budget"] == budget].groupby("arm"):
        found = group["convergence"].value_counts()
        counts[str(arm)] = {o: int(found.get(o, 0)) for o in ("fitted", "settled", "moving")} | {"n": len(group)}
    return counts


def ratios(table: pd.DataFrame, quantity: str, reading: str) -> pd.DataFrame:
    """Budget x seed: the joint arm's spread of ``quantity`` under ``reading`` over the one-step arm's, same budget and
    seed (the seeds both arms ran). ValueError when a one-step spread is not positive."""
    column = f"{quantity}_{reading}"
    wide = table.pivot_table(index=["budget", "seed"], columns="arm", values=column).dropna()
    if wide.empty or not {"joint", "one_step"} <= set(wide.columns):
        raise ValueError("no (budget, seed) was run by both arms")
    if (wide["one_step"] <= 0).any():
        raise ValueError(f"a one-step spread of {column} is not positive: no ratio")
    return (wide["joint"] / wide["one_step"]).unstack("seed")


def ratio_intervals(table: pd.DataFrame, quantity: str, reading: str) -> dict[int, dict]:
    """Per budget, the seed interval of :func:`ratios` (spreads are positive, so their ratio is at least 0)."""
    found = ratios(table, quantity, reading)
    return {int(b): seed_interval(row.dropna().tolist(), bounds=(0.0, float("inf"))) for b, row in found.iterrows()}


def converged_std_ratio(quantity: str) -> Callable[[Records], dict]:
    """The rebuttal's comparison on IMDB, both arms trained alike: the raw ratio of per-bin spreads at
    :func:`converged_budget` of both arms (else the longest budget), as a seed interval, with ``budget``,
    ``converged`` (whether both arms met the rule there), ``counts`` (:func:`convergence_counts`), ``scale_free`` (the
    scale-free ratio's interval at that budget), ``by_budget`` and ``scale_free_by_budget`` (seed means), and the
    early-stopped arms' raw ratio (``early_stopped``)."""
    early = std_ratio(quantity)

    def read(r: Records) -> dict:
        table = converged_table(r[CONVERGED], r[CONVERGED_ONE_STEP])
        budget, converged = _reading_budget(table, ("joint", "one_step"))
        raw, free = (ratio_intervals(table, quantity, reading) for reading in READINGS)
        return raw[budget] | {
            "budget": budget,
            "converged": converged,
            "counts": convergence_counts(table, budget),
            "scale_free": free[budget],
            "by_budget": {b: i["value"] for b, i in raw.items()},
            "scale_free_by_budget": {b: i["value"] for b, i in free.items()},
            "early_stopped": early(r),
        }

    return read


def converged_shape(quantity: str) -> Callable[[Records], dict]:
    """The shape of ``quantity`` for the joint arm at its :func:`converged_budget` (else the longest), every seed read
    with its effect size, as a verdict dict ``verdicts.ShapeIs`` and ``measures.show_shape`` read, with ``budget``,
    ``converged``, ``counts`` and the early-stopped joint arm's verdict (``early_stopped``)."""
    early = shape_verdict(real_record("one_layer"), quantity)

    def read(r: Records) -> dict:
        metrics = r[CONVERGED]
        table = converged_table(metrics)
        budget, converged = _reading_budget(table, ("joint",))
        verdicts = [dict(run["shapes"][quantity]) for run in metrics["joint"][str(budget)]]
        readings = [read_shape(verdict) for verdict in verdicts]
        return verdicts[0] | {
            "budget": budget,
            "converged": converged,
            "counts": convergence_counts(table, budget),
            "shapes": [reading.tested for reading in readings],
            "readings": [reading.shape for reading in readings],
            "effects": [reading.effect for reading in readings],
            "early_stopped": early(r),
        }

    return read


def weaker_at_budget(records: Records) -> dict[str, Any]:
    """``measures.weaker`` for the MLP trained to the end of its budget, its token reading set against the one-layer
    model trained jointly to the end of the same budget (the converged-joint record: ``reference``, the seed interval
    of its Spearman), not against the early-stopped one; the bin means' reading stays the early-stopped one-layer
    model's (the converged record keeps no bin means). ValueError when that record has no run of the MLP's budget."""
    mlp = records[real_record("mlp", "joint_converged")]
    found = weaker("joint_converged")(records)
    budget = str(int(per_seed(mlp, "epochs_run")[0]))
    runs = records[CONVERGED]["joint"].get(budget)
    if not runs:
        raise ValueError(f"the converged-joint record has no budget of {budget} epochs, the MLP's; it has "
                         f"{sorted(records[CONVERGED]['joint'], key=float)}")  # fmt: skip
    reference = seed_interval([run["shapes"]["values"]["spearman"] for run in runs], bounds=(-1.0, 1.0))
    return found | {"reference": [reference["low"], reference["high"]], "budget": int(budget)}


ARM_WORDS = {"joint": "joint", "one_step": "one step"}


def convergence_words(value: dict) -> str:
    """How the seeds of each arm at a reading's budget met the convergence rule: "joint: 5 of 5 fitted; one step:
    4 of 5 settled, 1 moving" (the counts of :func:`convergence_counts`)."""
    parts = []
    for arm, counts in value["counts"].items():
        met = [f"{counts[o]} of {counts['n']} {o}" for o in ("fitted", "settled", "moving") if counts[o]]
        parts.append(f"{ARM_WORDS[arm]}: " + ", ".join(met))
    return "; ".join(parts)
