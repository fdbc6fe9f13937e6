"""The one-step arm trained to the end of its budgets (``one_step_converged``) and the convergence rule that reads
both arms: fitted under ``FIT_LOSS`` nats, settled on a plateau, else moving; both bounds strict."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from token_selection.real_data import converged as cv
from token_selection.real_data.pipeline import preset_seeds, protocol, run_experiment
from token_selection.real_data.registry import MODE_LABELS, TRAINING_MODES, check_kind_and_mode
from token_selection.real_data.settings import real_data_settings
from token_selection.real_data.trainer import TrainingHistory


@pytest.mark.parametrize(
    ("losses", "outcome"),
    [
        ([0.9, 0.5, 0.049], "fitted"),  # under 0.05 nats, however fast it still falls
        ([0.9, 0.5, 0.05], "moving"),  # on the bound: not fitted; a drop of 90 %: not settled
        ([0.7, 0.66, 0.65, 0.64], "settled"),  # window 2: 0.66 -> 0.64, a 3 % drop
        ([0.7, 0.6, 0.65, 0.659], "settled"),  # window 2: 0.6 -> 0.659, a 9.8 % rise: inside the band
        ([0.7, 0.6, 0.65, 0.661], "moving"),  # a 10.2 % rise: outside
        ([0.7, 0.6, 0.65, 0.72], "moving"),  # window 2: 0.6 -> 0.72, a 20 % rise
        ([0.3, 0.2, 0.1, 0.06], "moving"),
        ([0.5, 0.2, 0.1, 0.3], "moving"),  # jumped up at the end: not settled either
    ],
)
def test_convergence_is_fitted_settled_or_moving(losses, outcome):
    assert cv.convergence(losses) == outcome
    assert outcome in cv.CONVERGENCE


def test_the_convergence_bounds_are_strict_and_can_be_moved():
    assert cv.convergence([0.5, 0.4, 0.3], fit_loss=0.3) == "moving"
    assert cv.convergence([0.5, 0.4, 0.3], fit_loss=0.31) == "fitted"
    drop = (0.5 - 0.3) / 0.5  # window 2 for 3 epochs: from epoch 1 to epoch 3
    assert cv.convergence([0.5, 0.4, 0.3], threshold=drop) == "moving"
    assert cv.convergence([0.5, 0.4, 0.3], threshold=drop + 1e-9) == "settled"


@pytest.mark.parametrize("fit_loss", [0.0, -0.1, float("nan")])
def test_a_fit_level_must_be_positive(fit_loss):
    with pytest.raises(ValueError, match=r"fit_loss must be > 0 nats, got"):
        cv.convergence([0.5, 0.4, 0.3], fit_loss=fit_loss)


def test_convergence_needs_three_epochs():
    with pytest.raises(ValueError, match="at least 3 epochs"):
        cv.convergence([0.5, 0.01])


def test_the_one_step_whole_budget_mode_is_registered_described_and_one_layer_only(toy):
    assert "one_step_converged" in TRAINING_MODES and MODE_LABELS["one_step_converged"].endswith("whole budget")
    settings = real_data_settings("fast", d=4, frozen_epochs=6, frozen_lr=0.03, step_factor=2.0)
    text = protocol("one_layer", "one_step_converged", settings, toy)
    assert "step on E of size 2 eta*, then Adam lr 0.03, all 6 epochs, the last kept; no early stopping" in text
    with pytest.raises(ValueError, match=r"mode 'one_step_converged' is defined for kinds \('one_layer',\), got 'mlp'"):
        check_kind_and_mode("mlp", "one_step_converged")


def test_a_one_step_whole_budget_run_trains_p_and_v_to_its_end_with_e_as_the_step_left_it(toy, tmp_path):
    settings = real_data_settings("fast", d=4, frozen_epochs=4, frozen_lr=3.0, frozen_patience=1, batch_size=16)
    run = run_experiment("one_layer", "one_step_converged", settings, data=toy, cache_dir=str(tmp_path), progress=False)
    assert run.history.epoch == [1, 2, 3, 4] and run.history.kept_epoch == 4
    early = run_experiment("one_layer", "one_step_frozen", settings, data=toy, cache_dir=str(tmp_path), progress=False)
    assert torch.equal(early.model.E, run.model.E)  # the same step, E frozen after it in both
    assert run.metrics["step_size"] == early.metrics["step_size"] > 0
    assert not torch.equal(early.model.p, run.model.p) or early.history.kept_epoch == 4


X_TOKENS = torch.tensor([-0.9, -0.5, 0.0, 0.5, 0.9, float("nan")] * 5, dtype=torch.float64)


class _Scored(torch.nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale
        self.p = torch.nn.Parameter(torch.tensor([3.0, 4.0]))

    def token_values(self):
        return self.scale * torch.arange(30, dtype=torch.float64).sin()

    def token_scores(self):
        return torch.arange(30, dtype=torch.float64).cos()


def test_the_one_step_runner_trains_the_longest_budget_once_per_seed_and_pairs_the_joint_arms_keys(monkeypatch):
    monkeypatch.setattr(cv, "load_data", lambda s, *, progress: SimpleNamespace(train="TRAIN", vocab_size=30, seed=s.seed))
    monkeypatch.setattr(cv, "token_importance", lambda train, V, *, min_count: (X_TOKENS, None))
    runs = []

    def run(kind, mode, s, data, progress, on_the_way=()):
        runs.append((kind, mode, s.frozen_epochs, s.epochs, s.seed, data.seed, tuple(on_the_way)))
        n = s.frozen_epochs
        history = TrainingHistory(list(range(1, n + 1)), [0.7 - 0.01 * e for e in range(n)], [0.5] * n, [0.6] * n,
                                  [1.0] * n, best_epoch=1, kept_last=True)  # fmt: skip
        return SimpleNamespace(test_accuracy=0.6 + n / 100, history=history, model=_Scored(float(n)))

    monkeypatch.setattr(cv, "_run", run)
    settings = {"scale": "fast", "dataset": "imdb", "epochs": [6, 3, 12], "plateau_drop": 0.1, "seeds": [4, 2]}
    result = cv.run_converged_one_step(settings)
    preset_epochs = real_data_settings("fast", "imdb").epochs
    assert runs == [
        ("one_layer", "one_step_converged", e, preset_epochs, seed, seed, (3, 6) if e == 12 else ())
        for seed in (4, 2)
        for e in (12, 3, 6)
    ]
    assert result["seeds"] == [4, 2] and list(result["one_step"]) == ["3", "6", "12"]
    point = result["one_step"]["6"][1]
    assert point["kept_epoch"] == 6 and point["test_accuracy"] == pytest.approx(0.66) and point["p_norm"] == 5.0
    assert point["values"] == cv.spreads(X_TOKENS, 6.0 * torch.arange(30, dtype=torch.float64).sin())
    assert point["train_loss"] == pytest.approx([0.7 - 0.01 * e for e in range(6)])
    assert result["one_step"]["12"][0]["values"]["raw"] == pytest.approx(2 * point["values"]["raw"])


@pytest.mark.parametrize("scale", ["fast", "full"])
def test_the_one_step_arm_takes_the_joint_arms_budgets_and_seeds(scale):
    joint, step = cv.converged_joint_settings(scale), cv.converged_one_step_settings(scale)
    assert step["diagnosis"] == "converged_one_step" and step["scale"] == scale
    assert step["epochs"] == joint["epochs"] == list(cv.BUDGETS[0 if scale == "fast" else 1])
    assert step["seeds"] == joint["seeds"] == preset_seeds("one_layer", scale)
    assert step["preset"] == joint["preset"]


def test_the_one_step_runner_is_quiet_unless_asked(monkeypatch):
    seen = []
    monkeypatch.setattr(cv, "_run_budgets", lambda settings, mode, progress: seen.append((mode, progress)) or {})
    settings = {"seeds": [1]}
    assert cv.run_converged_one_step(settings) == {"seeds": [1], "one_step": {}}
    cv.run_converged_one_step(settings, progress=True)
    assert seen == [("one_step_converged", False), ("one_step_converged", True)]
