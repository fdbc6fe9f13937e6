import json

import pytest
import torch

from token_selection.real_data.arms import arms_table, records_notes
from token_selection.real_data.pipeline import missing_message, record_name, run_experiment
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


def test_run_writes_its_record_and_loads_the_second_time(toy, tmp_path, monkeypatch):
    monkeypatch.setenv("TOKEN_SELECTION_RECORDS", str(tmp_path / "records"))
    settings = real_data_settings("fast", "imdb", n_boot=50)
    monkeypatch.setattr("token_selection.real_data.pipeline.real_data_settings", lambda scale, dataset: settings)
    first = run_experiment("one_layer", "one_step_frozen", settings, data=toy, cache_dir=tmp_path, progress=False)
    assert not first.loaded and first.record == record_name("imdb", "one_layer", "one_step_frozen")
    record = read_record(first.record, "fast")
    assert record["metrics"]["test_accuracy"] == first.test_accuracy > 0.8
    assert record["metrics"]["step_size"] == pytest.approx(settings.step_factor * record["metrics"]["eta_star"])
    assert record["metrics"]["scores"]["shape"] in ("U-shaped", "increasing", "decreasing", "flat")
    assert "eta*" in record["protocol"] and record["settings"]["mode"] == "one_step_frozen"
    second = run_experiment("one_layer", "one_step_frozen", settings, data=toy, cache_dir=tmp_path, progress=False)
    assert second.loaded and json.dumps(second.metrics, sort_keys=True) == json.dumps(first.metrics, sort_keys=True)
    assert torch.equal(second.model.E.cpu(), first.model.E.cpu())
    table = arms_table("imdb", arms=(("one_layer", "one_step_frozen"), ("one_layer", "joint")), columns=("test accuracy",))
    assert f"| {100 * first.test_accuracy:.1f} % | no record |" in table
    assert "make full" in records_notes("imdb", arms=(("one_layer", "one_step_frozen"),))


def test_a_reader_run_under_other_settings_writes_no_record(toy, tmp_path, monkeypatch):
    monkeypatch.setenv("TOKEN_SELECTION_RECORDS", str(tmp_path / "records"))
    settings = real_data_settings("fast", "imdb", d=8, epochs=2, n_boot=20)
    run = run_experiment("two_layer", "joint", settings, data=toy, cache_dir=tmp_path, progress=False)
    assert run.record is None and not (tmp_path / "records").exists()
    assert run.metrics["values"]["bin_centres"][0] == -0.95
    assert "make full" in missing_message("imdb", "two_layer", "joint", "full")
