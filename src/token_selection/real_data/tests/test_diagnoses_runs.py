"""The diagnoses' settings and runners without training: the runs are replaced by stand-ins that record the settings
they get and return fixed accuracies and per-token tables, so every test checks what a runner asks for and how it
turns the answers into its record, in milliseconds."""

from __future__ import annotations

import math
import sys
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from token_selection.real_data import converged as cv
from token_selection.real_data import diagnoses as dg
from token_selection.real_data.encoding import EncodedSplit
from token_selection.real_data.measurements import token_importance
from token_selection.real_data.settings import real_data_settings
from token_selection.theory.shape import classify_shape


@pytest.mark.parametrize(("scale", "index"), [("fast", 0), ("full", 1)])
def test_each_diagnosis_takes_its_grids_at_the_scale(scale, index):
    grid = {name: list(values[index]) for name, values in dg.GRIDS.items()}
    preset = real_data_settings(scale, "imdb").as_dict()
    assert dg.frozen_capacity_settings(scale) == {
        "diagnosis": "frozen_capacity", "scale": scale, "dataset": "imdb", "preset": preset,
        "d_grid": grid["d"], "frozen_epochs_grid": grid["frozen_epochs"], "seeds": [0],
    }  # fmt: skip
    assert dg.spread_readings_settings(scale) == {
        "diagnosis": "spread_readings", "scale": scale, "dataset": "imdb", "preset": preset,
        "step_factors": grid["step_factor"], "joint_epochs": grid["joint_epochs"], "seeds": [0],
    }  # fmt: skip
    assert dg.shape_budget_settings(scale) == {
        "diagnosis": "shape_budget", "scale": scale, "dataset": "imdb", "preset": preset,
        "epochs": grid["shape_epochs"], "seeds": grid["shape_seeds"],
    }  # fmt: skip
    presets = {name: real_data_settings(scale, name).as_dict() for name in ("imdb", "yelp_polarity")}
    assert dg.accuracy_reference_settings(scale) == {
        "diagnosis": "accuracy_reference", "scale": scale, "presets": presets, "C_grid": grid["baseline_C"], "seeds": [0],
    }  # fmt: skip


def test_a_diagnosis_runs_with_its_settings_describes_its_grids_and_costs_by_scale(monkeypatch):
    seen = []
    diagnosis = dg.Diagnosis(
        "diagnosis-x",
        dg.frozen_capacity_settings,
        lambda s, *, progress: seen.append((s, progress)) or {"ok": 1},
        "Runs x.",
        (3.0, 7.0),
    )
    assert diagnosis.run({"scale": "fast"}) == {"ok": 1} and seen == [({"scale": "fast"}, False)]
    diagnosis.run({"scale": "full"}, progress=True)
    assert seen[-1][1] is True
    settings = {"diagnosis": "x", "scale": "full", "preset": {"d": 1}, "presets": {}, "d_grid": [1, 2], "seeds": [0]}
    assert diagnosis.protocol(settings) == "Runs x. Grids: {'d_grid': [1, 2], 'seeds': [0]}. Other settings: the full preset."
    assert (diagnosis.relative_cost("fast"), diagnosis.relative_cost("full")) == (3.0, 7.0)
    assert [d.name for d in dg.DIAGNOSES.values()] == list(dg.DIAGNOSES)
    assert {d.runner for d in dg.DIAGNOSES.values()} == {
        dg.run_frozen_capacity, dg.run_spread_readings, dg.run_converged_joint, dg.run_shape_budget,
        dg.run_matched_vocabulary, dg.run_accuracy_reference, dg.run_one_step_direct, dg.run_selection_mass,
        dg.run_converged_one_step,
    }  # fmt: skip


@pytest.mark.parametrize("module", [dg, cv], ids=["diagnoses", "converged"])
def test_a_diagnosis_run_goes_through_the_pipeline_with_the_data_and_progress(monkeypatch, module):
    calls = []
    monkeypatch.setattr(
        module,
        "run_experiment",
        lambda kind, mode, s, *, data, progress, on_the_way: calls.append((kind, mode, s, data, progress, on_the_way)) or "RUN",
    )
    settings = real_data_settings("fast", d=8)
    assert module._run("mlp", "joint", settings, "DATA", True) == "RUN"
    assert module._run("one_layer", "one_step_converged", settings, "DATA", False, [2, 4]) == "RUN"
    assert calls == [
        ("mlp", "joint", settings, "DATA", True, ()),
        ("one_layer", "one_step_converged", settings, "DATA", False, [2, 4]),
    ]
    preset = module._preset({"scale": "full", "dataset": "yelp_polarity", "d_grid": [3]})
    assert preset == real_data_settings("full", "yelp_polarity")


def _stand_in_run(test_accuracy: float, epochs_run: int = 3, best_epoch: int = 2, model=None):
    return SimpleNamespace(
        test_accuracy=test_accuracy,
        history=SimpleNamespace(epoch=list(range(1, epochs_run + 1)), best_epoch=best_epoch),
        model=model,
    )


def test_frozen_capacity_compares_the_modes_at_each_d_and_the_frozen_budgets(monkeypatch):
    loaded, runs = [], []
    monkeypatch.setattr(dg, "load_data", lambda s, *, progress: loaded.append((s, progress)) or SimpleNamespace(vocab_size=100))
    frozen_accuracy = {10: 0.6, 100: 0.7, 1000: 0.8}  # reaches 0.72 between d/V = 1 and 10

    def run(kind, mode, s, data, progress):
        runs.append((kind, mode, s.d, s.frozen_epochs, s.frozen_patience))
        if mode == "joint":
            return _stand_in_run(0.9)
        if s.frozen_epochs != real_data_settings("fast").frozen_epochs:
            return _stand_in_run(0.5 + s.frozen_epochs / 1000, best_epoch=s.frozen_epochs - 1)
        return _stand_in_run(frozen_accuracy[s.d], epochs_run=s.d // 10)

    monkeypatch.setattr(dg, "_run", run)
    settings = {"scale": "fast", "dataset": "imdb", "d_grid": [10, 100, 1000], "frozen_epochs_grid": [5, 60]}
    result = dg.run_frozen_capacity(settings, progress=True)
    assert loaded == [(real_data_settings("fast", "imdb"), True)]
    preset = real_data_settings("fast")
    assert runs[:6] == [("one_layer", mode, d, preset.frozen_epochs, preset.frozen_patience)
                        for d in (10, 100, 1000) for mode in ("frozen_random", "joint")]  # fmt: skip
    assert runs[6:] == [("one_layer", "frozen_random", preset.d, 5, 5), ("one_layer", "frozen_random", preset.d, 60, 60)]
    assert result["vocab_size"] == 100
    assert result["rows"] == [
        {"d": d, "d_over_V": d / 100, "frozen": frozen_accuracy[d], "joint": 0.9, "frozen_epochs_run": d // 10}
        for d in (10, 100, 1000)
    ]
    assert result["budgets"] == [
        {"epochs": 5, "frozen": 0.505, "best_epoch": 4},
        {"epochs": 60, "frozen": 0.56, "best_epoch": 59},
    ]
    assert result["spearman_frozen_vs_d"] == pytest.approx(1.0)
    # 0.72 lies a fifth of the way from 0.7 (d/V = 1) to 0.8 (d/V = 10): 10 ** 0.2 on the log scale
    assert result["crossing_72"] == pytest.approx(10**0.2)


def test_the_spearman_of_a_falling_and_a_mixed_sequence():
    assert dg._spearman(np.array([1.0, 2.0, 3.0, 4.0]), np.array([4.0, 3.0, 2.0, 1.0])) == pytest.approx(-1.0)
    # ranks (1, 2, 3, 4) against (2, 1, 4, 3): 1 - 6 * 4 / (4 * 15) = 0.6
    assert dg._spearman(np.array([1.0, 2.0, 3.0, 4.0]), np.array([2.0, 1.0, 4.0, 3.0])) == pytest.approx(0.6)


def test_crossing_at_the_first_point_and_with_a_fall_in_between():
    x = np.array([1.0, 10.0, 100.0])
    assert dg._crossing(x, np.array([0.8, 0.6, 0.9]), 0.72) == 1.0  # reached at once
    # the first point at or above the level is the third; interpolate from the second (0.6 -> 0.9, halfway to 0.75)
    assert dg._crossing(x, np.array([0.5, 0.6, 0.9]), 0.75) == pytest.approx(10**1.5)
    assert dg._crossing(x, np.array([0.5, 0.6, 0.72]), 0.72) == pytest.approx(100.0)  # reached exactly at the last point


def test_spreads_use_twenty_equal_bins_for_the_second_reading():
    x = torch.tensor([-0.99, -0.96, 0.02, 0.08, float("nan")], dtype=torch.float64)
    q = torch.tensor([1.0, 3.0, 0.0, 4.0, 9.0], dtype=torch.float64)
    s = dg.spreads(x, q)
    # equal bins of width 0.1: {-0.99, -0.96} (std 1), {0.02, 0.08} (std 2): mean 1.5
    assert s["equal_bins"] == pytest.approx(1.5)
    # the rebuttal's bins: -0.99 and -0.96 share the first bin (std 1); 0.02 and 0.08 fall on either side of the
    # edge between 0.01 and 0.14 (at 0.075): std 0 each; weighted (2 * 1 + 0 + 0) / 4
    assert s["raw"] == pytest.approx(0.5)
    assert s["scale_free"] == pytest.approx(0.5 / float(torch.tensor([1.0, 3.0, 0.0, 4.0], dtype=torch.float64).std()))
    assert dg.spreads(x, q.float())["raw"] == pytest.approx(0.5)  # float32 quantities are read in float64


class _Tables(torch.nn.Module):
    """A trained model as far as the spread readings see it: fixed token values and scores, and p."""

    def __init__(self, values, scores, p_norm=2.0):
        super().__init__()
        self.values, self.scores = values, scores
        self.p = torch.nn.Parameter(torch.tensor([p_norm, 0.0]))

    def token_values(self):
        return self.values.float()

    def token_scores(self):
        return self.scores.float()


def _data(V=40, n=400, seed=0):
    gen = torch.Generator().manual_seed(seed)
    X = torch.randint(2, V, (n, 6), generator=gen)
    mask = torch.arange(6)[None, :] < torch.randint(2, 7, (n,), generator=gen)[:, None]
    y = (torch.rand(n, generator=gen) < ((X >= V // 2) & mask).sum(1) / mask.sum(1)).long()
    return SimpleNamespace(train=EncodedSplit(X.masked_fill(~mask, 0), mask, y, "t"), vocab_size=V)


def test_spread_readings_measure_each_step_size_and_training_length_and_every_ratio(monkeypatch):
    data = _data()
    monkeypatch.setattr(dg, "load_data", lambda s, *, progress: data)
    tokens = torch.arange(40, dtype=torch.float64)
    runs = []

    def run(kind, mode, s, data, progress):
        runs.append((kind, mode, s.step_factor, s.epochs, s.patience))
        scale = s.step_factor if mode == "one_step_frozen" else s.epochs
        return _stand_in_run(0.5 + scale / 100, model=_Tables(scale * torch.sin(tokens), scale * torch.cos(tokens)))

    monkeypatch.setattr(dg, "_run", run)
    settings = {"scale": "fast", "dataset": "imdb", "step_factors": [0.5, 2.0], "joint_epochs": [1, 3]}
    result = dg.run_spread_readings(settings)
    preset = real_data_settings("fast")
    assert runs == [
        ("one_layer", "one_step_frozen", 0.5, preset.epochs, preset.patience),
        ("one_layer", "one_step_frozen", 2.0, preset.epochs, preset.patience),
        ("one_layer", "joint", preset.step_factor, 1, 1),
        ("one_layer", "joint", preset.step_factor, 3, 3),
    ]
    x, _ = token_importance(data.train, 40, min_count=preset.importance_min_count)
    assert set(result["one_step"]) == {"0.5", "2.0"} and set(result["joint"]) == {"1", "3"}
    half = result["one_step"]["0.5"]
    assert half["values"] == pytest.approx(dg.spreads(x, 0.5 * torch.sin(tokens)))
    assert half["scores"] == pytest.approx(dg.spreads(x, 0.5 * torch.cos(tokens)))
    assert (half["test_accuracy"], half["best_epoch"], half["p_norm"]) == (0.505, 2, 2.0)
    assert result["joint"]["3"]["test_accuracy"] == 0.53 and "p_norm" not in result["joint"]["3"]
    ratios = result["ratios"]
    assert set(ratios) == {"values", "scores"} and set(ratios["values"]) == {"raw", "equal_bins", "scale_free"}
    assert set(ratios["scores"]["raw"]) == {"1|0.5", "1|2.0", "3|0.5", "3|2.0"}
    # the stand-in's curves scale with the step size or the epochs: raw and equal-bin spreads scale alike
    assert ratios["values"]["raw"]["3|0.5"] == pytest.approx(3 / 0.5)
    assert ratios["scores"]["equal_bins"]["1|2.0"] == pytest.approx(1 / 2.0)
    assert ratios["values"]["scale_free"]["3|0.5"] == pytest.approx(1.0)  # scale-free: the same curve


def _readings_model(kind):
    V = 40
    tokens = torch.arange(V, dtype=torch.float64)

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.E = torch.nn.Parameter(torch.zeros(V, 2))

        def token_scores(self):
            return ((tokens - 20) / 20).float()

        def first_layer_scores(self):
            return ((tokens - 25) ** 2 / 400).float()

        def mean_layer2_scores(self, X, mask):
            self.asked = (X, mask)
            return torch.cos(tokens)

    model = Model()
    return model


def test_score_readings_of_each_kind():
    data = _data()
    key_query = _readings_model("key_query")
    readings = dg._score_readings("key_query", key_query, data.train)
    assert list(readings) == ["p . W2 E_s", "p . W1 E_s", "mean layer-2 score"]
    assert all(r.dtype == torch.float64 for r in readings.values())
    assert torch.equal(readings["mean layer-2 score"], torch.cos(torch.arange(40, dtype=torch.float64)))
    assert torch.equal(key_query.asked[0], data.train.X) and torch.equal(key_query.asked[1], data.train.mask)
    assert list(dg._score_readings("mlp", _readings_model("mlp"), data.train)) == ["E_s . p"]


def test_score_readings_move_the_reviews_to_the_model_device():
    """A model on a GPU gets the reviews on its device: checked on ``meta`` (shapes only), where E sits after ``to``."""
    data = _data()
    model = _readings_model("key_query").to("meta")
    readings = dg._score_readings("key_query", model, data.train)
    assert model.asked[0].device.type == "meta" and model.asked[1].device.type == "meta"
    assert all(r.device.type == "cpu" for r in readings.values())  # the readings come back to the CPU


def test_shape_budget_judges_every_reading_of_every_run(monkeypatch):
    datasets = {}

    def load(s, *, progress):
        datasets[s.seed] = _data(seed=s.seed)
        return datasets[s.seed]

    runs = []

    def run(kind, mode, s, data, progress):
        runs.append((kind, mode, s.seed, s.epochs, s.patience, data is datasets[s.seed]))
        return _stand_in_run(0.6 + s.epochs / 100 + s.seed / 1000, model=_readings_model(kind))

    monkeypatch.setattr(dg, "load_data", load)
    monkeypatch.setattr(dg, "_run", run)
    preset = real_data_settings("fast")
    settings = {"scale": "fast", "dataset": "imdb", "epochs": [1, 3], "seeds": [0, 1]}
    rows = dg.run_shape_budget(settings)["rows"]
    assert runs == [(kind, "joint", seed, e, e, True) for seed in (0, 1) for kind in ("key_query", "mlp") for e in (1, 3)]
    assert len(rows) == 2 * 2 * (3 + 1)  # seeds x epochs x (three W_KQ readings + one MLP reading)
    first = rows[0]
    assert (first["kind"], first["epochs"], first["seed"], first["reading"]) == ("key_query", 1, 0, "p . W2 E_s")
    x, _ = token_importance(datasets[0].train, 40, min_count=preset.importance_min_count)
    scores = ((torch.arange(40, dtype=torch.float64) - 20) / 20).float().double()
    verdict = classify_shape(x.numpy(), scores.numpy(), n_boot=preset.n_boot, seed=0)
    assert (first["shape"], first["spearman"], first["test_accuracy"]) == (verdict.shape, verdict.spearman, 0.61)
    last = rows[-1]
    assert (last["kind"], last["epochs"], last["seed"], last["reading"], last["test_accuracy"]) == ("mlp", 3, 1, "E_s . p", 0.631)
    x1, _ = token_importance(datasets[1].train, 40, min_count=preset.importance_min_count)
    assert last["spearman"] == classify_shape(x1.numpy(), scores.numpy(), n_boot=preset.n_boot, seed=1).spearman


def test_bag_of_words_counts_each_word_once_per_occurrence_with_the_vocabulary_as_columns():
    X = torch.tensor([[5, 5, 5, 2], [0, 3, 1, 1], [4, 0, 0, 0]])
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 1, 0], [1, 0, 0, 0]], dtype=torch.bool)  # a <pad> id inside the mask
    counts = dg.bag_of_words(EncodedSplit(X, mask, torch.tensor([0, 1, 0]), "toy"), 7)
    assert counts.shape == (3, 7) and counts.format == "csr" and counts.has_canonical_format
    assert counts.toarray().tolist() == [[0, 0, 1, 0, 0, 3, 0], [0, 0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 1, 0, 0]]


class _Logistic:
    """A stand-in for scikit-learn's LogisticRegression whose accuracy on each part follows a script by C."""

    script: dict = {}
    fitted: list = []
    scored: list = []

    def __init__(self, C, max_iter):
        self.C, self.max_iter = C, max_iter

    def fit(self, features, y):
        _Logistic.fitted.append((self.C, self.max_iter, features, y))
        return self

    def score(self, features, y):
        _Logistic.scored.append((features.shape[0], y))
        return _Logistic.script[(self.C, features.shape[0])]


def _stand_in_sklearn(monkeypatch) -> None:
    """``sklearn.linear_model.LogisticRegression`` is the stand-in (scikit-learn itself is not imported)."""
    linear_model = SimpleNamespace(LogisticRegression=_Logistic)
    monkeypatch.setitem(sys.modules, "sklearn", SimpleNamespace(linear_model=linear_model))
    monkeypatch.setitem(sys.modules, "sklearn.linear_model", linear_model)


def test_the_accuracy_reference_picks_c_on_validation_and_reports_its_test_accuracy(monkeypatch):
    _stand_in_sklearn(monkeypatch)

    def split(n, seed):
        gen = torch.Generator().manual_seed(seed)
        X = torch.randint(0, 12, (n, 5), generator=gen)
        return EncodedSplit(X, torch.ones(n, 5, dtype=torch.bool), torch.arange(n) % 2, "s")

    data = SimpleNamespace(train=split(30, 0), validation=split(7, 1), test=split(11, 2), vocab_size=12)
    loaded = []
    monkeypatch.setattr(dg, "load_data", lambda s, *, progress: loaded.append((s.dataset, s.scale, progress)) or data)
    # validation (7 reviews): C 0.1 and 1.0 tie at the best; the first of them is kept; test (11 reviews)
    _Logistic.script = {(0.01, 7): 0.5, (0.1, 7): 0.8, (1.0, 7): 0.8, (0.01, 11): 0.1, (0.1, 11): 0.75, (1.0, 11): 0.9}
    _Logistic.fitted, _Logistic.scored = [], []
    settings = {"scale": "fast", "presets": {"imdb": {}, "yelp_polarity": {}}, "C_grid": [0.01, 0.1, 1.0]}
    result = dg.run_accuracy_reference(settings, progress=True)
    labels = {7: data.validation.y.numpy(), 11: data.test.y.numpy()}
    assert {n for n, _ in _Logistic.scored} == {7, 11}  # scored on the validation part and on the test part
    assert all(np.array_equal(y, labels[n]) for n, y in _Logistic.scored)  # against their own labels
    assert loaded == [("imdb", "fast", True), ("yelp_polarity", "fast", True)]
    expected = {"C": 0.1, "validation_accuracy": 0.8, "test_accuracy": 0.75, "vocab_size": 12, "n_train": 30, "n_test": 11}
    assert result == {"imdb": expected, "yelp_polarity": expected}
    C, max_iter, features, y = _Logistic.fitted[0]
    assert (C, max_iter) == (0.01, 2000) and np.array_equal(y, data.train.y.numpy())
    counts = dg.bag_of_words(data.train, 12)
    assert np.allclose(features.toarray(), np.log1p(counts.toarray()))  # log(1 + count) features
    assert [f[0] for f in _Logistic.fitted] == [0.01, 0.1, 1.0, 0.01, 0.1, 1.0]


def test_the_accuracy_reference_keeps_a_first_c_that_is_never_beaten(monkeypatch):
    _stand_in_sklearn(monkeypatch)
    data = SimpleNamespace(
        train=EncodedSplit(torch.tensor([[2, 3]] * 4), torch.ones(4, 2, dtype=torch.bool), torch.tensor([0, 1, 0, 1]), "s"),
        validation=EncodedSplit(torch.tensor([[2, 2]] * 3), torch.ones(3, 2, dtype=torch.bool), torch.tensor([0, 1, 1]), "s"),
        test=EncodedSplit(torch.tensor([[3, 3]] * 5), torch.ones(5, 2, dtype=torch.bool), torch.tensor([0, 1, 1, 0, 1]), "s"),
        vocab_size=4,
    )
    loaded = []
    monkeypatch.setattr(dg, "load_data", lambda s, *, progress: loaded.append((s, progress)) or data)
    _Logistic.script = {(0.5, 3): 0.0, (2.0, 3): 0.0, (0.5, 5): 0.4, (2.0, 5): 0.6}  # validation accuracy 0 for both
    result = dg.run_accuracy_reference({"scale": "full", "presets": {"imdb": {}}, "C_grid": [0.5, 2.0]})
    assert loaded == [(real_data_settings("full", "imdb"), False)]  # the full preset, quietly by default
    assert result["imdb"]["C"] == 0.5 and result["imdb"]["test_accuracy"] == 0.4 and result["imdb"]["n_test"] == 5
    assert math.isclose(result["imdb"]["validation_accuracy"], 0.0)


def test_an_empty_grid_of_c_has_no_reference(monkeypatch):
    _stand_in_sklearn(monkeypatch)
    data = SimpleNamespace(**{k: EncodedSplit(torch.tensor([[2]]), torch.tensor([[True]]), torch.tensor([1]), "s")
                              for k in ("train", "validation", "test")}, vocab_size=3)  # fmt: skip
    monkeypatch.setattr(dg, "load_data", lambda s, *, progress: data)
    with pytest.raises(AssertionError):
        dg.run_accuracy_reference({"scale": "fast", "presets": {"imdb": {}}, "C_grid": []})


def test_spreads_bin_the_second_reading_over_minus_one_to_one():
    x = torch.tensor([-0.99, -0.91, float("nan")], dtype=torch.float64)
    q = torch.tensor([0.0, 2.0, 5.0], dtype=torch.float64)
    assert dg.spreads(x, q)["equal_bins"] == pytest.approx(1.0)  # both in the first bin [-1, -0.9): std 1


def test_frozen_capacity_hands_every_run_the_loaded_data_and_the_progress_setting(monkeypatch):
    data = SimpleNamespace(vocab_size=100)
    loaded, handed = [], []
    monkeypatch.setattr(dg, "load_data", lambda s, *, progress: loaded.append(progress) or data)

    def run(kind, mode, s, given, progress):
        handed.append((given is data, progress))
        return _stand_in_run(0.5 + s.d / 1000 + s.frozen_epochs / 10000)

    monkeypatch.setattr(dg, "_run", run)
    settings = {"scale": "fast", "dataset": "imdb", "d_grid": [10, 100], "frozen_epochs_grid": [5]}
    dg.run_frozen_capacity(settings)
    dg.run_frozen_capacity(settings, progress=True)
    assert loaded == [False, True]  # quiet by default
    assert handed == [(True, False)] * 5 + [(True, True)] * 5


def test_spread_readings_hand_every_run_the_loaded_preset_data_and_the_progress_setting(monkeypatch):
    data = _data()
    loaded, handed = [], []
    monkeypatch.setattr(dg, "load_data", lambda s, *, progress: loaded.append((s, progress)) or data)
    tokens = torch.arange(40, dtype=torch.float64)

    def run(kind, mode, s, given, progress):
        handed.append((given is data, progress))
        best = s.epochs if mode == "joint" else 1
        return _stand_in_run(0.6, best_epoch=best, model=_Tables(torch.sin(tokens), torch.cos(tokens)))

    monkeypatch.setattr(dg, "_run", run)
    settings = {"scale": "full", "dataset": "imdb", "step_factors": [2.0], "joint_epochs": [3]}
    result = dg.run_spread_readings(settings)
    dg.run_spread_readings(settings, progress=True)
    preset = real_data_settings("full", "imdb")
    assert loaded == [(preset, False), (preset, True)]
    assert handed == [(True, False)] * 2 + [(True, True)] * 2
    assert result["joint"]["3"]["best_epoch"] == 3 and result["one_step"]["2.0"]["best_epoch"] == 1


def test_shape_budget_judges_with_the_preset_bootstrap_and_the_run_seed_and_hands_on_progress(monkeypatch):
    datasets, loaded, handed, judged = {}, [], [], []

    def load(s, *, progress):
        loaded.append((s.seed, progress))
        datasets[s.seed] = _data(seed=s.seed)
        return datasets[s.seed]

    def run(kind, mode, s, given, progress):
        handed.append((given is datasets[s.seed], progress))
        return _stand_in_run(0.6, model=_readings_model(kind))

    def judge(x, y, *, n_boot, seed):
        judged.append((n_boot, seed))
        return SimpleNamespace(shape="flat", spearman=0.0)

    monkeypatch.setattr(dg, "load_data", load)
    monkeypatch.setattr(dg, "_run", run)
    monkeypatch.setattr(dg, "classify_shape", judge)
    settings = {"scale": "fast", "dataset": "imdb", "epochs": [1], "seeds": [3]}
    dg.run_shape_budget(settings)
    dg.run_shape_budget(settings, progress=True)
    assert loaded == [(3, False), (3, True)]
    assert handed == [(True, False)] * 2 + [(True, True)] * 2  # W_KQ and MLP, each time
    assert judged == [(real_data_settings("fast").n_boot, 3)] * 8 and real_data_settings("fast").n_boot != 1000
