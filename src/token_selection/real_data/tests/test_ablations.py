import warnings
from pathlib import Path

import numpy as np
import pytest
import torch

import token_selection as ts
from token_selection.disk_cache import CacheWarning
from token_selection.real_data.ablations import AblationSettings, build_variant, restrict_reviews, run_variant
from token_selection.real_data.attention_variants import MultiClassCLSAttention
from token_selection.real_data.encoding import EncodedReviews, EncodedSplit
from token_selection.real_data.yelp_stars import load_yelp_stars, train_multiclass
from token_selection.studies.synthetic_variants import (
    class_importance,
    make_multiclass_synthetic,
    make_shielding_data,
    train_full_batch,
)


def _split(n: int, T: int, V: int, seed: int) -> EncodedSplit:
    """Reviews whose label is carried by tokens 2 (positive) and 3 (negative); the rest is noise."""
    gen = torch.Generator().manual_seed(seed)
    y = torch.arange(n) % 2
    X = torch.randint(4, V, (n, T), generator=gen)
    X[:, 0] = torch.where(y > 0, 2, 3)
    lengths = torch.randint(T // 2, T + 1, (n,), generator=gen)
    mask = torch.arange(T)[None, :] < lengths[:, None]
    return EncodedSplit(X * mask, mask, y, f"synthetic seed {seed}")


def _encoded(V: int = 30) -> EncodedReviews:
    return EncodedReviews(
        name="imdb",
        vocab=["<pad>", "<unk>"] + [f"w{i}" for i in range(2, V)],
        train=_split(160, 12, V, 0),
        validation=_split(40, 12, V, 1),
        test=_split(60, 12, V, 2),
        test_texts=[f"text {i}" for i in range(60)],
        config={"kind": "test", "V": V},
        cache_path=Path("unused"),
        from_cache=False,
        seconds=0.0,
    )


def test_restrict_reviews_keeps_rows_cuts_tokens_and_renumbers():
    encoded = _encoded()
    small = restrict_reviews(encoded, n_train=50, n_test=20, T=5, min_count=3)
    assert len(small.train) == 50 and len(small.test) == 20 and small.T == 5 and len(small.test_texts) == 20
    assert small.vocab[:2] == ["<pad>", "<unk>"] and small.vocab_size < encoded.vocab_size
    assert int(small.train.X.max()) < small.vocab_size
    counts = torch.bincount(small.train.X[small.train.mask], minlength=small.vocab_size)
    assert (counts[2:] >= 3).all(), "every kept word is seen at least min_count times"
    assert small.config["restricted"]["T"] == 5 and small.config != encoded.config
    assert restrict_reviews(encoded) is encoded


def test_run_variant_trains_then_loads_from_the_cache(tmp_path):
    encoded = _encoded()
    settings = AblationSettings(d=8, epochs=3, batch_size=32, lr=0.05, patience=2)
    first = run_variant(encoded, "trained", settings, cache_dir=tmp_path, device="cpu", progress=False)
    assert not first.from_cache and first.cache_path.exists() and first.test_accuracy > 0.9
    second = run_variant(encoded, "trained", settings, cache_dir=tmp_path, device="cpu", progress=False)
    assert second.from_cache and second.test_accuracy == first.test_accuracy
    assert np.array_equal(second.token_values(), first.token_values())
    first.cache_path.write_bytes(b"corrupted")
    with pytest.warns(CacheWarning):
        third = run_variant(encoded, "trained", settings, cache_dir=tmp_path, device="cpu", progress=False)
    assert not third.from_cache


@pytest.mark.parametrize("kind", ["frozen", "one_step", "two_layer", "key_query", "mlp"])
def test_every_variant_runs(kind, tmp_path):
    encoded = _encoded()
    settings = AblationSettings(d=8, epochs=2, batch_size=64, lr=0.05, patience=1)
    model = build_variant(kind, encoded.vocab_size, 8)
    E0 = model.E.detach().clone()
    with warnings.catch_warnings():
        warnings.simplefilter("error", CacheWarning)
        run = run_variant(encoded, kind, settings, cache_dir=tmp_path, device="cpu", progress=False)
    assert run.token_scores().shape == run.token_values().shape == (encoded.vocab_size,)
    if kind == "frozen":
        assert torch.equal(run.model.E.detach(), E0), "frozen embeddings must not move"
    elif kind == "one_step":
        assert not torch.equal(run.model.E.detach(), E0)


def test_build_variant_rejects_unknown_kinds():
    with pytest.raises(ValueError, match="kind must be one of"):
        build_variant("three_layer", 10, 4)


def test_shielding_data_hides_C_from_first_order_statistics():
    data = make_shielding_data(400, 6, 40, seed=0)
    alpha = ts.signed_frequency(data.X, data.y, 40)
    gap = ts.posterior_gap(data.X, data.y, 40)
    assert abs(float(alpha[data.C])) < 1e-12 and abs(float(gap[data.C])) < 1e-12
    assert float(alpha[data.A]) > 0 > float(alpha[data.N]) and float(gap[data.N]) == -1.0
    holds_N = (data.X == data.N).any(1)
    assert (data.y[holds_N] < 0).all() and ((data.X == data.C) & holds_N[:, None]).any(1).sum() == 100
    with pytest.raises(ValueError, match="multiple of 4"):
        make_shielding_data(10)


def test_multiclass_synthetic_and_importance():
    data = make_multiclass_synthetic(200, 6, 40, 4, n_relevant=3, seed=0)
    assert (data.relevant.sum(1) == 1).all()
    relevant_tokens = data.X[data.relevant]
    assert torch.equal(data.token_class[relevant_tokens], data.y)
    importance = class_importance(data.X, data.y, 4, 40)
    seen = torch.isfinite(importance[:, 0])
    assert torch.allclose(importance[seen].sum(1), torch.zeros(int(seen.sum()), dtype=torch.float64), atol=1e-12)
    relevant = data.token_class >= 0
    assert torch.allclose(importance[relevant & seen, :].max(1).values, torch.tensor(0.75, dtype=torch.float64))
    with pytest.raises(ValueError, match="leaves no irrelevant token"):
        make_multiclass_synthetic(10, 4, 12, 4, n_relevant=3)


def test_train_full_batch_only_moves_the_named_parameters():
    data = ts.make_synthetic(100, 6, 30, 0.0, seed=0)
    model = ts.CLSAttention(30, 16, seed=0)
    E0, v0 = model.E.detach().clone(), model.v.detach().clone()
    losses = train_full_batch(model, data.X, data.y, steps=30, lr=0.05, parameters=("p",))
    assert losses[-1] < losses[0] and len(losses) == 31
    assert torch.equal(model.E, E0) and torch.equal(model.v, v0) and model.p.norm() > 0
    with pytest.raises(ValueError, match="parameters must name"):
        train_full_batch(model, data.X, data.y, steps=1, lr=0.1, parameters=("W",))


def test_multiclass_training_reduces_the_loss():
    data = make_multiclass_synthetic(200, 6, 40, 4, n_relevant=3, seed=1)
    model = MultiClassCLSAttention(40, 16, 4, seed=0)
    mask = torch.ones_like(data.X, dtype=torch.bool)
    losses = train_multiclass(model, data.X, mask, data.y, epochs=15, batch_size=50, lr=0.05)
    assert losses[-1] < 0.5 * losses[0]
    full_batch = MultiClassCLSAttention(40, 16, 4, seed=0)
    assert train_full_batch(full_batch, data.X, data.y, steps=40, lr=0.05)[-1] < 1.0


def test_yelp_stars_needs_the_hub(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ConnectionError, match="HF_HUB_OFFLINE"):
        load_yelp_stars("train")
    with pytest.raises(ValueError, match="split"):
        load_yelp_stars("dev")
