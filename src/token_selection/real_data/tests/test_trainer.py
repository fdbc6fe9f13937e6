import pytest
import torch

from token_selection import CLSAttention
from token_selection.real_data import reviews
from token_selection.real_data.encoding import prepare_reviews
from token_selection.real_data.trainer import (
    accuracy,
    batch_logits,
    one_step_lr,
    one_step_then_freeze,
    predict_logits,
    train_jointly,
)
from token_selection.real_data.two_layer_model import TwoLayerCLSAttention
from token_selection.theory.one_step import one_step_embeddings


def offline(name, split):
    raise ConnectionError("no network in tests")


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """Tokenised toy reviews: 400 train (360 + 40 validation), 200 test, T = 12."""
    root = tmp_path_factory.mktemp("toy")
    for split, n, seed in (("train", 400, 0), ("test", 200, 1)):
        reviews.write_parquet_split(root / "data", "imdb", split, *reviews.make_toy_reviews(n, seed=seed))
    patch = pytest.MonkeyPatch()
    patch.setattr(reviews, "_load_from_hub", offline)
    try:
        return prepare_reviews("imdb", T=12, min_count=1, data_dir=root / "data", cache_dir=root / "cache", progress=False)
    finally:
        patch.undo()


@pytest.mark.parametrize("model_class", [CLSAttention, TwoLayerCLSAttention])
def test_tiny_training_run_learns(toy, model_class):
    model = model_class(toy.vocab_size, 16, seed=0)
    before = accuracy(model, toy.test)
    history = train_jointly(model, toy.train, toy.validation, epochs=15, batch_size=32, lr=0.03, patience=5, progress=False)
    after = accuracy(model, toy.test)
    assert after > 0.9, f"test accuracy {after:.2f} after training (chance is 0.5)"
    assert after > before + 0.2
    assert history.best_epoch >= 1 and history.best_validation_accuracy > 0.9
    assert len(history.epoch) == len(history.validation_loss) == len(history.epoch_seconds)
    assert history.hardware.startswith("CPU") and history.seconds > 0


def test_training_is_deterministic(toy):
    states = []
    for _ in range(2):
        model = CLSAttention(toy.vocab_size, 8, seed=1)
        train_jointly(model, toy.train, toy.validation, epochs=2, batch_size=64, lr=0.01, progress=False, seed=3)
        states.append(model.state_dict())
    assert all(torch.equal(states[0][k], states[1][k]) for k in states[0])


def test_early_stopping_keeps_the_best_epoch(toy):
    model = CLSAttention(toy.vocab_size, 8, seed=0)
    # A learning rate this large makes the validation accuracy stall or drop quickly.
    history = train_jointly(model, toy.train, toy.validation, epochs=40, batch_size=16, lr=3.0, patience=1, progress=False)
    assert len(history.epoch) < 40 and history.stop_reason.startswith("early stop")
    kept = accuracy(model, toy.validation)  # the best epoch's, or the initial one's if no epoch beat it
    assert kept >= max(history.validation_accuracy) - 1e-9
    if history.best_epoch:
        assert kept == pytest.approx(history.best_validation_accuracy)


def test_frozen_embeddings_stay_put(toy):
    model = CLSAttention(toy.vocab_size, 8, seed=0)
    E = model.E.detach().clone()
    train_jointly(model, toy.train, toy.validation, epochs=2, batch_size=64, lr=0.05, train_embeddings=False, progress=False)
    assert torch.equal(model.E.detach(), E)
    assert model.p.detach().abs().sum() > 0


def test_one_step_then_freeze(toy):
    model = CLSAttention(toy.vocab_size, 8, seed=0)
    lr = one_step_lr(toy.train, 8)
    assert lr == pytest.approx(float(toy.train.mask.sum(1).double().mean()) * 8**0.5)
    expected = one_step_embeddings(CLSAttention(toy.vocab_size, 8, seed=0), toy.train.X, toy.train.y, lr, toy.train.mask)
    one_step_then_freeze(model, toy.train, toy.validation, step_lr=lr, epochs=2, batch_size=64, lr=0.05, progress=False)
    assert torch.allclose(model.E.detach(), expected)
    with pytest.raises(ValueError, match="one-layer"):
        one_step_then_freeze(TwoLayerCLSAttention(toy.vocab_size, 8), toy.train, toy.validation, step_lr=1.0)


def test_predictions_match_the_checked_forward(toy):
    model = CLSAttention(toy.vocab_size, 8, seed=0, p_init="random")
    logits = predict_logits(model, toy.test, batch_size=7)
    assert torch.allclose(logits, model(toy.test.X, toy.test.mask).detach(), atol=1e-6)
    assert torch.allclose(batch_logits(model, toy.test.X[:5], toy.test.mask[:5]), logits[:5], atol=1e-6)


def test_bad_arguments(toy):
    model = CLSAttention(toy.vocab_size, 4)
    with pytest.raises(ValueError, match="epochs"):
        train_jointly(model, toy.train, toy.validation, epochs=0)
    with pytest.raises(ValueError, match="lr"):
        train_jointly(model, toy.train, toy.validation, lr=-1.0)


def test_one_step_threshold_is_where_signal_meets_noise(toy):
    from token_selection import signed_frequency
    from token_selection.real_data.trainer import one_step_threshold

    d = 16
    star = one_step_threshold(toy.train, toy.vocab_size, d)
    alpha = signed_frequency(toy.train.X, toy.train.y, toy.vocab_size, toy.train.mask)
    assert star == pytest.approx(2 / (d**0.5 * float(alpha.std())))
    # below the threshold E.v is mostly noise, well above it E.v follows alpha
    corr = {}
    for factor in (0.05, 20.0):
        model = CLSAttention(toy.vocab_size, d, seed=0)
        E = one_step_embeddings(model, toy.train.X, toy.train.y, factor * star, toy.train.mask)
        corr[factor] = float(torch.corrcoef(torch.stack([E @ model.v.detach(), alpha.float()]))[0, 1])
    assert corr[20.0] > 0.95 and corr[0.05] < 0.5, corr
