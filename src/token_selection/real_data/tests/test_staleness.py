"""Nothing stored is used under other settings: tokenised reviews, checkpoints and the training a checkpoint stands for.

Each test writes under one setting and reads under another, for every setting in turn (the
settings walked from ``dataclasses.fields`` or from the arguments, so a setting added later is
covered). The fixtures are deliberately uneven: reviews of different lengths (padded positions),
unbalanced labels, and garbage token ids behind the padding.
"""

from __future__ import annotations

import dataclasses
import random
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from token_selection.real_data import checkpoints, pipeline, reviews
from token_selection.real_data.checkpoints import CHECKPOINT_VERSION, checkpoint_path, train_or_load
from token_selection.real_data.encoding import PAD_ID, EncodedSplit, prepare_reviews
from token_selection.real_data.registry import build_model
from token_selection.real_data.settings import RealDataSettings, real_data_settings
from token_selection.real_data.trainer import accuracy, one_step_size, predict_logits, train_model
from token_selection.theory.one_step import step_size_threshold

from .test_settings import other_value

MEASUREMENT_ONLY = {"importance_min_count", "n_boot", "scale"}
"""Settings a trained model does not depend on (they shape the figures and the record, not the parameters)."""


class _Stop(Exception):
    """Raised by the stand-in for train_or_load once it has seen the configuration."""


def _checkpoint_config(monkeypatch, kind: str, mode: str, settings: RealDataSettings, data) -> tuple[str, dict]:
    seen = {}

    def capture(model, name, config, train, *, cache_dir=None):
        seen.update(name=name, config=config)
        raise _Stop

    monkeypatch.setattr(pipeline, "train_or_load", capture)
    with pytest.raises(_Stop):
        pipeline.run_experiment(kind, mode, settings, data=data, device="cpu", progress=False)
    return seen["name"], seen["config"]


FAKE_DATA = SimpleNamespace(name="imdb", vocab_size=30, config={"kind": "encoded_reviews", "T": 12, "train": "abc"})


@pytest.mark.parametrize(("kind", "mode"), [("one_layer", "joint"), ("one_layer", "one_step_frozen"), ("two_layer", "joint")])
@pytest.mark.parametrize("scale", ["fast", "full"])
def test_a_checkpoint_is_not_reused_after_any_training_setting_changes(monkeypatch, tmp_path, kind, mode, scale):
    settings = real_data_settings(scale, "imdb", d=8)
    name, config = _checkpoint_config(monkeypatch, kind, mode, settings, FAKE_DATA)
    assert name == f"imdb-{kind}-{mode}" and config["kind"] == kind and config["mode"] == mode
    assert config["data"] == FAKE_DATA.config
    path = checkpoint_path(name, config, tmp_path)
    rng = random.Random(f"{kind}{mode}{scale}")
    for field in dataclasses.fields(RealDataSettings):
        changed = dataclasses.replace(settings, **{field.name: other_value(settings, field.name, rng)})
        other = _checkpoint_config(monkeypatch, kind, mode, changed, FAKE_DATA)[1]
        if field.name in MEASUREMENT_ONLY:
            assert other == config, f"{field.name} does not change the trained parameters: the checkpoint is reused"
        else:
            assert other != config and checkpoint_path(name, other, tmp_path) != path, field.name


def test_a_checkpoint_is_not_reused_for_other_data(monkeypatch):
    settings = real_data_settings("fast", d=8)
    config = _checkpoint_config(monkeypatch, "one_layer", "joint", settings, FAKE_DATA)[1]
    for key, value in FAKE_DATA.config.items():
        data = SimpleNamespace(**{**vars(FAKE_DATA), "config": {**FAKE_DATA.config, key: f"{value}!"}})
        assert _checkpoint_config(monkeypatch, "one_layer", "joint", settings, data)[1] != config, key


def test_a_checkpoint_of_another_checkpoint_version_is_not_read(tmp_path, monkeypatch):
    config = {"kind": "one_layer", "d": 4}
    path = checkpoint_path("m", config, tmp_path)
    monkeypatch.setattr(checkpoints, "CHECKPOINT_VERSION", CHECKPOINT_VERSION + 1)
    assert checkpoint_path("m", config, tmp_path) != path


def test_train_or_load_trains_again_under_any_other_configuration(tmp_path):
    config = {"kind": "one_layer", "d": 4, "lr": 0.01, "seeds": [0], "limit": None}
    calls = []

    def train(model):
        calls.append(1)
        return {"epoch": [1]}

    assert not train_or_load(build_model("one_layer", 10, 4), "m", config, train, cache_dir=tmp_path).loaded
    assert train_or_load(build_model("one_layer", 10, 4), "m", dict(config), train, cache_dir=tmp_path).loaded
    for key, value in config.items():
        changed = {**config, key: [value, 1]}
        assert not train_or_load(build_model("one_layer", 10, 4), "m", changed, train, cache_dir=tmp_path).loaded, key
    assert len(calls) == 1 + len(config)


def _uneven_reviews(n: int, seed: int) -> tuple[list[str], np.ndarray]:
    """Toy reviews cut to lengths 1..12 words, 70% of them labelled 1."""
    texts, _ = reviews.make_toy_reviews(n, seed=seed)
    rng = np.random.default_rng(seed)
    labels = (rng.random(n) < 0.7).astype(np.int64)
    cut = [" ".join(text.split()[: int(rng.integers(1, 13))]) for text in texts]
    return cut, labels


@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(reviews, "_load_from_hub", lambda name, split: (_ for _ in ()).throw(ConnectionError("offline")))
    root = tmp_path / "data"
    for split, n, seed in (("train", 300, 0), ("test", 120, 1)):
        reviews.write_parquet_split(root, "imdb", split, *_uneven_reviews(n, seed))
    return root


BASE = {"T": 10, "min_count": 1, "max_vocab": None, "limit": None, "validation_fraction": 0.1, "seed": 0}
OTHER = {"T": 6, "min_count": 2, "max_vocab": 12, "limit": 200, "validation_fraction": 0.2, "seed": 1}


def test_tokenised_reviews_are_not_reused_under_any_other_data_setting(data_dir, tmp_path):
    assert set(BASE) == set(real_data_settings("fast").data_arguments()) == set(OTHER)
    cache = tmp_path / "cache"
    first = prepare_reviews("imdb", **BASE, data_dir=data_dir, cache_dir=cache, progress=False)
    assert not first.from_cache
    assert (~first.train.mask).any(), "the fixture must have padded positions"
    assert 0.6 < float(first.train.y.float().mean()) < 0.8, "the fixture must have unbalanced labels"
    again = prepare_reviews("imdb", **BASE, data_dir=data_dir, cache_dir=cache, progress=False)
    assert again.from_cache and again.cache_path == first.cache_path
    assert torch.equal(again.train.X, first.train.X) and torch.equal(again.train.mask, first.train.mask)
    assert torch.equal(again.test.y, first.test.y) and again.vocab == first.vocab
    for key, value in OTHER.items():
        other = prepare_reviews("imdb", **{**BASE, key: value}, data_dir=data_dir, cache_dir=cache, progress=False)
        assert not other.from_cache and other.cache_path != first.cache_path, key
        assert other.config[key] == value


def test_tokenised_reviews_are_not_reused_when_the_reviews_change(data_dir, tmp_path):
    cache = tmp_path / "cache"
    first = prepare_reviews("imdb", **BASE, data_dir=data_dir, cache_dir=cache, progress=False)
    texts, labels = _uneven_reviews(300, 0)
    labels[0] = 1 - labels[0]  # one label flipped
    reviews.write_parquet_split(data_dir, "imdb", "train", texts, labels)
    second = prepare_reviews("imdb", **BASE, data_dir=data_dir, cache_dir=cache, progress=False)
    assert not second.from_cache and second.cache_path != first.cache_path


def _padded_split(n: int = 60, T: int = 7, V: int = 25, seed: int = 0, share: float = 0.8) -> EncodedSplit:
    gen = torch.Generator().manual_seed(seed)
    lengths = torch.randint(1, T + 1, (n,), generator=gen)
    mask = torch.arange(T)[None, :] < lengths[:, None]
    X = torch.randint(2, V, (n, T), generator=gen).masked_fill(~mask, PAD_ID)
    y = (torch.rand(n, generator=gen) < share).long()
    return EncodedSplit(X, mask, y, "test")


def _with_garbage_behind_padding(split: EncodedSplit, seed: int = 1) -> EncodedSplit:
    garbage = torch.randint(2, 25, split.X.shape, generator=torch.Generator().manual_seed(seed))
    return dataclasses.replace(split, X=torch.where(split.mask, split.X, garbage))


@pytest.mark.parametrize("kind", ["one_layer", "two_layer", "key_query", "mlp"])
def test_padded_positions_change_neither_predictions_nor_training(kind):
    split = _padded_split()
    garbage = _with_garbage_behind_padding(split)
    assert not torch.equal(split.X, garbage.X) and (~split.mask).sum() > 20
    model = build_model(kind, 25, 6, seed=0)
    torch.testing.assert_close(predict_logits(model, garbage), predict_logits(model, split), rtol=0, atol=0)
    trained = {}
    for label, data in (("pad", split), ("garbage", garbage)):
        model = build_model(kind, 25, 6, seed=0)
        train_model(model, data, data, epochs=2, batch_size=16, lr=0.05, patience=2, device="cpu", progress=False)
        trained[label] = model.state_dict()
    for key, value in trained["pad"].items():
        torch.testing.assert_close(trained["garbage"][key], value, rtol=1e-6, atol=1e-7, msg=key)


def test_the_one_step_size_reads_only_unpadded_positions_on_unbalanced_labels():
    split = _padded_split(share=0.8)
    eta_star, eta = one_step_size(split, 25, 16, 2.5)
    assert eta_star == pytest.approx(step_size_threshold(split.X, split.y, 25, 16, split.mask))
    assert eta == pytest.approx(2.5 * eta_star)
    assert one_step_size(_with_garbage_behind_padding(split), 25, 16, 2.5) == pytest.approx((eta_star, eta))
    assert eta_star != pytest.approx(step_size_threshold(split.X, split.y, 25, 16))  # the padding would change it


class _ConstantLogit(torch.nn.Module):
    """Predicts the same logit for every review: accuracy is then the share of the class it picks."""

    def __init__(self, logit: float):
        super().__init__()
        self.E = torch.nn.Parameter(torch.zeros(25, 3))
        self.logit = logit

    def logits_and_attention(self, X, mask):
        return torch.full((X.shape[0],), self.logit), None


def test_accuracy_on_unbalanced_labels_and_a_logit_exactly_zero_predicts_positive():
    split = _padded_split(share=0.8)
    share = float(split.y.float().mean())
    assert 0.7 < share < 0.9
    assert accuracy(_ConstantLogit(0.0), split) == pytest.approx(share)  # the boundary: logit 0 counts as class 1
    assert accuracy(_ConstantLogit(1e-6), split) == pytest.approx(share)
    assert accuracy(_ConstantLogit(-1e-6), split) == pytest.approx(1 - share)
