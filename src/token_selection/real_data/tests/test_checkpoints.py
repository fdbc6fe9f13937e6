import pytest
import torch

from token_selection import CLSAttention
from token_selection.disk_cache import CacheWarning
from token_selection.real_data.checkpoints import checkpoint_path, load_checkpoint, save_checkpoint, train_or_load
from token_selection.real_data.two_layer_model import TwoLayerCLSAttention

CONFIG = {"kind": "one_layer", "d": 4, "lr": 0.01}


def fake_training(model):
    """Stands in for training: changes the parameters in a known way and returns a history."""
    with torch.no_grad():
        model.p.add_(1.5)
    return {"epoch": [1, 2], "seconds": 0.25, "hardware": "test"}


def test_round_trip(tmp_path):
    model = CLSAttention(10, 4, seed=0, p_init="random")
    path = save_checkpoint(tmp_path / "m.pt", model, {"epoch": [1]}, CONFIG)
    other = CLSAttention(10, 4, seed=1)
    assert load_checkpoint(path, other, CONFIG) == {"epoch": [1]}
    for key, value in model.state_dict().items():
        assert torch.equal(other.state_dict()[key], value)


def test_train_if_missing_then_load(tmp_path):
    calls = []

    def train(model):
        calls.append(1)
        return fake_training(model)

    first_model = CLSAttention(10, 4, seed=0)
    first = train_or_load(first_model, "imdb-one_layer", CONFIG, train, cache_dir=tmp_path)
    second_model = CLSAttention(10, 4, seed=0)
    second = train_or_load(second_model, "imdb-one_layer", CONFIG, train, cache_dir=tmp_path)
    assert calls == [1]
    assert not first.loaded and second.loaded and first.path == second.path
    assert second.history == {"epoch": [1, 2], "seconds": 0.25, "hardware": "test"}
    assert torch.equal(second_model.p, first_model.p) and float(second_model.p.detach()[0]) == pytest.approx(1.5)


def test_corrupted_checkpoint_is_retrained(tmp_path):
    model = CLSAttention(10, 4, seed=0)
    result = train_or_load(model, "m", CONFIG, fake_training, cache_dir=tmp_path)
    raw = bytearray(result.path.read_bytes())
    raw[len(raw) // 3] ^= 0x10
    result.path.write_bytes(bytes(raw))
    calls = []

    def train(model):
        calls.append(1)
        return fake_training(model)

    with pytest.warns(CacheWarning, match="corrupted"):
        again = train_or_load(CLSAttention(10, 4, seed=0), "m", CONFIG, train, cache_dir=tmp_path)
    assert calls == [1] and not again.loaded


def test_configuration_names_the_file_and_is_checked(tmp_path):
    assert checkpoint_path("m", CONFIG, tmp_path) != checkpoint_path("m", {**CONFIG, "lr": 0.02}, tmp_path)
    path = save_checkpoint(tmp_path / "m.pt", CLSAttention(10, 4), {}, CONFIG)
    with pytest.warns(CacheWarning, match="another configuration"):
        assert load_checkpoint(path, CLSAttention(10, 4), {**CONFIG, "lr": 0.02}) is None
    with pytest.warns(CacheWarning, match="holds parameters"):
        assert load_checkpoint(path, TwoLayerCLSAttention(10, 4), CONFIG) is None
    with pytest.raises(ValueError, match="name"):
        checkpoint_path("a/b", CONFIG, tmp_path)
