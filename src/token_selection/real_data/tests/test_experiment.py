import pytest
import torch

from token_selection import CLSAttention
from token_selection.real_data import reviews
from token_selection.real_data.encoding import prepare_reviews
from token_selection.real_data.experiment import MODEL_KINDS, build_model, experiment_settings, trained_model, training_settings
from token_selection.real_data.two_layer_model import TwoLayerCLSAttention


def offline(name, split):
    raise ConnectionError("no network in tests")


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    root = tmp_path_factory.mktemp("toy")
    for split, n, seed in (("train", 300, 0), ("test", 100, 1)):
        reviews.write_parquet_split(root / "data", "yelp_polarity", split, *reviews.make_toy_reviews(n, seed=seed))
    patch = pytest.MonkeyPatch()
    patch.setattr(reviews, "_load_from_hub", offline)
    try:
        data = prepare_reviews(
            "yelp_polarity", T=12, min_count=1, data_dir=root / "data", cache_dir=root / "cache", progress=False
        )
    finally:
        patch.undo()
    return data, root / "cache"


def test_settings_per_scale(monkeypatch):
    monkeypatch.setenv("TOKEN_SELECTION_SCALE", "full")
    assert experiment_settings().d == 2048 and experiment_settings().limit is None
    fast = experiment_settings("fast")
    assert fast.d < 2048 and fast.data_arguments()["T"] == fast.T
    assert experiment_settings("fast", d=8).d == 8
    with pytest.raises(ValueError, match="scale"):
        experiment_settings("huge")
    with pytest.raises(ValueError, match="unknown setting"):
        experiment_settings("fast", depth=3)


def test_build_model():
    assert isinstance(build_model("two_layer", 10, 4), TwoLayerCLSAttention)
    assert all(isinstance(build_model(kind, 10, 4), CLSAttention) for kind in MODEL_KINDS if kind != "two_layer")
    with pytest.raises(ValueError, match="kind"):
        build_model("three_layer", 10, 4)


@pytest.mark.parametrize("kind", sorted(MODEL_KINDS))
def test_trained_model_learns_then_loads(toy, kind):
    data, cache = toy
    settings = experiment_settings("fast", d=16, epochs=8, lr=0.03, batch_size=32, frozen_epochs=8, frozen_lr=0.1)
    first = trained_model(kind, data, settings, device="cpu", cache_dir=cache, progress=False)
    second = trained_model(kind, data, settings, device="cpu", cache_dir=cache, progress=False)
    assert not first.loaded and second.loaded and first.path.name.startswith(f"yelp_polarity-{kind}-")
    assert second.test_accuracy == first.test_accuracy and second.history.epoch == first.history.epoch
    for key, value in first.model.state_dict().items():
        assert torch.equal(second.model.state_dict()[key], value)
    if kind in ("one_layer", "two_layer"):
        assert first.test_accuracy > 0.9
    text = second.summary("local")
    assert "loaded from its checkpoint" in text and "[local]" in text and f"{first.test_accuracy:.1%}" in text


def test_checkpoint_keys_hold_only_what_a_model_depends_on():
    base = experiment_settings("fast")
    other = experiment_settings("fast", frozen_lr=0.5, importance_min_count=5)
    assert training_settings("one_layer", base) == training_settings("one_layer", other)
    assert training_settings("two_layer", base) == training_settings("two_layer", other)
    assert training_settings("frozen_random", base) != training_settings("frozen_random", other)
    assert "one_step_factor" in training_settings("one_step_frozen", base)
    assert training_settings("one_layer", base) != training_settings("one_layer", experiment_settings("fast", lr=0.1))
