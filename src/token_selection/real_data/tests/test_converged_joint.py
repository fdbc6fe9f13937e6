"""Joint training to the end of its budget (``keep="last"``) and the converged-joint diagnosis: the last epoch is
kept whatever the validation accuracy does, the plateau test reads the last quarter of the training loss, and a
training-length axis whose budgets return the same model is refused."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest
import torch

from token_selection.real_data import converged as cv
from token_selection.real_data.pipeline import preset_seeds, protocol, run_experiment
from token_selection.real_data.registry import MODE_LABELS, TRAINING_MODES
from token_selection.real_data.registry import OneLayerAttention as CLSAttention
from token_selection.real_data.settings import real_data_settings, seed_count
from token_selection.real_data.trainer import TrainingHistory, accuracy, train_model
from token_selection.theory.shape import classify_shape


def test_keeping_the_last_epoch_runs_the_whole_budget_and_holds_its_parameters(toy):
    # lr 3.0 makes the validation accuracy stall at once: with keep="best" and patience 1 training stops early
    early = CLSAttention(toy.vocab_size, 8, seed=0)
    stopped = train_model(early, toy.train, toy.validation, epochs=12, batch_size=16, lr=3.0, patience=1, progress=False)
    assert len(stopped.epoch) < 12 and not stopped.kept_last
    assert stopped.kept_epoch == stopped.best_epoch
    last = CLSAttention(toy.vocab_size, 8, seed=0)
    history = train_model(
        last, toy.train, toy.validation, epochs=12, batch_size=16, lr=3.0, patience=1, progress=False, keep="last"
    )
    assert history.epoch == list(range(1, 13)) and history.stop_reason == "ran all 12 epochs"
    assert history.kept_last and history.kept_epoch == 12
    assert accuracy(last, toy.validation) == pytest.approx(history.validation_accuracy[-1])
    # the same 12 epochs with keep="best" and a patience that never ends them: same trajectory, other parameters kept
    best = CLSAttention(toy.vocab_size, 8, seed=0)
    kept_best = train_model(best, toy.train, toy.validation, epochs=12, batch_size=16, lr=3.0, patience=12, progress=False)
    assert kept_best.train_loss == history.train_loss
    if kept_best.best_epoch != 12:
        assert not torch.equal(best.E, last.E)


def test_keep_must_be_best_or_last(toy):
    with pytest.raises(ValueError, match="keep must be 'best' or 'last', got 'first'"):
        train_model(CLSAttention(toy.vocab_size, 4), toy.train, toy.validation, epochs=1, progress=False, keep="first")


def test_an_old_history_without_the_flag_kept_its_best_epoch():
    plain = TrainingHistory([1, 2, 3], [0.6, 0.5, 0.4], [0.7, 0.6, 0.65], [0.55, 0.8, 0.7], [1.0] * 3, 2).as_dict()
    del plain["kept_last"]
    assert TrainingHistory.from_dict(plain).kept_epoch == 2
    assert TrainingHistory([1, 2, 3], best_epoch=2, kept_last=True).kept_epoch == 3
    assert TrainingHistory(kept_last=True).kept_epoch == 0  # no epoch run: the initialisation


def test_the_converged_mode_is_registered_and_described(toy):
    assert "joint_converged" in TRAINING_MODES and MODE_LABELS["joint_converged"] == "joint, whole budget"
    settings = real_data_settings("fast", d=4, epochs=3)
    text = protocol("one_layer", "joint_converged", settings, toy)
    assert "all 3 epochs, the last kept; no early stopping; seed 0." in text and "best epoch kept" not in text
    assert "early stopping on validation accuracy, best epoch kept" in protocol("one_layer", "joint", settings, toy)


def test_a_converged_run_goes_through_the_pipeline_and_keeps_its_last_epoch(toy, tmp_path):
    settings = real_data_settings("fast", d=4, epochs=3, lr=3.0, patience=1, batch_size=16)
    run = run_experiment("one_layer", "joint_converged", settings, data=toy, cache_dir=str(tmp_path), progress=False)
    assert run.history.epoch == [1, 2, 3] and run.history.kept_epoch == 3
    early = run_experiment("one_layer", "joint", settings, data=toy, cache_dir=str(tmp_path), progress=False)
    assert early.checkpoint != run.checkpoint  # its own checkpoint: a converged run never loads an early-stopped one


@pytest.mark.parametrize(
    ("losses", "drop"),
    [
        ([0.9, 0.5, 0.4], 0.5 / 0.9),  # 3 epochs: the window is 2 epochs
        ([1.0, 0.8, 0.6, 0.5, 0.45, 0.44, 0.43, 0.42], 0.02 / 0.44),  # 8 epochs: window 2 (8 // 4): 0.44 to 0.42
        ([1.0] * 3 + [0.7, 0.5, 0.3, 0.2, 0.1, 0.05, 0.04, 0.03, 0.02], 0.6),  # 12 epochs: window 3: 0.05 to 0.02
        ([0.5, 0.2, 0.1, 0.3], -0.5),  # a loss that jumps up at the end: a negative drop
        ([4e-3, 3e-3, 2e-3, 1e-3], 2 / 3),  # small in nats (0.002), large as a share: no plateau
    ],
)
def test_the_plateau_drop_is_the_share_the_loss_fell_over_the_last_quarter(losses, drop):
    assert cv.plateau_drop(losses) == pytest.approx(drop)


def test_a_plateau_needs_three_epochs_and_a_positive_loss():
    with pytest.raises(ValueError, match="a plateau needs at least 3 epochs of training loss, got 2"):
        cv.plateau_drop([0.5, 0.4])
    with pytest.raises(ValueError) as zero:
        cv.plateau_drop([0.3, 0.0, 0.1, 0.0])
    assert str(zero.value) == "a relative drop needs a positive training loss, got 0.0 2 epochs before the last"


@pytest.mark.parametrize(
    ("drop", "plateau"),
    [(0.0999, True), (0.1, False), (-0.0999, True), (-0.1, False), (-1.25, False), (0.0, True), (0.62, False)],
)
def test_a_plateau_is_a_drop_smaller_than_the_threshold_either_way(drop, plateau):
    assert cv.is_plateau(drop, 0.1) is plateau


def _point(kept: int, raw: float) -> dict:
    return {"kept_epoch": kept, "values": {"raw": raw, "equal_bins": 0.0, "scale_free": 0.0}}


def test_a_length_axis_with_distinct_models_passes_and_one_model_twice_is_refused():
    cv.check_distinct_lengths({"8": _point(8, 0.1), "16": _point(16, 0.2), "32": _point(32, 0.3)})
    with pytest.raises(ValueError, match=r"budgets 3 and 10 hold the same model \(kept_epoch 3\)"):
        cv.check_distinct_lengths({"3": _point(3, 1.634280349), "10": _point(3, 1.634280348)})
    with pytest.raises(ValueError, match=r"budgets 8 and 16 hold the same model \(values 0.5\)"):
        cv.check_distinct_lengths({"8": _point(8, 0.5), "16": _point(16, 0.5)})
    with pytest.raises(ValueError) as refused:
        cv.check_distinct_lengths({"8": _point(8, 0.5), "16": _point(8, 0.25)})
    assert (
        str(refused.value) == "budgets 8 and 16 hold the same model (kept_epoch 8): a training-length axis needs distinct models"
    )


@pytest.mark.parametrize(("scale", "index"), [("fast", 0), ("full", 1)])
def test_the_converged_settings_take_the_grid_of_the_scale(scale, index):
    assert cv.converged_joint_settings(scale) == {
        "diagnosis": "converged_joint", "scale": scale, "dataset": "imdb",
        "preset": real_data_settings(scale, "imdb").as_dict(), "epochs": list(cv.BUDGETS[index]),
        "plateau_drop": cv.PLATEAU_DROP, "seeds": list(range(seed_count("one_layer", scale))),
    }  # fmt: skip
    # the seeds of the one-step arm the converged arm is paired with
    assert cv.converged_joint_settings(scale)["seeds"] == preset_seeds("one_layer", scale)
    budgets = cv.BUDGETS[index]
    assert len(set(budgets)) >= 3 and min(budgets) >= real_data_settings(scale, "imdb").epochs


class _Scored(torch.nn.Module):
    def __init__(self, values: list[float], scores: list[float], p: list[float]):
        super().__init__()
        self._values, self._scores = torch.tensor(values, dtype=torch.float64), torch.tensor(scores, dtype=torch.float64)
        self.p = torch.nn.Parameter(torch.tensor(p))

    def token_values(self):
        return self._values

    def token_scores(self):
        return self._scores


_GAPS = torch.linspace(-0.99, 0.99, 12, dtype=torch.float64)
X_TOKENS = torch.cat([_GAPS, _GAPS + 0.004, torch.tensor([float("nan")], dtype=torch.float64)])
"""Posterior gaps of 25 tokens in pairs that share a bin, the last never seen often enough (NaN)."""


def _values(k: float) -> list[float]:
    """Low in the middle, high at both ends; the two tokens of a pair differ by k: every bin has a spread."""
    return [k * (i - 6) ** 2 for i in range(12)] + [k * ((i - 6) ** 2 + 1) for i in range(12)] + [9.0]


SCORES = [1.0, -2.0, 0.5, 0.0, 7.0, 3.0, 2.5, -1.0, 0.25, 4.0, -3.0, 1.5] * 2 + [7.0]


def test_the_converged_runner_trains_each_budget_to_its_end_and_records_its_loss(monkeypatch):
    monkeypatch.setattr(cv, "load_data", lambda s, *, progress: SimpleNamespace(train="TRAIN", vocab_size=25))
    monkeypatch.setattr(cv, "token_importance", lambda train, V, *, min_count: (X_TOKENS, None))
    runs = []

    def run(kind, mode, s, data, progress, on_the_way=()):
        runs.append((kind, mode, s.epochs, s.seed, progress, tuple(on_the_way)))
        losses = [0.1 + 0.9 * 0.5**e for e in range(s.epochs)]  # levels off at 0.1
        history = TrainingHistory(list(range(1, s.epochs + 1)), losses, [0.5] * s.epochs, [0.6] * s.epochs,
                                  [1.0] * s.epochs, best_epoch=1, kept_last=True)  # fmt: skip
        model = _Scored(_values(float(s.epochs)), SCORES, [3.0, 4.0])
        return SimpleNamespace(test_accuracy=0.8 + s.epochs / 1000, history=history, model=model)

    monkeypatch.setattr(cv, "_run", run)
    settings = {"scale": "fast", "dataset": "imdb", "epochs": [8, 16, 4], "plateau_drop": 0.01, "seeds": [3, 1]}
    result = cv.run_converged_joint(settings, progress=True)
    # per seed, the longest budget first, saving the shorter ones on the way; then those, loaded
    assert runs == [
        ("one_layer", "joint_converged", e, seed, True, (4, 8) if e == 16 else ()) for seed in (3, 1) for e in (16, 4, 8)
    ]
    assert result["seeds"] == [3, 1] and list(result["joint"]) == ["4", "8", "16"]
    assert all(len(points) == 2 for points in result["joint"].values())
    assert result["joint"]["8"][0] == result["joint"]["8"][1]  # the stand-in model does not depend on the seed
    point = result["joint"]["8"][0]
    assert point["kept_epoch"] == 8 and point["best_epoch"] == 1 and point["test_accuracy"] == pytest.approx(0.808)
    assert point["train_loss"] == [0.1 + 0.9 * 0.5**e for e in range(8)]
    values = torch.tensor(_values(8.0), dtype=torch.float64)
    assert point["values"] == cv.spreads(X_TOKENS, values) and point["values"]["raw"] > 0
    assert point["scores"] == cv.spreads(X_TOKENS, torch.tensor(SCORES, dtype=torch.float64))
    assert point["p_norm"] == pytest.approx(5.0) and point["score_range"] == pytest.approx(10.0)
    finite = X_TOKENS.isfinite()
    n_boot = real_data_settings("fast", "imdb").n_boot
    for quantity, per_token in (("values", values), ("scores", torch.tensor(SCORES, dtype=torch.float64))):
        verdict = classify_shape(X_TOKENS[finite].numpy(), per_token[finite].numpy(), n_boot=n_boot, seed=0)
        assert point["shapes"][quantity] == {
            "shape": verdict.shape, "spearman": verdict.spearman,
            "left_spearman": verdict.left_spearman, "right_spearman": verdict.right_spearman,
        }  # fmt: skip
    assert point["shapes"]["values"]["shape"] == "U-shaped"  # k (i - 6)^2: low in the middle, high at both ends

    def loss(e):
        return 0.1 + 0.9 * 0.5**e

    # 8 epochs, window 2: epoch index 5 to 7; 16 epochs, window 4: 11 to 15, about 0.4 %
    assert point["plateau_drop"] == pytest.approx(1 - loss(7) / loss(5)) and point["plateau"] is False
    sixteen = result["joint"]["16"][1]
    assert sixteen["plateau_drop"] == pytest.approx(1 - loss(15) / loss(11)) and sixteen["plateau"] is True
    settings["plateau_drop"] = sixteen["plateau_drop"]  # on the bound: not a plateau (strictly below)
    assert cv.run_converged_joint(settings)["joint"]["16"][1]["plateau"] is False
    settings["plateau_drop"] = 0.2
    again = cv.run_converged_joint(settings)["joint"]
    assert again["8"][1]["plateau"] is True and again["4"][1]["plateau"] is False  # 16 % is below 0.2, 61 % is not


def test_the_converged_runner_refuses_budgets_that_return_one_model(monkeypatch):
    monkeypatch.setattr(cv, "load_data", lambda s, *, progress: SimpleNamespace(train="TRAIN", vocab_size=25))
    monkeypatch.setattr(cv, "token_importance", lambda train, V, *, min_count: (X_TOKENS, None))
    history = TrainingHistory([1, 2, 3], [0.3, 0.2, 0.1], [0.5] * 3, [0.6] * 3, [1.0] * 3, best_epoch=3)
    model = _Scored(_values(1.0), SCORES, [1.0])
    monkeypatch.setattr(cv, "_run", lambda *a: SimpleNamespace(test_accuracy=0.7, history=history, model=model))
    with pytest.raises(ValueError, match="budgets 3 and 10 hold the same model"):
        cv.run_converged_joint({"scale": "fast", "dataset": "imdb", "epochs": [3, 10], "plateau_drop": 0.01, "seeds": [0]})


def test_the_converged_runner_passes_the_data_the_preset_and_the_shape_rule_settings(monkeypatch):
    preset = real_data_settings("fast", "imdb")
    data = SimpleNamespace(train="TRAIN", vocab_size=25)
    asked = {"load": [], "importance": [], "runs": [], "shapes": []}

    def load(s, *, progress):
        asked["load"].append((s, progress))
        return data

    def importance(train, V, *, min_count):
        asked["importance"].append((train, V, min_count))
        return X_TOKENS, None

    def run(kind, mode, s, loaded, progress, on_the_way=()):
        asked["runs"].append(loaded)
        n = s.epochs
        history = TrainingHistory(
            list(range(1, n + 1)), [0.3] * n, [0.5] * n, [0.6, 0.7] + [0.65] * (n - 2), [1.0] * n, 2, kept_last=True
        )
        return SimpleNamespace(test_accuracy=0.7, history=history, model=_Scored(_values(float(s.epochs)), SCORES, [1.0]))

    def shape(x, y, *, n_boot=1000, seed=0):  # classify_shape's defaults
        asked["shapes"].append((len(x), n_boot, seed))
        return SimpleNamespace(shape="flat", spearman=0.1, left_spearman=0.2, right_spearman=0.3)

    monkeypatch.setattr(cv, "load_data", load)
    monkeypatch.setattr(cv, "token_importance", importance)
    monkeypatch.setattr(cv, "_run", run)
    monkeypatch.setattr(cv, "classify_shape", shape)
    settings = {"scale": "fast", "dataset": "imdb", "epochs": [3, 4], "plateau_drop": 0.01, "seeds": [0, 2]}
    result = cv.run_converged_joint(settings)
    assert asked["load"] == [(preset, False), (replace(preset, seed=2), False)]  # each seed's split; progress off
    assert asked["importance"] == [("TRAIN", 25, preset.importance_min_count)] * 2
    assert asked["runs"] == [data] * 4
    assert asked["shapes"] == [(25, preset.n_boot, 0)] * 8  # values and scores of both budgets and seeds
    point = result["joint"]["4"][1]
    assert point["validation_accuracy"] == [0.6, 0.7, 0.65, 0.65] and point["kept_epoch"] == 4 and point["best_epoch"] == 2
    assert point["shapes"]["scores"] == {"shape": "flat", "spearman": 0.1, "left_spearman": 0.2, "right_spearman": 0.3}


def test_on_epoch_sees_every_epoch_with_the_model_in_that_epochs_state(toy):
    seen = []

    def look(history):
        seen.append((list(history.epoch), history.best_epoch, float(model.p.detach().norm()), history.seconds))

    model = CLSAttention(toy.vocab_size, 8, seed=0)
    history = train_model(
        model, toy.train, toy.validation, epochs=4, batch_size=16, lr=0.05, keep="last", progress=False, on_epoch=look
    )
    assert [s[0] for s in seen] == [[1], [1, 2], [1, 2, 3], [1, 2, 3, 4]]
    assert seen[-1][2] == pytest.approx(float(model.p.detach().norm()))  # the last call saw the final parameters
    assert len({s[2] for s in seen}) == 4  # each call saw that epoch's parameters, not one shared state
    assert all(0 < s[3] <= history.seconds for s in seen) and seen[-1][1] == history.best_epoch
    # with early stopping the epoch that stops training is seen too (lr 3.0 stalls the validation accuracy at once)
    stopped = []
    early = train_model(
        CLSAttention(toy.vocab_size, 8, seed=0), toy.train, toy.validation, epochs=12, batch_size=16, lr=3.0,
        patience=1, progress=False, on_epoch=lambda h: stopped.append(len(h.epoch)),
    )  # fmt: skip
    assert stopped == early.epoch and len(early.epoch) < 12


def _timeless(history: dict) -> dict:
    return {k: v for k, v in history.items() if k not in ("epoch_seconds", "seconds")}


@pytest.mark.parametrize(("mode", "budget"), [("joint_converged", "epochs"), ("one_step_converged", "frozen_epochs")])
def test_the_budgets_saved_on_the_way_are_the_runs_of_those_lengths(toy, tmp_path, mode, budget):
    settings = real_data_settings("fast", d=4, lr=0.05, frozen_lr=0.05, batch_size=16, **{budget: 5})
    apart = str(tmp_path / "alone")
    alone = {
        e: run_experiment("one_layer", mode, replace(settings, **{budget: e}), data=toy, cache_dir=apart, progress=False)
        for e in (2, 3)
    }  # fmt: skip
    way = str(tmp_path / "way")
    longest = run_experiment("one_layer", mode, settings, data=toy, cache_dir=way, progress=False, on_the_way=(3, 2))
    assert not longest.loaded and longest.history.epoch == [1, 2, 3, 4, 5]
    for e, run in alone.items():
        passed = run_experiment("one_layer", mode, replace(settings, **{budget: e}), data=toy, cache_dir=way, progress=False)
        assert passed.loaded, f"the {e}-epoch run was not saved on the way"
        assert passed.checkpoint.name == run.checkpoint.name  # the same configuration names the same file
        for name, tensor in run.model.state_dict().items():
            assert torch.equal(passed.model.state_dict()[name], tensor), f"{e} epochs: {name} differs"
        assert _timeless(passed.history.as_dict()) == _timeless(run.history.as_dict())
        assert passed.history.stop_reason == f"ran all {e} epochs" and passed.history.kept_epoch == e
        assert passed.test_accuracy == run.test_accuracy
        assert {k: passed.metrics.get(k) for k in ("eta_star", "step_size")} == {
            k: run.metrics.get(k) for k in ("eta_star", "step_size")
        }  # a one-step run saved on the way keeps its step, as a run of that length does
    loaded = torch.load(alone[3].checkpoint, weights_only=True)["state"]
    moved = "E" if mode == "joint_converged" else "p"
    assert not torch.equal(loaded[moved], longest.model.state_dict()[moved])  # the longest run went on past them
    skipped = run_experiment("one_layer", mode, replace(settings, **{budget: 4}), data=toy, cache_dir=way, progress=False)
    assert not skipped.loaded, "a budget not named on the way is not saved"


@pytest.mark.parametrize(
    ("mode", "on_the_way", "message"),
    [
        ("joint", (2,), r"on_the_way needs a mode of \['joint_converged', 'one_step_converged'\].*got 'joint'"),
        ("one_step_frozen", (2,), r"got 'one_step_frozen'"),
        ("one_step_converged", (7,), r"whole numbers of epochs from 1 to 6, got \[7\]"),  # its budget: frozen_epochs
        ("joint_converged", (0,), r"whole numbers of epochs from 1 to 4, got \[0\]"),
        ("joint_converged", (2, 5), r"whole numbers of epochs from 1 to 4, got \[5\]"),
        ("joint_converged", (1, 4, 2.0), r"got \[2.0\]"),
        ("joint_converged", (True,), r"got \[True\]"),
    ],
)
def test_on_the_way_takes_shorter_whole_budgets_of_a_converged_run(toy, tmp_path, mode, on_the_way, message):
    settings = real_data_settings("fast", d=4, epochs=5, frozen_epochs=7, batch_size=16)
    with pytest.raises(ValueError, match=message):
        run_experiment("one_layer", mode, settings, data=toy, cache_dir=str(tmp_path), progress=False, on_the_way=on_the_way)
    assert not any(tmp_path.rglob("*.pt")), "nothing is trained before the budgets are checked"
