"""Training to the end of a budget, both one-layer arms alike, and the rule that says whether a run has converged.

The spread ratio of chapter 8 divides a curve of the jointly trained model by one of the model trained after one
step with E frozen. Read "at convergence", it needs both arms trained the same way: each to the end of the same
budgets, the last epoch kept, paired budget with budget and seed with seed. Two diagnoses do that:

- ``converged_joint`` (record ``diagnosis-converged_joint``): E, p and v trained jointly;
- ``converged_one_step`` (record ``diagnosis-converged_one_step``): one step on E, then p and v trained.

A logistic loss on training reviews the model can separate keeps falling for ever, so a plateau alone can never be
met by the joint arm. ``convergence`` reads a run's training loss by two rules, either of which counts (ours; the
report applies it to every point it reads, so the rule is not a setting of the runs):
*fitted*, the last epoch's mean training loss under ``FIT_LOSS`` nats; *settled*, a plateau (``PLATEAU_DROP``).

    settings = converged_one_step_settings("fast")
    points = run_converged_one_step(settings)["one_step"]   # budget -> one point per seed
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import torch

from ..theory.shape import classify_shape
from .encoding import EncodedReviews
from .measurements import spreads, token_importance
from .pipeline import WHOLE_BUDGET, load_data, preset_seeds, run_experiment
from .settings import RealDataSettings, diagnosis_settings, real_data_settings

BUDGETS = ((8, 16, 32), (10, 40, 80))
"""Training lengths in epochs, fast and full, shared by both arms (our choices)."""
FIT_LOSS = 0.05
"""A fitted run (ours): mean training loss of the last epoch under this many nats, that is a geometric-mean
probability of the right label above exp(-0.05) = 0.95 on the training reviews."""
CONVERGENCE = ("fitted", "settled", "moving")
"""What ``convergence`` can say: under ``FIT_LOSS``; on a plateau (``PLATEAU_DROP``); neither."""


def _budgets(scale: str) -> list[int]:
    return list(BUDGETS[0 if scale == "fast" else 1])


def _run(kind: str, mode: str, settings: RealDataSettings, data: EncodedReviews, progress: bool, on_the_way=()):
    return run_experiment(kind, mode, settings, data=data, progress=progress, on_the_way=on_the_way)


PLATEAU_DROP = 0.1
"""A training-loss plateau (ours): over the last quarter of the epochs (at least the last two) the mean training loss
changed by less than this share of its value, either way. A share, not nats: a logistic loss that keeps halving
stays under any fixed number of nats once it is small, and a loss that jumps up at the end has not settled either."""


def plateau_drop(train_loss: list[float]) -> float:
    """How much the mean training loss fell over the last quarter of the epochs (at least two), as a share of where it
    was: ``(before - last) / before`` with ``before`` the loss ``max(2, len // 4)`` epochs before the last; negative
    when it rose. Needs at least three epochs and a positive loss before the window.

    train_loss: (epochs,) mean training loss per epoch.
    """
    if len(train_loss) < 3:
        raise ValueError(f"a plateau needs at least 3 epochs of training loss, got {len(train_loss)}")
    window = max(2, len(train_loss) // 4)
    before = float(train_loss[-1 - window])
    if not before > 0:
        raise ValueError(f"a relative drop needs a positive training loss, got {before} {window} epochs before the last")
    return (before - float(train_loss[-1])) / before


def is_plateau(drop: float, threshold: float) -> bool:
    """Whether a relative drop (``plateau_drop``) is a plateau: smaller than ``threshold`` either way."""
    return abs(drop) < threshold


def convergence(train_loss: list[float], *, fit_loss: float = FIT_LOSS, threshold: float = PLATEAU_DROP) -> str:
    """``"fitted"`` when the last epoch's mean training loss is below ``fit_loss``; else ``"settled"`` when the loss is
    on a plateau (``plateau_drop`` below ``threshold`` either way); else ``"moving"``. Both bounds are strict.

    train_loss: (epochs,) mean training loss per epoch, at least 3.
    """
    if not fit_loss > 0:
        raise ValueError(f"fit_loss must be > 0 nats, got {fit_loss}")
    drop = plateau_drop(train_loss)
    if float(train_loss[-1]) < fit_loss:
        return "fitted"
    return "settled" if is_plateau(drop, threshold) else "moving"


def check_distinct_lengths(points: dict[str, dict[str, Any]]) -> None:
    """ValueError when two points of a training-length axis hold the same model: the same kept epoch, or the same
    spreads of ``E_s . v`` to the last digit (what an axis of early-stopped runs that all kept one epoch gives).

    points: budget (str) -> {"kept_epoch": int, "values": {"raw": float, ...}, ...}.
    """
    seen: dict[tuple, str] = {}
    for budget, point in points.items():
        for key in (("kept_epoch", point["kept_epoch"]), ("values", point["values"]["raw"])):
            if key in seen:
                raise ValueError(
                    f"budgets {seen[key]} and {budget} hold the same model ({key[0]} {key[1]!r}): "
                    "a training-length axis needs distinct models"
                )
            seen[key] = budget


def converged_joint_settings(scale: str) -> dict[str, Any]:
    """IMDB at the preset; the one-layer model trained jointly for each ``BUDGETS``, last kept, from
    each of the one-layer model's seeds at ``scale`` (those of the one-step arm it is compared with)."""
    return _arm_settings("converged_joint", scale)


def _arm_settings(name: str, scale: str) -> dict[str, Any]:
    """The settings both arms share: the budgets, the plateau threshold and the one-layer model's seeds."""
    return diagnosis_settings(
        name, scale, epochs=_budgets(scale), plateau_drop=PLATEAU_DROP, seeds=preset_seeds("one_layer", scale)
    )


def run_converged_joint(settings: dict[str, Any], *, progress: bool = False) -> dict[str, Any]:
    """Per budget, one point per seed (in ``settings["seeds"]`` order): the spreads of ``E_s . v`` and ``E_s . p``
    (``spreads``) and their shapes by the course's shape rule (with the arms' rank correlations), the training loss
    and validation accuracy per epoch, the kept (last) and the best-validation epoch, the test accuracy, ``|p|``, and
    whether the training loss reached a plateau (``plateau_drop`` within ``settings["plateau_drop"]`` either way:
    ``is_plateau``).

    Each seed trains once, for the longest budget; the shorter budgets are the same run at the end of their epochs
    (saved on the way: ``run_experiment``'s ``on_the_way``). Returns ``{"seeds": [seed, ...], "joint": {budget:
    [point, ...]}}``.
    """
    return {"seeds": list(settings["seeds"]), "joint": _run_budgets(settings, "joint_converged", progress)}


def _converged_point(run, x: torch.Tensor, preset: RealDataSettings, settings: dict[str, Any]) -> dict[str, Any]:
    """What ``run_converged_joint`` keeps of one run (``x``: (V,) the posterior gaps of its training reviews)."""
    history = run.history
    with torch.no_grad():
        values, scores = run.model.token_values(), run.model.token_scores()
    drop = plateau_drop(history.train_loss)
    shapes = {}
    for quantity, per_token in (("values", values), ("scores", scores)):
        verdict = classify_shape(x.numpy(), per_token.detach().double().cpu().numpy(), n_boot=preset.n_boot, seed=0)
        shapes[quantity] = {"shape": verdict.shape, "spearman": verdict.spearman,
                            "left_spearman": verdict.left_spearman, "right_spearman": verdict.right_spearman}  # fmt: skip
    return {
        "shapes": shapes,
        "values": spreads(x, values),
        "scores": spreads(x, scores),
        "train_loss": history.train_loss,
        "validation_accuracy": history.validation_accuracy,
        "kept_epoch": history.kept_epoch,
        "best_epoch": history.best_epoch,
        "test_accuracy": run.test_accuracy,
        "p_norm": float(run.model.p.detach().norm()),
        "score_range": float(scores.max() - scores.min()),
        "plateau_drop": drop,
        "plateau": is_plateau(drop, settings["plateau_drop"]),
    }


def converged_one_step_settings(scale: str) -> dict[str, Any]:
    """IMDB at the preset; one step on E (the preset's size), then p and v trained for each of ``BUDGETS``, the last
    epoch kept, from each of the one-layer model's seeds at ``scale``: the joint arm's budgets and seeds."""
    return _arm_settings("converged_one_step", scale)


def run_converged_one_step(settings: dict[str, Any], *, progress: bool = False) -> dict[str, Any]:
    """``run_converged_joint`` for the one-step arm: per budget, one point per seed (the same keys), the frozen
    training run to the end of the budget (``frozen_epochs``) at the preset's ``frozen_lr``.
    Returns ``{"seeds": [seed, ...], "one_step": {budget: [point, ...]}}``."""
    return {"seeds": list(settings["seeds"]), "one_step": _run_budgets(settings, "one_step_converged", progress)}


def _run_budgets(settings: dict[str, Any], mode: str, progress: bool) -> dict[str, list[dict[str, Any]]]:
    """Per budget of ``settings["epochs"]``, one point per seed of the one-layer model trained in ``mode`` (a mode of
    ``WHOLE_BUDGET``): each seed trains once, for the longest budget, and saves the shorter ones on the way."""
    preset = _preset(settings)
    budgets = sorted(settings["epochs"])
    field = WHOLE_BUDGET[mode]
    points: dict[str, list[dict[str, Any]]] = {str(epochs): [] for epochs in budgets}
    for seed in settings["seeds"]:
        seeded = replace(preset, seed=seed)
        data = load_data(seeded, progress=progress)
        x, _ = token_importance(data.train, data.vocab_size, min_count=preset.importance_min_count)
        runs = {budgets[-1]: _run("one_layer", mode, replace(seeded, **{field: budgets[-1]}), data, progress, budgets[:-1])}
        for epochs in budgets[:-1]:
            runs[epochs] = _run("one_layer", mode, replace(seeded, **{field: epochs}), data, progress)
        seed_points = {str(epochs): _converged_point(runs[epochs], x, preset, settings) for epochs in budgets}
        check_distinct_lengths(seed_points)
        for budget, point in seed_points.items():
            points[budget].append(point)
    return points


def _preset(settings: dict[str, Any]) -> RealDataSettings:
    return real_data_settings(settings["scale"], settings["dataset"])
