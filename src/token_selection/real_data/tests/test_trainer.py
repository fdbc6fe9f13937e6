import pytest
import torch

from token_selection.real_data.attention_variants import AttentionMLP, KeyQueryTwoLayerAttention, MultiClassCLSAttention
from token_selection.real_data.encoding import EncodedSplit
from token_selection.real_data.registry import OneLayerAttention as CLSAttention
from token_selection.real_data.trainer import (
    accuracy,
    default_device,
    hardware_name,
    one_step_size,
    one_step_then_freeze,
    predict_logits,
    train_model,
)
from token_selection.real_data.two_layer_model import TwoLayerCLSAttention
from token_selection.theory.one_step import one_step_embeddings, step_size_threshold


@pytest.mark.parametrize("model_class", [CLSAttention, TwoLayerCLSAttention, KeyQueryTwoLayerAttention, AttentionMLP])
def test_tiny_training_run_learns(toy, model_class):
    model = model_class(toy.vocab_size, 16, seed=0)
    before = accuracy(model, toy.test)
    history = train_model(model, toy.train, toy.validation, epochs=15, batch_size=32, lr=0.03, patience=5, progress=False)
    after = accuracy(model, toy.test)
    assert after > 0.9, f"test accuracy {after:.2f} after training (chance is 0.5)"
    assert after > before + 0.2
    assert history.best_epoch >= 1 and history.best_validation_accuracy > 0.9
    assert len(history.epoch) == len(history.validation_loss) == len(history.epoch_seconds)
    assert history.hardware == hardware_name(default_device()) and history.seconds > 0
    assert next(model.parameters()).device.type == default_device().type  # trained where the default device is


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_training_on_the_gpu_agrees_with_the_cpu(toy):
    """Same seeds on both devices: the same batches, so the same weights up to float32 summation order."""
    states = []
    for device in ("cpu", "cuda"):
        model = CLSAttention(toy.vocab_size, 8, seed=1)
        train_model(model, toy.train, toy.validation, epochs=2, batch_size=64, lr=0.01, progress=False, seed=3,
                    device=device)  # fmt: skip
        assert model.E.device.type == device
        states.append({k: t.cpu() for k, t in model.state_dict().items()})
    assert all(torch.allclose(states[0][k], states[1][k], atol=1e-4, rtol=1e-4) for k in states[0])


def test_training_is_deterministic_on_the_cpu(toy):
    """Bit for bit on the CPU; on a GPU, atomic additions may change the summation order (see the test above)."""
    states = []
    for _ in range(2):
        model = CLSAttention(toy.vocab_size, 8, seed=1)
        train_model(model, toy.train, toy.validation, epochs=2, batch_size=64, lr=0.01, progress=False, seed=3,
                    device="cpu")  # fmt: skip
        states.append(model.state_dict())
    assert all(torch.equal(states[0][k], states[1][k]) for k in states[0])


def test_early_stopping_keeps_the_best_epoch(toy):
    model = CLSAttention(toy.vocab_size, 8, seed=0)
    # A learning rate this large makes the validation accuracy stall or drop quickly.
    history = train_model(model, toy.train, toy.validation, epochs=40, batch_size=16, lr=3.0, patience=1, progress=False)
    assert len(history.epoch) < 40 and history.stop_reason.startswith("early stop")
    kept = accuracy(model, toy.validation)  # the best epoch's, or the initial one's if no epoch beat it
    assert kept >= max(history.validation_accuracy) - 1e-9
    if history.best_epoch:
        assert kept == pytest.approx(history.best_validation_accuracy)


def test_frozen_embeddings_stay_put(toy):
    model = CLSAttention(toy.vocab_size, 8, seed=0)
    E = model.E.detach().clone()
    train_model(model, toy.train, toy.validation, epochs=2, batch_size=64, lr=0.05, train_embeddings=False, progress=False)
    assert torch.equal(model.E.detach().cpu(), E)
    assert model.p.detach().abs().sum() > 0


def test_one_step_then_freeze(toy):
    model = CLSAttention(toy.vocab_size, 8, seed=0)
    eta_star, lr = one_step_size(toy.train, toy.vocab_size, 8, 2.0)
    assert eta_star == step_size_threshold(toy.train.X, toy.train.y, toy.vocab_size, 8, toy.train.mask)
    assert lr == pytest.approx(2.0 * eta_star, rel=1e-12)
    with pytest.raises(ValueError, match="factor"):
        one_step_size(toy.train, toy.vocab_size, 8, 0.0)
    expected = one_step_embeddings(CLSAttention(toy.vocab_size, 8, seed=0), toy.train.X, toy.train.y, lr, toy.train.mask)
    one_step_then_freeze(model, toy.train, toy.validation, step_lr=lr, epochs=2, batch_size=64, lr=0.05, progress=False)
    # the step is taken on the default device: on a GPU, float32 sums in another order (measured on an H100: < 1e-5)
    assert torch.allclose(model.E.detach().cpu(), expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match="one-layer"):
        one_step_then_freeze(TwoLayerCLSAttention(toy.vocab_size, 8), toy.train, toy.validation, step_lr=1.0)


def test_predictions_match_the_checked_forward(toy):
    model = CLSAttention(toy.vocab_size, 8, seed=0, p_init="random")
    logits = predict_logits(model, toy.test, batch_size=7)
    assert torch.allclose(logits, model(toy.test.X, toy.test.mask).detach(), atol=1e-6)
    assert torch.allclose(model.logits_and_attention(toy.test.X[:5], toy.test.mask[:5])[0], logits[:5], atol=1e-6)


def test_bad_arguments(toy):
    model = CLSAttention(toy.vocab_size, 4)
    with pytest.raises(ValueError, match="epochs"):
        train_model(model, toy.train, toy.validation, epochs=0)
    with pytest.raises(ValueError, match="lr"):
        train_model(model, toy.train, toy.validation, lr=-1.0)


def test_the_multiclass_model_trains_with_cross_entropy(toy):
    # four classes: the binary label and, independently, the parity of the review's index
    y = toy.train.y * 2 + torch.arange(len(toy.train)) % 2
    split = EncodedSplit(toy.train.X, toy.train.mask, y, "toy, 4 classes")
    model = MultiClassCLSAttention(toy.vocab_size, 16, 4, seed=0)
    history = train_model(model, split, split, epochs=15, batch_size=32, lr=0.03, patience=5, progress=False)
    # the sentiment half of the label is learnable, the parity half is not: about 50% is the most a model can reach
    assert 0.4 < history.best_validation_accuracy < 0.65
    assert predict_logits(model, split).shape == (len(split), 4)
