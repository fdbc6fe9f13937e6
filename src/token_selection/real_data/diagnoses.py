"""Experiments that explain where the course's real-data numbers differ from the authors' rebuttal.

Each diagnosis is a small grid of real-data runs around a preset, with its own results
record (``diagnosis-<name>.<scale>.json``, written by ``scripts/run_records.py``):

- ``frozen_capacity``: frozen random embeddings against trained ones as ``d`` grows past ``V``
  (the column-space argument: a frozen random ``E`` of rank ``d`` can give at most ``d``
  independent token values), and the frozen model's training budget;
- ``spread_readings``: the ratio of per-bin spreads (jointly trained over one step, then
  frozen) under several readings: the raw mean per-bin std at the rebuttal's bins, the same
  at 20 equal bins, the scale-free ratio (mean per-bin std over the curve's overall std),
  for several step sizes and joint training lengths;
- ``converged_joint``: joint training to the end of budgets of several lengths, the last epoch kept (no
  early stopping), from every seed of the one-layer model, with the training loss per epoch and whether it
  reached a plateau (``PLATEAU_DROP``), and the spreads of ``E_s . v`` and ``E_s . p`` under the readings of
  ``spread_readings``; two budgets that return the same model are refused;
- ``converged_one_step``: the same for the one-step arm (one step on E, then p and v trained to the end of the same
  budgets), so that the two arms are compared trained alike (``converged``);
- ``shape_budget``: the score shape of the ``W_KQ`` and MLP models over training lengths
  and initial draws, with three readings of the ``W_KQ`` score (layer 1, layer 2 with ``p``,
  layer 2 with the real queries averaged over the training reviews);
- ``matched_vocabulary``: the number of reviews whose own vocabulary has the rebuttal's size, and the
  trained and frozen accuracies on such a subset (``vocabulary_match``);
- ``accuracy_reference``: a bag-of-words logistic regression (scikit-learn) on the same
  split and the same tokens, to place the attention models' accuracies;
- ``one_step_direct`` (``one_step_direct``): the one step on E measured right after it, nothing retrained;
- ``selection_mass`` (``selection_mass``): the attention mass each one-layer arm's models put on the important tokens
  of the test reviews, against uniform attention.

    metrics = DIAGNOSES["frozen_capacity"].run(DIAGNOSES["frozen_capacity"].settings("fast"))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import torch

from ..theory.shape import classify_shape
from .converged import converged_joint_settings, converged_one_step_settings, run_converged_joint, run_converged_one_step
from .encoding import EncodedReviews, EncodedSplit
from .measurements import spreads, token_importance
from .one_step_direct import DESCRIPTION as ONE_STEP_DIRECT_DESCRIPTION
from .one_step_direct import RECORD as ONE_STEP_DIRECT
from .one_step_direct import one_step_direct_settings, run_one_step_direct
from .pipeline import load_data, run_experiment
from .selection_mass import DESCRIPTION as SELECTION_MASS_DESCRIPTION
from .selection_mass import RECORD as SELECTION_MASS
from .selection_mass import run_selection_mass, selection_mass_settings
from .settings import REBUTTAL_VOCABULARY, RealDataSettings, diagnosis_settings, real_data_settings
from .vocabulary_match import matched_vocabulary_settings, run_matched_vocabulary

GRIDS: dict[str, dict[str, tuple]] = {  # grid: (fast, full)
    "d": ((16, 64, 256, 1024), (16, 64, 256, 1024, 2048, 8192)),
    "frozen_epochs": ((5, 20, 60), (5, 20, 60)),
    "step_factor": ((0.5, 2.0, 8.0, 14.0), (0.5, 2.0, 8.0, 14.0)),
    "joint_epochs": ((1, 3, 8), (1, 3, 10)),
    "shape_epochs": ((1, 3, 8), (1, 3)),
    "shape_seeds": ((0, 1), (0, 1)),
    "baseline_C": ((0.01, 0.1, 1.0), (0.01, 0.03, 0.1, 0.3, 1.0)),
}
"""The grids of the diagnoses, fast and full (our choices)."""


def _grid(name: str, scale: str) -> list:
    return list(GRIDS[name][0 if scale == "fast" else 1])


def _preset(settings: dict[str, Any]) -> RealDataSettings:
    return real_data_settings(settings["scale"], settings["dataset"])


def _run(kind: str, mode: str, settings: RealDataSettings, data: EncodedReviews, progress: bool, on_the_way=()):
    return run_experiment(kind, mode, settings, data=data, progress=progress, on_the_way=on_the_way)


# --- trained against frozen -------------------------------------------------------------------


def frozen_capacity_settings(scale: str) -> dict[str, Any]:
    """IMDB at the preset, ``d`` over ``GRIDS["d"]`` for both modes, and the frozen budgets at the preset ``d``."""
    return diagnosis_settings(
        "frozen_capacity", scale, d_grid=_grid("d", scale), frozen_epochs_grid=_grid("frozen_epochs", scale), seeds=[0]
    )


def run_frozen_capacity(settings: dict[str, Any], *, progress: bool = False) -> dict[str, Any]:
    """Test accuracy of the one-layer model, E frozen at random and E trained, at each ``d``; and the frozen model's
    accuracy with longer budgets (patience = budget, so it runs every epoch and keeps the best)."""
    preset = _preset(settings)
    data = load_data(preset, progress=progress)
    V = data.vocab_size
    rows = []
    for d in settings["d_grid"]:
        s = replace(preset, d=d)
        frozen = _run("one_layer", "frozen_random", s, data, progress)
        joint = _run("one_layer", "joint", s, data, progress)
        rows.append({"d": d, "d_over_V": d / V, "frozen": frozen.test_accuracy, "joint": joint.test_accuracy,
                     "frozen_epochs_run": len(frozen.history.epoch)})  # fmt: skip
    budgets = []
    for epochs in settings["frozen_epochs_grid"]:
        s = replace(preset, frozen_epochs=epochs, frozen_patience=epochs)
        run = _run("one_layer", "frozen_random", s, data, progress)
        budgets.append({"epochs": epochs, "frozen": run.test_accuracy, "best_epoch": run.history.best_epoch})
    frozen = np.array([r["frozen"] for r in rows])
    ratio = np.array([r["d_over_V"] for r in rows])
    return {
        "vocab_size": V,
        "rows": rows,
        "budgets": budgets,
        "spearman_frozen_vs_d": float(_spearman(ratio, frozen)),
        "crossing_72": _crossing(ratio, frozen, 0.72),
    }


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    from scipy import stats

    return float(stats.spearmanr(x, y).statistic)


def _crossing(x: np.ndarray, y: np.ndarray, level: float) -> float | None:
    """The first ``x`` (log-linear interpolation) at which ``y`` reaches ``level``, or None if it never does."""
    for i in range(len(x)):
        if y[i] >= level:
            if i == 0:
                return float(x[0])
            t = (level - y[i - 1]) / (y[i] - y[i - 1])
            return float(np.exp(np.log(x[i - 1]) + t * (np.log(x[i]) - np.log(x[i - 1]))))
    return None


# --- the spread ratios ------------------------------------------------------------------------


SPREAD_READINGS_SEED = 0
"""The one seed the grid of spread readings trains (its sentences name it)."""


def spread_readings_settings(scale: str) -> dict[str, Any]:
    """IMDB at the preset; one step at each ``GRIDS["step_factor"]``, joint training at each ``GRIDS["joint_epochs"]``."""
    return diagnosis_settings(
        "spread_readings", scale, step_factors=_grid("step_factor", scale), joint_epochs=_grid("joint_epochs", scale),
        seeds=[SPREAD_READINGS_SEED],
    )  # fmt: skip


def run_spread_readings(settings: dict[str, Any], *, progress: bool = False) -> dict[str, Any]:
    """Spreads of ``E_s . v`` and ``E_s . p`` for each one-step size and each joint training length; the ratios
    joint / one step of every pair, per reading (None where the one-step scores are all 0: when no epoch of
    training p beats the one-step model with p = 0 on validation, the best epoch kept is the first)."""
    preset = _preset(settings)
    data = load_data(preset, progress=progress)
    x, _ = token_importance(data.train, data.vocab_size, min_count=preset.importance_min_count)

    def measured(run) -> dict[str, dict[str, float]]:
        with torch.no_grad():
            return {"values": spreads(x, run.model.token_values()), "scores": spreads(x, run.model.token_scores())}

    one_step = {}
    for factor in settings["step_factors"]:
        run = _run("one_layer", "one_step_frozen", replace(preset, step_factor=factor), data, progress)
        one_step[str(factor)] = {**measured(run), "test_accuracy": run.test_accuracy, "best_epoch": run.history.best_epoch,
                                 "p_norm": float(run.model.p.detach().norm())}  # fmt: skip
    joint = {}
    for epochs in settings["joint_epochs"]:
        run = _run("one_layer", "joint", replace(preset, epochs=epochs, patience=epochs), data, progress)
        joint[str(epochs)] = {**measured(run), "test_accuracy": run.test_accuracy, "best_epoch": run.history.best_epoch}
    ratios = {
        quantity: {
            reading: {
                f"{e}|{f}": _ratio(joint[e][quantity][reading], one_step[f][quantity][reading]) for e in joint for f in one_step
            }
            for reading in ("raw", "equal_bins", "scale_free")
        }
        for quantity in ("values", "scores")
    }
    return {"one_step": one_step, "joint": joint, "ratios": ratios}


def _ratio(a: float | None, b: float | None) -> float | None:
    """``a / b``, or None when either is missing or ``b`` is 0 (a one-step model whose p never left 0)."""
    return a / b if a is not None and b is not None and b > 0 else None


# --- the score shapes of W_KQ and the MLP ------------------------------------------------------


def shape_budget_settings(scale: str) -> dict[str, Any]:
    """IMDB at the preset; ``W_KQ`` and MLP trained for each ``GRIDS["shape_epochs"]`` from each initial draw."""
    return diagnosis_settings("shape_budget", scale, epochs=_grid("shape_epochs", scale), seeds=_grid("shape_seeds", scale))


def run_shape_budget(settings: dict[str, Any], *, progress: bool = False) -> dict[str, Any]:
    """Shape and Spearman of each score reading per (kind, epochs, seed): ``p . W2 E_s`` (the record's), ``p . W1 E_s``
    and the real layer-2 scores averaged over the training reviews for ``W_KQ``; ``E_s . p`` for the MLP."""
    preset = _preset(settings)
    rows = []
    for seed in settings["seeds"]:
        data = load_data(replace(preset, seed=seed), progress=progress)
        x, _ = token_importance(data.train, data.vocab_size, min_count=preset.importance_min_count)
        for kind in ("key_query", "mlp"):
            for epochs in settings["epochs"]:
                s = replace(preset, seed=seed, epochs=epochs, patience=epochs)
                run = _run(kind, "joint", s, data, progress)
                readings = _score_readings(kind, run.model, data.train)
                for reading, scores in readings.items():
                    verdict = classify_shape(x.numpy(), scores.numpy(), n_boot=preset.n_boot, seed=seed)
                    rows.append({"kind": kind, "epochs": epochs, "seed": seed, "reading": reading,
                                 "shape": verdict.shape, "spearman": verdict.spearman,
                                 "test_accuracy": run.test_accuracy})  # fmt: skip
    return {"rows": rows}


def _score_readings(kind: str, model: torch.nn.Module, train: EncodedSplit) -> dict[str, torch.Tensor]:
    """Per-token score readings (V,) float64 of a trained model (see ``run_shape_budget``)."""
    with torch.no_grad():
        readings = {"p . W2 E_s" if kind == "key_query" else "E_s . p": model.token_scores()}
        if kind == "key_query":
            readings["p . W1 E_s"] = model.first_layer_scores()
            device = model.E.device
            readings["mean layer-2 score"] = model.mean_layer2_scores(train.X.to(device), train.mask.to(device))
    return {name: value.detach().double().cpu() for name, value in readings.items()}


# --- where the accuracies sit -----------------------------------------------------------------


def accuracy_reference_settings(scale: str) -> dict[str, Any]:
    """Both datasets at their presets; logistic regression over ``GRIDS["baseline_C"]``, chosen on validation."""
    return {
        "diagnosis": "accuracy_reference",
        "scale": scale,
        "presets": {name: real_data_settings(scale, name).as_dict() for name in REBUTTAL_VOCABULARY},
        "C_grid": _grid("baseline_C", scale),
        "seeds": [0],
    }


def bag_of_words(split: EncodedSplit, vocab_size: int):
    """(n, V) scipy CSR matrix of token counts over the unmasked positions (``<pad>`` and ``<unk>`` dropped)."""
    from scipy import sparse

    rows = torch.arange(len(split)).unsqueeze(1).expand_as(split.X)[split.mask].numpy()
    ids = split.X[split.mask].numpy()
    keep = ids >= 2
    counts = sparse.csr_matrix((np.ones(keep.sum()), (rows[keep], ids[keep])), shape=(len(split), vocab_size))
    counts.sum_duplicates()
    return counts


def run_accuracy_reference(settings: dict[str, Any], *, progress: bool = False) -> dict[str, Any]:
    """Test accuracy of a bag-of-words logistic regression (log-scaled counts, L2, ``C`` chosen on the validation part)
    on the same reviews and tokens as the attention models, per dataset."""
    from sklearn.linear_model import LogisticRegression

    result = {}
    for name in settings["presets"]:
        preset = real_data_settings(settings["scale"], name)
        data = load_data(preset, progress=progress)
        features = {k: bag_of_words(getattr(data, k), data.vocab_size).log1p() for k in ("train", "validation", "test")}
        best = None
        for C in settings["C_grid"]:
            model = LogisticRegression(C=C, max_iter=2000).fit(features["train"], data.train.y.numpy())
            validation = float(model.score(features["validation"], data.validation.y.numpy()))
            if best is None or validation > best[1]:
                best = (C, validation, float(model.score(features["test"], data.test.y.numpy())))
        assert best is not None
        result[name] = {"C": best[0], "validation_accuracy": best[1], "test_accuracy": best[2],
                        "vocab_size": data.vocab_size, "n_train": len(data.train), "n_test": len(data.test)}  # fmt: skip
    return result


@dataclass(frozen=True)
class Diagnosis:
    """One diagnosis: its settings per scale, how it runs, its protocol in words, and its cost for estimates."""

    name: str
    settings: Callable[[str], dict[str, Any]]
    runner: Callable[..., dict[str, Any]]
    description: str
    cost: tuple[float, float]
    """(fast, full) cost in units of one seed of the one-layer IMDB model at that scale. The full costs are the times
    the records took on 2 CPU cores (benchmarks/make_full.cpu.md; upper bounds, the cores were shared) over the unit's
    32 s, except the converged joint arm's: its epochs times an epoch's cost measured alone (benchmarks/epoch_costs.cpu.md)."""

    def run(self, settings: dict[str, Any], *, progress: bool = False) -> dict[str, Any]:
        return self.runner(settings, progress=progress)

    def protocol(self, settings: dict[str, Any]) -> str:
        grids = {k: v for k, v in settings.items() if k not in ("preset", "presets", "diagnosis", "scale")}
        return f"{self.description} Grids: {grids}. Other settings: the {settings['scale']} preset."

    def relative_cost(self, scale: str) -> float:
        """Cost in units of one seed of the one-layer IMDB model (``scripts/run_records.py``'s estimate)."""
        return self.cost[0 if scale == "fast" else 1]


DIAGNOSES: dict[str, Diagnosis] = {
    d.name: d
    for d in (
        Diagnosis(
            "diagnosis-frozen_capacity",
            frozen_capacity_settings,
            run_frozen_capacity,
            "One-layer model on IMDB, E frozen at its random draw against E trained, for each d; and the frozen "
            "model for longer budgets at the preset d (every epoch run, best kept).",
            (16.0, 31.5),
        ),
        Diagnosis(
            "diagnosis-spread_readings",
            spread_readings_settings,
            run_spread_readings,
            "One-layer model on IMDB: one step of each size then E frozen, and joint training of each length; "
            "mean per-bin std of E_s . v and E_s . p under three readings, and every joint / one-step ratio.",
            (8.0, 36.8),
        ),
        Diagnosis(
            "diagnosis-converged_joint",
            converged_joint_settings,
            run_converged_joint,
            "One-layer model on IMDB trained jointly for every epoch of budgets of several lengths, the last epoch "
            "kept (no early stopping), from each seed of the one-layer model; one run per seed, to the end of the "
            "longest budget, passes through the end of the shorter ones. Training loss per epoch, a plateau test on "
            "it, and the per-bin spreads of E_s . v and E_s . p under the readings of diagnosis-spread_readings.",
            (6.0, 32.0),
        ),
        Diagnosis(
            "diagnosis-converged_one_step",
            converged_one_step_settings,
            run_converged_one_step,
            "One-layer model on IMDB: one full-batch step on E at the preset's size, then p and v trained for every "
            "epoch of the budgets of diagnosis-converged_joint (Adam at the preset's frozen_lr), the last epoch kept, "
            "from each seed of the one-layer model; one run per seed passes through the end of the shorter budgets. "
            "Training loss per epoch and the per-bin spreads of E_s . v and E_s . p, as for the joint arm.",
            (2.0, 27.0),
        ),
        Diagnosis(
            "diagnosis-shape_budget",
            shape_budget_settings,
            run_shape_budget,
            "W_KQ two-layer and MLP-head models on IMDB, each training length and initial draw (every epoch run, "
            "best kept); shape of each score reading by the course's shape rule.",
            (60.0, 28.0),
        ),
        Diagnosis(
            "diagnosis-matched_vocabulary",
            matched_vocabulary_settings,
            run_matched_vocabulary,
            "IMDB subsets whose own training vocabulary (words seen at least min_count times) has the rebuttal's "
            "size, found by bisection on the number of reviews; the one-layer model trained jointly and with E "
            "frozen at random on the subset matched at the preset's min_count, its whole vocabulary kept.",
            (4.0, 3.5),
        ),
        Diagnosis(
            "diagnosis-accuracy_reference",
            accuracy_reference_settings,
            run_accuracy_reference,
            "Bag-of-words logistic regression (scikit-learn, log(1 + count) features, L2, C chosen on the "
            "validation part) on the same reviews and first T tokens as the attention models.",
            (2.0, 0.9),
        ),
        Diagnosis(ONE_STEP_DIRECT, one_step_direct_settings, run_one_step_direct, ONE_STEP_DIRECT_DESCRIPTION, (5.0, 6.0)),
        Diagnosis(SELECTION_MASS, selection_mass_settings, run_selection_mass, SELECTION_MASS_DESCRIPTION, (50.0, 7.0)),
    )
}
"""Every diagnosis, by record name; ``one_step_direct`` (the abstract's one step measured on real reviews) and
``selection_mass`` (the attention on important tokens of the one-layer arms' models) are run and checked for staleness
the same way."""
