import json
from dataclasses import replace

import pytest
import torch

from token_selection.intervals import with_test_set_error
from token_selection.real_data.arms import arms_table
from token_selection.real_data.pipeline import missing_message, record_name, record_settings, run_experiment, run_seeds
from token_selection.real_data.registry import MODEL_KINDS, build_model, check_kind_and_mode
from token_selection.real_data.settings import real_data_settings
from token_selection.results import read_record


def test_settings_presets_and_overrides():
    fast, full = real_data_settings("fast"), real_data_settings("full", "yelp_polarity")
    assert fast.d < full.d == 2048 and full.dataset == "yelp_polarity" and full.limit is None
    assert real_data_settings("fast", d=8).d == 8
    with pytest.raises(ValueError, match="scale"):
        real_data_settings("huge")
    with pytest.raises(ValueError, match="unknown settings"):
        real_data_settings("fast", depth=3)
    with pytest.raises(ValueError, match="name"):
        real_data_settings("fast", "sst2")


def test_registry_builds_every_kind_and_rejects_bad_pairs():
    for kind in MODEL_KINDS:
        model = build_model(kind, 10, 4, seed=1)
        logits = model.logits_and_attention(torch.tensor([[2, 3, 0]]), torch.tensor([[True, True, False]]))[0]
        assert logits.shape[0] == 1 and model.token_scores().shape == (10,)
    with pytest.raises(ValueError, match="kind"):
        check_kind_and_mode("lstm", "joint")
    with pytest.raises(ValueError, match="mode"):
        check_kind_and_mode("one_layer", "two_steps")
    with pytest.raises(ValueError, match="one_step_frozen"):
        check_kind_and_mode("two_layer", "one_step_frozen")


def test_a_run_loads_the_second_time_and_writes_no_record(toy, tmp_path, monkeypatch):
    monkeypatch.setenv("TOKEN_SELECTION_RECORDS", str(tmp_path / "records"))
    settings = real_data_settings("fast", "imdb", n_boot=50)
    first = run_experiment("one_layer", "one_step_frozen", settings, data=toy, cache_dir=tmp_path, progress=False)
    assert not first.loaded and first.record == record_name("imdb", "one_layer", "one_step_frozen")
    assert first.metrics["step_size"] == pytest.approx(settings.step_factor * first.metrics["eta_star"])
    assert first.metrics["scores"]["shape"] in ("U-shaped", "increasing", "decreasing", "flat")
    assert not (tmp_path / "records").exists()  # running a chapter never writes a record
    second = run_experiment("one_layer", "one_step_frozen", settings, data=toy, cache_dir=tmp_path, progress=False)
    assert second.loaded and json.dumps(second.metrics, sort_keys=True) == json.dumps(first.metrics, sort_keys=True)
    assert torch.equal(second.model.E.cpu(), first.model.E.cpu())


def test_run_seeds_writes_one_record_with_every_seed(toy, tmp_path, monkeypatch):
    monkeypatch.setenv("TOKEN_SELECTION_RECORDS", str(tmp_path / "records"))
    monkeypatch.setenv("TOKEN_SELECTION_CACHE", str(tmp_path / "cache"))
    fewer = {"n_boot": 20, "epochs": 3}
    preset = replace(real_data_settings("fast", "imdb"), **fewer)
    monkeypatch.setattr("token_selection.real_data.pipeline.real_data_settings", lambda *a, **k: preset)
    data_seeds = []

    def data_for(s):
        data_seeds.append(s.seed)
        return toy

    record = run_seeds("one_layer", "joint", preset, seeds=[0, 3, 7], data_for=data_for, progress=False)
    assert data_seeds == [0, 3, 7] and record["seeds"] == [0, 3, 7]
    metrics = record["metrics"]
    accuracies = metrics["per_seed"]["test_accuracy"]
    assert len(accuracies) == 3 and metrics["test_accuracy"] == accuracies[0]
    summary = metrics["seed_summary"]["test_accuracy"]
    assert summary["n"] == 3 and summary["low"] <= summary["value"] <= summary["high"]
    assert summary["value"] == pytest.approx(sum(accuracies) / 3)
    assert len(metrics["per_seed"]["scores.shape"]) == 3 and "Seeds 0, 3, 7" in record["protocol"]
    assert record["settings"]["seeds"] == [0, 3, 7] and record["settings"]["seed"] == 0
    # current for the seeds it ran, stale for the preset's own seeds (one at the fast scale)
    assert read_record(record["name"], "fast", settings=record_settings("one_layer", "joint", preset, "imdb", [0, 3, 7]))
    assert read_record(record["name"], "fast", settings=record_settings("one_layer", "joint", preset, "imdb")) is None
    table = arms_table("imdb", arms=(("one_layer", "joint"),), columns=("test accuracy", "score shape"))
    shown = with_test_set_error(summary, metrics["n_test"])  # the table gives the interval every page gives
    assert shown["low"] < summary["low"] and shown["high"] > summary["high"]
    assert (
        f"| {100 * shown['value']:.1f} [{100 * shown['low']:.1f}, {100 * shown['high']:.1f}] % |" in table
        and "of 3 seeds" in table
        and "| no record |" in table
    )


def test_run_seeds_refuses_settings_that_are_not_a_preset(toy):
    with pytest.raises(ValueError, match="must be a preset"):
        run_seeds("one_layer", "joint", real_data_settings("fast", "imdb", d=8), data_for=lambda s: toy)


def test_a_reader_run_under_other_settings_writes_no_record(toy, tmp_path, monkeypatch):
    monkeypatch.setenv("TOKEN_SELECTION_RECORDS", str(tmp_path / "records"))
    settings = real_data_settings("fast", "imdb", d=8, epochs=2, n_boot=20)
    run = run_experiment("two_layer", "joint", settings, data=toy, cache_dir=tmp_path, progress=False)
    assert not (tmp_path / "records").exists()
    assert run.metrics["values"]["bin_centres"][0] == -0.95
    assert "make full" in missing_message("imdb", "two_layer", "joint", "full")
    assert "make records" in missing_message("imdb", "two_layer", "joint", "fast")
