"""Checkpoints at their edges: where the file goes, which names are refused, what a stale or mismatched file says
and what ``train_or_load`` hands back in each case."""

from __future__ import annotations

import os
import re
import warnings
from pathlib import Path

import pytest
import torch

from token_selection import CLSAttention
from token_selection.disk_cache import CacheWarning, cache_key, load_checked
from token_selection.real_data import checkpoints
from token_selection.real_data.checkpoints import checkpoint_path, load_checkpoint, save_checkpoint, train_or_load

CONFIG = {"kind": "one_layer", "d": 3, "lr": 0.5, "seeds": [0, 2]}


def test_the_path_is_the_name_and_a_hash_of_the_version_and_the_configuration(tmp_path):
    path = checkpoint_path("imdb-one_layer-joint", CONFIG, tmp_path / "cache")
    key = cache_key({"checkpoint_version": checkpoints.CHECKPOINT_VERSION, **CONFIG})
    assert path == tmp_path / "cache" / "checkpoints" / f"imdb-one_layer-joint-{key}.pt"
    assert path != checkpoint_path("imdb-one_layer-joint", {**CONFIG, "d": 4}, tmp_path / "cache")


def test_the_default_cache_directory_is_used_without_one(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKEN_SELECTION_CACHE", str(tmp_path / "default"))
    assert checkpoint_path("m", CONFIG).parent == (tmp_path / "default" / "checkpoints")


@pytest.mark.parametrize("name", ["", "a/b", "a\\b", "/", "runs/"])
def test_a_name_must_be_a_file_name_stem(tmp_path, name):
    message = f"name must be a non-empty file-name stem without slashes, got {name!r}"
    with pytest.raises(ValueError, match=re.escape(message)):
        checkpoint_path(name, CONFIG, tmp_path)


@pytest.mark.parametrize("name", ["XL-model", "m", "yelp_stars-multiclass-joint"])
def test_ordinary_names_are_accepted(tmp_path, name):
    assert checkpoint_path(name, CONFIG, tmp_path).name.startswith(f"{name}-")


def _model(seed: int = 0, vocab_size: int = 6) -> CLSAttention:
    return CLSAttention(vocab_size, 3, seed=seed, p_init="random")


def test_a_saved_checkpoint_holds_the_parameters_the_history_and_the_configuration(tmp_path):
    model = _model(seed=1)
    history = {"epoch": [1, 2, 3], "hardware": "cpu"}
    path = save_checkpoint(tmp_path / "sub" / "m.pt", model, history, CONFIG)
    assert path == tmp_path / "sub" / "m.pt"
    saved = load_checked(path)
    assert saved["history"] == history and saved["config"] == CONFIG
    assert set(saved["state"]) == {"E", "v", "p"}
    for key, value in model.state_dict().items():
        assert torch.equal(saved["state"][key], value) and not saved["state"][key].requires_grad


def test_loading_a_missing_file_returns_none_without_a_warning(tmp_path):
    model = _model()
    before = {k: t.clone() for k, t in model.state_dict().items()}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_checkpoint(tmp_path / "absent.pt", model, CONFIG) is None
    assert all(torch.equal(model.state_dict()[k], t) for k, t in before.items())


def test_a_checkpoint_of_another_configuration_is_refused_and_says_so(tmp_path):
    path = save_checkpoint(tmp_path / "m.pt", _model(seed=1), {"epoch": [1]}, CONFIG)
    model = _model(seed=2)
    before = model.E.detach().clone()
    with pytest.warns(CacheWarning) as caught:
        assert load_checkpoint(path, model, {**CONFIG, "seeds": [0]}) is None
    assert str(caught[0].message) == f"{path} was saved under another configuration; retraining"
    assert torch.equal(model.E.detach(), before)  # nothing loaded


def test_a_checkpoint_with_parameters_of_other_shapes_is_refused_and_says_which(tmp_path):
    path = save_checkpoint(tmp_path / "m.pt", _model(vocab_size=6), {"epoch": [1]}, CONFIG)
    with pytest.warns(CacheWarning) as caught:
        assert load_checkpoint(path, _model(vocab_size=8), CONFIG) is None
    found, expected = {"E": (6, 3), "v": (3,), "p": (3,)}, {"E": (8, 3), "v": (3,), "p": (3,)}
    assert str(caught[0].message) == f"{path} holds parameters {found}, the model has {expected}; retraining"


def test_a_loaded_checkpoint_replaces_every_parameter_and_returns_the_history(tmp_path):
    saved_model = _model(seed=1)
    path = save_checkpoint(tmp_path / "m.pt", saved_model, {"epoch": [1, 2]}, CONFIG)
    model = _model(seed=7)
    assert load_checkpoint(path, model, dict(CONFIG)) == {"epoch": [1, 2]}
    for key, value in saved_model.state_dict().items():
        assert torch.equal(model.state_dict()[key], value)
    assert model.E.device.type == "cpu" and model.E.requires_grad  # still a trainable parameter


def test_train_or_load_trains_saves_then_loads_without_training(tmp_path):
    calls = []

    def train(model):
        calls.append(model)
        with torch.no_grad():
            model.v.mul_(-2.0)
        return {"epoch": [1], "seconds": 0.5}

    first_model = _model(seed=3)
    first = train_or_load(first_model, "run", CONFIG, train, cache_dir=tmp_path)
    assert calls == [first_model] and not first.loaded and first.history == {"epoch": [1], "seconds": 0.5}
    assert first.path == checkpoint_path("run", CONFIG, tmp_path) and first.path.is_file()
    assert load_checked(first.path)["history"] == first.history  # saved after training, with the trained weights
    assert torch.equal(load_checked(first.path)["state"]["v"], first_model.v.detach())
    second_model = _model(seed=4)
    second = train_or_load(second_model, "run", CONFIG, train, cache_dir=tmp_path)
    assert len(calls) == 1 and second.loaded and second.path == first.path and second.history == first.history
    assert torch.equal(second_model.v, first_model.v)
    third = train_or_load(_model(seed=3), "other-run", CONFIG, train, cache_dir=tmp_path)
    assert not third.loaded and len(calls) == 2 and third.path != first.path


def _refusal(path, model, config) -> warnings.WarningMessage:
    """The one warning ``load_checkpoint`` gives when it refuses the file at ``path`` (it must return None)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert load_checkpoint(path, model, config) is None
    assert len(caught) == 1 and caught[0].category is CacheWarning
    return caught[0]


@pytest.mark.parametrize("refusal", ["configuration", "shapes"])
def test_a_refused_checkpoint_is_blamed_on_the_line_that_asked_for_it(tmp_path, refusal):
    path = save_checkpoint(tmp_path / "m.pt", _model(vocab_size=6), {"epoch": [1]}, CONFIG)
    if refusal == "configuration":
        warning = _refusal(path, _model(vocab_size=6), {**CONFIG, "lr": 0.25})
    else:
        warning = _refusal(path, _model(vocab_size=7), CONFIG)
    # stacklevel 2: the caller of load_checkpoint. Under mutmut (MUTANT_UNDER_TEST in the environment, empty for its
    # clean run) every call passes through mutmut's trampoline, which is then the caller.
    caller = "trampoline.py" if "MUTANT_UNDER_TEST" in os.environ else Path(__file__).name
    assert Path(warning.filename).name == caller


def test_train_or_load_says_loaded_false_after_training_and_true_after_loading(tmp_path):
    trained = train_or_load(_model(seed=1), "run", CONFIG, lambda model: {"epoch": [1]}, cache_dir=tmp_path)
    loaded = train_or_load(_model(seed=2), "run", CONFIG, lambda model: {"epoch": [2]}, cache_dir=tmp_path)
    assert trained.loaded is False and loaded.loaded is True
    assert trained.history == loaded.history == {"epoch": [1]}
