"""The trainer's thresholds on their boundaries: an equal validation accuracy is no improvement, patience counts
exactly, and the learning rate and step factor must be strictly positive."""

from __future__ import annotations

import math

import pytest
import torch
from torch import nn

from token_selection.real_data.encoding import EncodedSplit
from token_selection.real_data.trainer import TrainingHistory, one_step_size, train_model


class _Scripted(nn.Module):
    """A model whose validation accuracy follows a script, one value per evaluation (the first: before training)."""

    def __init__(self, accuracies: list[float], n: int):
        super().__init__()
        self.E = nn.Parameter(torch.zeros(5, 2))
        self.w = nn.Parameter(torch.zeros(()))
        self.script, self.n, self.calls = list(accuracies), n, 0

    def logits_and_attention(self, X, mask):
        # in evaluation (no grad), the first round(accuracy * n) reviews (all labelled 1) are predicted right
        if torch.is_grad_enabled():
            return self.w * torch.ones(X.shape[0]), None
        accuracy = self.script[min(self.calls, len(self.script) - 1)]
        self.calls += 1
        right = round(accuracy * self.n)
        return torch.tensor([1.0] * right + [-1.0] * (X.shape[0] - right)), None


def _split(n: int) -> EncodedSplit:
    X = torch.ones((n, 3), dtype=torch.long)
    return EncodedSplit(X, torch.ones_like(X, dtype=torch.bool), torch.ones(n, dtype=torch.long), "test")


def _train(accuracies: list[float], *, epochs: int, patience: int) -> TrainingHistory:
    n = 10
    model = _Scripted(accuracies, n)
    return train_model(model, _split(n), _split(n), epochs=epochs, batch_size=n, patience=patience, device="cpu", progress=False)


def test_an_equal_validation_accuracy_is_no_improvement():
    history = _train([0.5, 0.5, 0.5, 0.5], epochs=4, patience=2)
    assert history.epoch == [1, 2] and history.best_epoch == 0
    assert history.stop_reason == "early stop: no better validation accuracy for 2 epochs"
    assert math.isnan(history.best_validation_accuracy)


def test_patience_counts_the_epochs_since_the_last_improvement():
    history = _train([0.5, 0.6, 0.6, 0.7, 0.7, 0.7, 0.9], epochs=10, patience=2)
    assert history.epoch == [1, 2, 3, 4, 5] and history.best_epoch == 3
    assert history.validation_accuracy == [0.6, 0.6, 0.7, 0.7, 0.7] and history.best_validation_accuracy == 0.7


def test_a_run_that_keeps_improving_runs_every_epoch():
    history = _train([0.1, 0.2, 0.3, 0.4], epochs=3, patience=1)
    assert history.epoch == [1, 2, 3] and history.best_epoch == 3 and history.stop_reason == "ran all 3 epochs"


def test_patience_one_stops_at_the_first_epoch_without_improvement():
    history = _train([0.5, 0.6, 0.6, 0.9], epochs=5, patience=1)
    assert history.epoch == [1, 2] and history.best_epoch == 1


@pytest.mark.parametrize("lr", [0.0, -1e-3, float("nan")])
def test_the_learning_rate_must_be_strictly_positive(lr):
    with pytest.raises(ValueError, match="lr must be > 0"):
        train_model(_Scripted([0.5], 4), _split(4), _split(4), lr=lr, device="cpu", progress=False)


def test_a_tiny_positive_learning_rate_is_accepted():
    history = train_model(_Scripted([0.5], 4), _split(4), _split(4), epochs=1, lr=1e-12, device="cpu", progress=False)
    assert history.epoch == [1]


@pytest.mark.parametrize("factor", [0.0, -2.0, float("nan")])
def test_the_step_factor_must_be_strictly_positive(factor):
    with pytest.raises(ValueError, match="factor must be > 0"):
        one_step_size(_split(4), 5, 2, factor)


class _Recording(_Scripted):
    """``_Scripted`` that also records its weight at each evaluation."""

    def __init__(self, accuracies: list[float], n: int):
        super().__init__(accuracies, n)
        self.w_at_evaluation: list[float] = []

    def logits_and_attention(self, X, mask):
        if not torch.is_grad_enabled():
            self.w_at_evaluation.append(float(self.w.detach()))
        return super().logits_and_attention(X, mask)


def test_a_run_no_epoch_improves_on_ends_with_the_initial_parameters():
    model = _Recording([0.5, 0.5, 0.5], 10)
    history = train_model(model, _split(10), _split(10), epochs=2, batch_size=5, lr=0.1, device="cpu", progress=False)
    assert history.best_epoch == 0 and model.w_at_evaluation[0] == 0.0
    assert all(w > 0.05 for w in model.w_at_evaluation[1:])  # the weight moved while training
    assert float(model.w.detach()) == 0.0  # and is back at its initial value
