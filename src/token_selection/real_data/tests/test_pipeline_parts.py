"""The pipeline's parts without training: names, seeds, the settings a record covers, the protocol in words, which
trainer each mode calls with which settings, what a run's metrics hold, and how seeds are aggregated. The models
and trainers are replaced by stand-ins that record what they are given, so every test runs in milliseconds."""

from __future__ import annotations

import math
import re
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from token_selection.real_data import pipeline
from token_selection.real_data.checkpoints import LoadedOrTrained
from token_selection.real_data.encoding import EncodedReviews, EncodedSplit
from token_selection.real_data.pipeline import (
    TrainedRun,
    aggregate_seeds,
    metric_at,
    missing_message,
    preset_seeds,
    protocol,
    record_name,
    record_settings,
    seed_paths,
)
from token_selection.real_data.settings import real_data_settings
from token_selection.real_data.trainer import TrainingHistory
from token_selection.results import read_record


def _split(n: int, T: int = 5) -> EncodedSplit:
    X = (torch.arange(n * T).reshape(n, T) % 9) + 2
    return EncodedSplit(X, torch.ones(n, T, dtype=torch.bool), torch.arange(n) % 2, f"part of {n}")


def _data(name: str = "imdb", hub_error: str | None = "offline", n_train: int = 1234) -> EncodedReviews:
    return EncodedReviews(
        name=name,
        vocab=["<pad>", "<unk>"] + [f"w{i}" for i in range(1498)],
        train=_split(n_train),
        validation=_split(56),
        test=_split(2001),
        test_texts=[],
        config={"kind": "encoded_reviews", "T": 5},
        cache_path=Path("x.pt"),
        from_cache=True,
        seconds=0.0,
        stand_in=False,
        hub_error=hub_error,
    )


def test_record_names_join_dataset_kind_and_mode_and_check_the_pair():
    assert record_name("yelp_stars", "multiclass", "joint") == "yelp_stars-multiclass-joint"
    assert record_name("imdb", "one_layer", "one_step_frozen") == "imdb-one_layer-one_step_frozen"
    with pytest.raises(ValueError, match="one_step_frozen"):
        record_name("imdb", "mlp", "one_step_frozen")


def test_preset_seeds_count_from_zero_per_kind_and_scale():
    assert preset_seeds("one_layer", "fast") == [0] and preset_seeds("two_layer", "fast") == [0]
    assert preset_seeds("one_layer", "full") == [0, 1, 2, 3, 4] and preset_seeds("mlp", "full") == [0, 1, 2]


def test_load_data_prepares_the_settings_dataset_with_its_data_arguments(monkeypatch):
    seen = []
    monkeypatch.setattr(pipeline, "prepare_reviews", lambda name, **kwargs: seen.append((name, kwargs)) or "DATA")
    settings = real_data_settings("fast", "yelp_polarity", T=7, limit=50, seed=2)
    assert pipeline.load_data(settings, progress=False) == "DATA"
    assert seen == [("yelp_polarity", {**settings.data_arguments(), "progress": False})]
    pipeline.load_data(settings)
    assert seen[1][1]["progress"] is True


def test_record_settings_cover_every_setting_the_experiment_and_the_seeds():
    settings = real_data_settings("full", "imdb", seed=3)
    stored = record_settings("two_layer", "joint", settings, "imdb")
    expected = {**settings.as_dict(), "kind": "two_layer", "mode": "joint", "seed": 0, "seeds": [0, 1, 2]}
    assert stored == {**expected, "model_revision": 2}, "the two-layer model's second computation is in its settings"
    assert "preset_dataset" not in stored
    assert "model_revision" not in record_settings("key_query", "joint", settings, "imdb"), "a first revision adds none"
    seeds = (4, 6)
    given = record_settings("one_layer", "frozen_random", settings, "imdb", seeds)
    assert given["seeds"] == [4, 6] and isinstance(given["seeds"], list) and given["seed"] == 4
    assert record_settings("one_layer", "joint", settings, "imdb")["seeds"] == [0, 1, 2, 3, 4]


def test_a_checkpoint_of_an_older_computation_is_not_the_current_one():
    settings = real_data_settings("fast", "imdb")
    name, configuration = pipeline._checkpoint("two_layer", "joint", settings, _data())
    assert name.endswith("-two_layer-joint") and configuration["model_revision"] == 2
    older = {k: v for k, v in configuration.items() if k != "model_revision"}
    assert pipeline._checkpoint("one_layer", "joint", settings, _data())[1].keys() == older.keys()


def test_record_settings_keep_the_preset_dataset_when_the_data_is_another():
    settings = real_data_settings("fast", "yelp_polarity")
    stored = record_settings("multiclass", "joint", settings, "yelp_stars")
    assert stored["dataset"] == "yelp_stars" and stored["preset_dataset"] == "yelp_polarity"


def test_the_protocol_says_what_was_run_in_words():
    settings = real_data_settings("fast", "imdb", T=5, d=16, lr=0.25, batch_size=32, epochs=6, patience=3, seed=7)
    text = protocol("one_layer", "joint", settings, _data())
    assert text == (
        "one-layer <cls> attention (the paper's model); E, p, v (and every other weight) trained jointly. "
        "Data: imdb from local Parquet copy of imdb, 1,234 training / 56 validation / 2,001 test reviews, "
        "first 5 tokens, vocabulary V = 1,498 words plus <pad> and <unk> (words seen >= 10 times in training). "
        "d = 16; Adam lr 0.25, batches of 32, at most 6 epochs, patience 3; early stopping on validation accuracy, "
        "best epoch kept; seed 7. Curves: tokens seen >= 20 times, binned at the rebuttal's 20 centres "
        "(edges at midpoints: our inference); shapes by classify_shape with 200 bootstrap resamples."
    )


def test_the_protocol_names_the_frozen_training_the_one_step_and_the_vocabulary_cap():
    settings = real_data_settings("full", "imdb", frozen_lr=0.125, frozen_epochs=9, frozen_patience=4, step_factor=1.5)
    frozen = "Adam lr 0.125, at most 9 epochs, patience 4"
    text = protocol("two_layer", "frozen_random", settings, _data())
    assert f"; {frozen}; early stopping" in text and "E frozen at its random initialisation" in text
    assert "two-layer <cls> attention with a residual stream (ours)" in text
    assert "(the 7,766 words seen most often in training)" in text and "words seen >=" not in text
    step = protocol("one_layer", "one_step_frozen", settings, _data())
    assert f"; one full-batch GD step on E of size 1.5 eta*, then {frozen}; early" in step
    assert "with 1000 bootstrap resamples" in step


def _history(**values) -> TrainingHistory:
    base = {
        "epoch": [1, 2, 3],
        "train_loss": [0.7, 0.5, 0.4],
        "validation_loss": [0.6, 0.5, 0.55],
        "validation_accuracy": [0.6, 0.8, 0.7],
        "epoch_seconds": [1.0, 1.0, 1.0],
        "best_epoch": 2,
        "seconds": 3.25,
        "hardware": "test machine",
        "stop_reason": "ran all 3 epochs",
    }
    return TrainingHistory(**{**base, **values})


def test_a_run_summary_says_accuracy_epochs_time_hardware_and_whether_it_was_loaded():
    run = TrainedRun(
        "imdb", "two_layer", "joint", real_data_settings("fast"), None, _history(), {"test_accuracy": 0.8766}, None,
        True, Path("c.pt"),
    )  # fmt: skip
    assert run.test_accuracy == 0.8766
    assert run.summary() == (
        "imdb, two-layer <cls> attention with a residual stream (ours), joint: test accuracy 87.7%; "
        "best epoch 2 of 3 (ran all 3 epochs); 3.2 s on test machine; loaded from its checkpoint"
    )
    trained = replace(run, loaded=False, metrics={"test_accuracy": "0.5"})
    assert trained.test_accuracy == 0.5 and trained.summary().endswith("; trained now")


@pytest.fixture
def stand_in_trainers(monkeypatch):
    """``train_model``, ``one_step_size``, ``one_step_then_freeze`` and ``accuracy`` replaced by recorders."""
    calls = []

    def train_model(model, train, validation, **kwargs):
        calls.append(("train_model", train, validation, kwargs))
        return _history(seconds=0.0)

    def one_step_size(split, vocab_size, d, factor):
        calls.append(("one_step_size", split, vocab_size, d, factor))
        return 0.5, 0.5 * factor

    def one_step_then_freeze(model, train, validation, *, step_lr, **kwargs):
        calls.append(("one_step_then_freeze", train, validation, step_lr, kwargs))
        return _history(seconds=0.0)

    monkeypatch.setattr(pipeline, "train_model", train_model)
    monkeypatch.setattr(pipeline, "one_step_size", one_step_size)
    monkeypatch.setattr(pipeline, "one_step_then_freeze", one_step_then_freeze)
    monkeypatch.setattr(pipeline, "accuracy", lambda model, split: 0.625 if split.source == "part of 2001" else -1.0)
    return calls


SETTINGS = real_data_settings(
    "fast", "imdb", epochs=6, lr=0.25, patience=3, frozen_epochs=9, frozen_lr=0.125, frozen_patience=4, step_factor=1.5
)
COMMON = {"batch_size": 8, "seed": 1, "device": "cpu", "progress": False, "desc": "x"}


def test_joint_training_uses_the_joint_settings(stand_in_trainers):
    data = _data()
    result = pipeline._trainer("joint", data, SETTINGS, COMMON)("MODEL")
    [(name, train, validation, kwargs)] = stand_in_trainers
    assert name == "train_model" and train is data.train and validation is data.validation
    assert kwargs == {"epochs": 6, "lr": 0.25, "patience": 3, **COMMON}
    assert result == {**_history(seconds=result["seconds"]).as_dict(), "test_accuracy": 0.625}
    assert 0 < result["seconds"] < 5  # the time it took, measured around the training


def test_training_to_the_end_of_a_budget_uses_the_joint_settings_and_its_epoch_hook(stand_in_trainers):
    data = _data()

    def look(history):
        return None

    result = pipeline._trainer("joint_converged", data, SETTINGS, COMMON, look)("MODEL")
    [(name, train, validation, kwargs)] = stand_in_trainers
    assert name == "train_model" and train is data.train and validation is data.validation
    assert kwargs == {"epochs": 6, "lr": 0.25, "keep": "last", "on_epoch": look, **COMMON}  # no patience: every epoch
    assert result["test_accuracy"] == 0.625


def test_frozen_training_uses_the_frozen_settings_and_keeps_e_fixed(stand_in_trainers):
    data = _data()
    result = pipeline._trainer("frozen_random", data, SETTINGS, COMMON)("MODEL")
    [(name, train, validation, kwargs)] = stand_in_trainers
    assert name == "train_model" and train is data.train and validation is data.validation
    assert kwargs == {"train_embeddings": False, "epochs": 9, "lr": 0.125, "patience": 4, **COMMON}
    assert result["test_accuracy"] == 0.625 and "eta_star" not in result


def test_the_one_step_is_sized_on_the_training_part_then_frozen_training_follows(stand_in_trainers):
    data = _data()
    result = pipeline._trainer("one_step_frozen", data, replace(SETTINGS, d=16), COMMON)("MODEL")
    size, step = stand_in_trainers
    assert size == ("one_step_size", data.train, 1500, 16, 1.5)
    assert step[:4] == ("one_step_then_freeze", data.train, data.validation, 0.75)
    assert step[4] == {"epochs": 9, "lr": 0.125, "patience": 4, **COMMON}
    assert (result["eta_star"], result["step_size"], result["step_factor"]) == (0.5, 0.75, 1.5)
    assert result["test_accuracy"] == 0.625


@pytest.fixture
def no_training(monkeypatch):
    """``train_or_load`` and the measurements replaced: what run_experiment gives them is recorded."""
    seen = {}

    def train_or_load(model, name, config, train, *, cache_dir=None):
        seen.update(model=model, name=name, config=config, cache_dir=cache_dir, train=train)
        history = {**_history().as_dict(), "test_accuracy": 0.75, "eta_star": 0.5, "step_size": 1.0, "step_factor": 2.0}
        return LoadedOrTrained(history, Path("ckpt.pt"), True)

    def measure(label):
        def metrics(model, data, *, min_count, n_boot, seed):
            seen["measured"] = (label, model, data, min_count, n_boot, seed)
            return {"scores": {"shape": "flat"}}

        return metrics

    monkeypatch.setattr(pipeline, "train_or_load", train_or_load)
    monkeypatch.setattr(pipeline, "binary_metrics", measure("binary"))
    monkeypatch.setattr(pipeline, "multiclass_metrics", measure("multiclass"))
    return seen


def test_run_experiment_names_the_checkpoint_by_every_training_setting(no_training, tmp_path):
    settings = real_data_settings("fast", "imdb", d=4, batch_size=16, seed=3, n_boot=30, importance_min_count=2)
    data = _data()
    run = pipeline.run_experiment(
        "one_layer", "one_step_frozen", settings, data=data, device="cpu", cache_dir=str(tmp_path), progress=False
    )
    training = {k: v for k, v in settings.as_dict().items() if k not in ("importance_min_count", "n_boot", "scale")}
    assert no_training["name"] == "imdb-one_layer-one_step_frozen" and no_training["cache_dir"] == str(tmp_path)
    assert no_training["config"] == {"kind": "one_layer", "mode": "one_step_frozen", "data": data.config, "settings": training}
    model = no_training["model"]
    assert model.E.shape == (1500, 4) and model.E.device == torch.device("cpu")
    assert torch.equal(model.E, pipeline.build_model("one_layer", 1500, 4, seed=3).E)  # drawn from the settings' seed
    assert no_training["measured"] == ("binary", model, data, 2, 30, 3)
    assert (run.dataset, run.kind, run.mode, run.settings, run.model) == ("imdb", "one_layer", "one_step_frozen", settings, model)
    assert run.record == "imdb-one_layer-one_step_frozen" and run.loaded and run.checkpoint == Path("ckpt.pt")
    assert run.history == _history()  # the history without the metrics stored next to it
    assert run.metrics == {
        "test_accuracy": 0.75,
        "eta_star": 0.5,
        "step_size": 1.0,
        "step_factor": 2.0,
        "best_validation_accuracy": 0.8,
        "best_epoch": 2,
        "epochs_run": 3,
        "train_seconds": 3.25,
        "hardware": "test machine",
        "source": "local Parquet copy of imdb",
        "stand_in": False,
        "vocab_size": 1500,
        "n_train": 1234,
        "n_test": 2001,
        "scores": {"shape": "flat"},
    }


def test_run_experiment_hands_the_trainer_the_batch_seed_device_and_a_description(no_training, stand_in_trainers):
    settings = real_data_settings("fast", "imdb", d=4, batch_size=16, seed=3)
    pipeline.run_experiment("two_layer", "joint", settings, data=_data(), device="cpu", progress=False)
    no_training["train"]("MODEL")
    kwargs = stand_in_trainers[0][3]
    assert kwargs["batch_size"] == 16 and kwargs["seed"] == 3 and kwargs["progress"] is False
    assert kwargs["device"] == torch.device("cpu") and kwargs["desc"] == "imdb: two_layer, joint"


def test_run_experiment_measures_k_classes_with_the_multiclass_metrics(no_training):
    pipeline.run_experiment("multiclass", "joint", real_data_settings("fast", d=4), data=_data("yelp_stars"), device="cpu")
    assert no_training["measured"][0] == "multiclass" and no_training["name"] == "yelp_stars-multiclass-joint"
    pipeline.run_experiment("mlp", "joint", real_data_settings("fast", d=4), data=_data(), device="cpu")
    assert no_training["measured"][0] == "binary"


def test_run_experiment_defaults_to_the_preset_its_data_and_the_default_device(no_training, monkeypatch):
    loaded = []
    monkeypatch.setattr(pipeline, "load_data", lambda s, *, progress: loaded.append((s, progress)) or _data())
    monkeypatch.setattr(pipeline, "default_device", lambda: torch.device("cpu"))
    monkeypatch.setenv("TOKEN_SELECTION_SCALE", "fast")
    run = pipeline.run_experiment(progress=False)
    assert loaded == [(real_data_settings("fast"), False)] and run.settings == real_data_settings("fast")
    assert (run.kind, run.mode) == ("one_layer", "joint") and run.model.E.device.type == "cpu"
    with pytest.raises(ValueError, match="mode must be one of"):
        pipeline.run_experiment("one_layer", "sometimes", data=_data())


def test_read_run_record_and_missing_message_name_the_record_and_the_command(monkeypatch):
    asked = []
    monkeypatch.setattr(pipeline, "read_record", lambda name, scale: asked.append((name, scale)) or "RECORD")
    assert pipeline.read_run_record("imdb", "mlp", "joint", "full") == "RECORD"
    assert asked == [("imdb-mlp-joint", "full")]
    full = missing_message("yelp_polarity", "key_query", "frozen_random", "full")
    assert "'yelp_polarity-key_query-frozen_random'" in full and full.endswith(pipeline.FULL_COMMAND)
    assert "No full-scale record" in full
    fast = missing_message("imdb", "one_layer", "joint", "fast")
    assert fast.endswith(pipeline.FAST_COMMAND) and "No fast-scale record 'imdb-one_layer-joint'" in fast


def test_metric_at_follows_dotted_paths_through_dicts_and_lists():
    metrics = {"a": {"b": [10, {"c": 3}], "0": "zero"}, "x": 1.5, "classes": [{"shape": "flat"}]}
    assert metric_at(metrics, "x") == 1.5 and metric_at(metrics, "a.b.1.c") == 3 and metric_at(metrics, "a.b.0") == 10
    assert metric_at(metrics, "a.0") == "zero"  # a digit is a key in a dict
    assert metric_at(metrics, "classes.0.shape") == "flat"
    assert metric_at(metrics, "a.b.2") is None  # one past the end: the boundary
    assert metric_at(metrics, "a.b.c") is None and metric_at(metrics, "x.y") is None and metric_at(metrics, "nothing") is None
    assert metric_at(metrics, "a.b.-1") is None


def test_seed_paths_keep_the_metrics_a_run_has_and_add_each_class():
    metrics = {"test_accuracy": 0.9, "epochs_run": 4, "scores": {"shape": "flat", "mean_bin_std": 0.1}}
    assert seed_paths(metrics) == (["test_accuracy", "epochs_run", "scores.mean_bin_std"], ["scores.shape"])
    classes = {"test_accuracy": 0.5, "classes": [{}, {}, {}]}
    numbers, shapes = seed_paths(classes)
    assert numbers == ["test_accuracy", "classes.0.verdict.spearman", "classes.1.verdict.spearman", "classes.2.verdict.spearman"]
    assert shapes == [
        f"classes.{k}.{path}" for k in range(3) for path in ("shape", "verdict.left_spearman", "verdict.right_spearman")
    ]


def test_aggregate_seeds_keeps_the_first_run_and_every_seed_value():
    runs = [
        {"test_accuracy": 0.8, "scores": {"shape": "U-shaped"}, "curve": [1]},
        {"test_accuracy": 0.9, "scores": {"shape": "flat"}, "curve": [2]},
        {"test_accuracy": 0.7, "scores": {"shape": "U-shaped"}, "curve": [3]},
    ]
    record = aggregate_seeds(runs, [2, 5, 9])
    assert record["curve"] == [1] and record["seeds"] == [2, 5, 9]
    assert record["per_seed"] == {"test_accuracy": [0.8, 0.9, 0.7], "scores.shape": ["U-shaped", "flat", "U-shaped"]}
    summary = record["seed_summary"]["test_accuracy"]
    assert summary["n"] == 3 and summary["value"] == pytest.approx(0.8)
    # sample std 0.1, standard error 0.1 / sqrt(3), t(0.975, df 2) = 4.3027: the upper end, 1.048, is clipped to 1
    assert summary["value"] - summary["low"] == pytest.approx(4.3027 * 0.1 / math.sqrt(3), rel=1e-4)
    assert summary["high"] == 1.0, "an accuracy's interval ends at 1"
    assert set(record["seed_summary"]) == {"test_accuracy"}


def test_every_seeded_metric_has_its_bounds_and_a_class_spearman_is_a_rank():
    from token_selection.real_data.pipeline import SEEDED_METRICS, seeded_bounds

    assert SEEDED_METRICS[0] == "test_accuracy" and seeded_bounds("test_accuracy") == (0.0, 1.0)
    assert seeded_bounds("p_norm") == (0.0, float("inf")) and seeded_bounds("scores.verdict.spearman") == (-1.0, 1.0)
    assert seeded_bounds("classes.3.verdict.spearman") == (-1.0, 1.0) and seeded_bounds("train_seconds")[0] == 0.0
    assert seeded_bounds("not_a_metric") is None
    runs = [{"train_seconds": t} for t in (1.0, 200.0)]  # a t interval over two seeds would reach far below 0
    assert aggregate_seeds(runs, [0, 1])["seed_summary"]["train_seconds"]["low"] == 0.0


@pytest.mark.parametrize(("runs", "seeds"), [([], []), ([{"test_accuracy": 1.0}], [0, 1]), ([{}, {}], [0])])
def test_aggregate_seeds_needs_one_run_per_seed(runs, seeds):
    message = f"need one metrics dict per seed, got {len(runs)} for seeds {seeds}"
    with pytest.raises(ValueError, match=re.escape(message)):
        aggregate_seeds(runs, seeds)


def test_run_seeds_runs_each_seed_on_its_own_data_and_writes_one_record(monkeypatch, tmp_path):
    monkeypatch.setenv("TOKEN_SELECTION_RECORDS", str(tmp_path))
    preset = real_data_settings("full", "imdb")
    runs = []

    def run_experiment(kind, mode, settings, *, data, progress):
        runs.append((kind, mode, settings.seed, data.name, progress))
        return SimpleNamespace(metrics={"test_accuracy": 0.5 + settings.seed / 10, "scores": {"shape": "flat"}})

    loads = []
    monkeypatch.setattr(pipeline, "run_experiment", run_experiment)
    monkeypatch.setattr(pipeline, "load_data", lambda s, *, progress: loads.append((s.seed, progress)) or _data())
    record = pipeline.run_seeds("two_layer", "joint", replace(preset, seed=3), progress=False)  # any seed of a preset
    assert loads == [(0, False), (1, False), (2, False)]  # the default data: load_data, once per seed
    assert runs == [("two_layer", "joint", s, "imdb", False) for s in (0, 1, 2)]
    assert record["name"] == "imdb-two_layer-joint" and record["seeds"] == [0, 1, 2]
    assert record["metrics"]["per_seed"]["test_accuracy"] == [0.5, 0.6, 0.7]
    assert record["settings"] == record_settings("two_layer", "joint", preset, "imdb", [0, 1, 2])
    assert record["protocol"].startswith(protocol("two_layer", "joint", preset, _data()))
    assert record["protocol"].endswith(
        " Seeds 0, 1, 2: each draws its own validation split, initialisation and batches; curves and shapes shown are "
        "seed 0's, and every scalar metric keeps its per-seed values and a 95% Student-t interval."
    )
    assert 0 <= record["seconds"] < 60 and read_record("imdb-two_layer-joint", "full") == record


def test_run_seeds_names_the_record_by_the_data_it_ran_on(monkeypatch, tmp_path):
    monkeypatch.setenv("TOKEN_SELECTION_RECORDS", str(tmp_path))
    monkeypatch.setattr(pipeline, "run_experiment", lambda *a, data, progress: SimpleNamespace(metrics={"test_accuracy": 0.5}))
    preset = real_data_settings("fast", "yelp_polarity")
    record = pipeline.run_seeds("multiclass", "joint", preset, seeds=[4], data_for=lambda s: _data("yelp_stars"))
    assert record["name"] == "yelp_stars-multiclass-joint" and record["settings"]["preset_dataset"] == "yelp_polarity"
    assert record["seeds"] == [4] and record["settings"]["seeds"] == [4] and record["settings"]["seed"] == 4
    assert "seed 4." in record["protocol"] and "Seeds 4:" in record["protocol"]


def test_run_seeds_accepts_any_seed_of_a_preset_and_nothing_else():
    def fail(settings):
        raise AssertionError("no data may be loaded for settings that are refused")

    message = "run_seeds writes records, so settings must be a preset (real_data_settings(scale, dataset))"
    for changed in ({"d": 8}, {"max_vocab": 100}, {"scale": "full"}):
        with pytest.raises(ValueError) as refused:
            pipeline.run_seeds("one_layer", "joint", replace(real_data_settings("fast", "imdb"), **changed), data_for=fail)
        assert str(refused.value) == message
    with pytest.raises(ValueError, match="kind must be one of"):
        pipeline.run_seeds("rnn", "joint", real_data_settings("fast"), data_for=fail)


def test_run_seeds_defaults_to_the_preset_seeds_of_its_kind_and_shows_progress(monkeypatch, tmp_path):
    monkeypatch.setenv("TOKEN_SELECTION_RECORDS", str(tmp_path))
    runs = []

    def run_experiment(kind, mode, settings, *, data, progress):
        runs.append((settings.seed, progress))
        return SimpleNamespace(metrics={"test_accuracy": 0.5 + settings.seed / 100})

    monkeypatch.setattr(pipeline, "run_experiment", run_experiment)
    record = pipeline.run_seeds("one_layer", "joint", real_data_settings("full", "imdb"), data_for=lambda s: _data())
    assert runs == [(seed, True) for seed in range(5)]  # the paper's model runs five seeds at full scale, the variants three
    assert record["seeds"] == [0, 1, 2, 3, 4] and record["settings"]["seeds"] == [0, 1, 2, 3, 4]


def test_each_mode_trains_and_scores_the_model_it_is_given(monkeypatch):
    seen = []
    monkeypatch.setattr(pipeline, "train_model", lambda model, *a, **k: seen.append(("train", model)) or _history())
    monkeypatch.setattr(pipeline, "one_step_size", lambda *a: (0.5, 1.0))
    monkeypatch.setattr(pipeline, "one_step_then_freeze", lambda model, *a, **k: seen.append(("step", model)) or _history())
    monkeypatch.setattr(pipeline, "accuracy", lambda model, split: seen.append(("accuracy", model)) or 0.5)
    model = torch.nn.Linear(2, 1)
    for mode in ("joint", "joint_converged", "frozen_random", "one_step_frozen"):
        pipeline._trainer(mode, _data(), SETTINGS, COMMON)(model)
    assert [name for name, _ in seen] == ["train", "accuracy"] * 3 + ["step", "accuracy"]
    assert all(given is model for _, given in seen)


def test_run_experiment_shows_progress_by_default(no_training, stand_in_trainers, monkeypatch):
    loaded = []
    monkeypatch.setattr(pipeline, "load_data", lambda s, *, progress: loaded.append(progress) or _data())
    pipeline.run_experiment("one_layer", "joint", real_data_settings("fast", d=4), device="cpu")
    no_training["train"]("MODEL")
    assert loaded == [True] and stand_in_trainers[0][3]["progress"] is True


def test_run_experiment_builds_the_model_on_the_device_asked_for_and_returns_it_there(no_training, monkeypatch):
    monkeypatch.setattr(pipeline, "default_device", lambda: torch.device("cpu"))
    placed = {}
    stand_in = pipeline.train_or_load

    def train_or_load(model, name, config, train, *, cache_dir=None):
        placed["given"] = model.E.device.type
        model.to_empty(device="cpu")  # a model left on another device than the one asked for
        return stand_in(model, name, config, train, cache_dir=cache_dir)

    monkeypatch.setattr(pipeline, "train_or_load", train_or_load)
    run = pipeline.run_experiment("one_layer", "joint", real_data_settings("fast", d=4), data=_data(), device="meta")
    assert placed["given"] == "meta" and run.model.E.device.type == "meta"


def test_three_classes_are_measured_with_the_multiclass_metrics(no_training, monkeypatch):
    three = replace(pipeline.MODEL_KINDS["multiclass"], num_classes=3)
    monkeypatch.setitem(pipeline.MODEL_KINDS, "multiclass", three)
    run = pipeline.run_experiment("multiclass", "joint", real_data_settings("fast", d=4), data=_data("yelp_stars"), device="cpu")
    assert no_training["measured"][0] == "multiclass" and run.model.num_classes == 3 and run.model.W.shape[0] == 3
