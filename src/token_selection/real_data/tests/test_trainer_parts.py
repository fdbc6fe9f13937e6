"""The trainer's parts on tiny hand-made models and splits: the loss and the count of right answers worked out by
hand, evaluation in batches that fit the budget, what a training history records, the best parameters kept, the
shuffling seed, frozen embeddings, and the one step. Every test runs in milliseconds."""

from __future__ import annotations

import math
import re

import pytest
import torch
from torch import nn

from token_selection import machine
from token_selection.machine import machine_description
from token_selection.real_data import trainer
from token_selection.real_data.encoding import EncodedSplit
from token_selection.real_data.registry import OneLayerAttention
from token_selection.real_data.trainer import (
    TrainingHistory,
    accuracy,
    adam,
    evaluate,
    loss_and_correct,
    one_step_size,
    one_step_then_freeze,
    predict_logits,
    train_model,
)
from token_selection.real_data.two_layer_model import TwoLayerCLSAttention
from token_selection.theory.one_step import one_step_embeddings, step_size_threshold


def softplus(z: float) -> float:
    return math.log1p(math.exp(z))


def test_the_binary_loss_is_the_mean_logistic_loss_and_a_zero_logit_predicts_positive():
    logits = torch.tensor([2.0, -1.0, 0.0, 0.0, -3.0])
    y = torch.tensor([1, 1, 0, 1, 0])
    loss, correct = loss_and_correct(logits, y)
    # signed labels +1, +1, -1, +1, -1: loss log(1 + exp(-y f)) per review
    by_hand = (softplus(-2.0) + softplus(1.0) + softplus(0.0) + softplus(0.0) + softplus(-3.0)) / 5
    assert float(loss) == pytest.approx(by_hand, rel=1e-6)
    assert int(correct) == 3  # right: 2 > 0 with y 1, 0 >= 0 with y 1, -3 < 0 with y 0


def test_the_k_class_loss_is_the_cross_entropy_and_the_largest_logit_predicts():
    logits = torch.tensor([[2.0, 0.0, 0.0], [0.0, 1.0, 3.0], [1.0, 1.0, -1.0]])
    y = torch.tensor([0, 1, 1])

    def nll(row, k):
        return -math.log(math.exp(row[k]) / sum(math.exp(v) for v in row))

    loss, correct = loss_and_correct(logits, y)
    by_hand = (nll([2.0, 0.0, 0.0], 0) + nll([0.0, 1.0, 3.0], 1) + nll([1.0, 1.0, -1.0], 1)) / 3
    assert float(loss) == pytest.approx(by_hand, rel=1e-6)
    assert int(correct) == 1  # row 0 right; row 1 picks class 2; row 2 ties between 0 and 1, argmax takes 0


def test_a_history_goes_to_plain_values_and_back_and_reads_its_best_epoch():
    history = TrainingHistory([1, 2, 3], [0.6, 0.5, 0.4], [0.7, 0.6, 0.65], [0.55, 0.8, 0.7], [1.0, 1.1, 0.9], 2, 3.0, "cpu", "x")
    plain = history.as_dict()
    assert plain["validation_accuracy"] == [0.55, 0.8, 0.7] and plain["best_epoch"] == 2 and plain["hardware"] == "cpu"
    assert TrainingHistory.from_dict(plain) == history
    assert history.best_validation_accuracy == 0.8  # epoch 2 is the second entry
    assert TrainingHistory(validation_accuracy=[0.5, 0.9], best_epoch=1).best_validation_accuracy == 0.5
    assert math.isnan(TrainingHistory(validation_accuracy=[0.5]).best_validation_accuracy)  # 0: the initialisation


class _Recorder(nn.Module):
    """Logit = the first token's id minus 3.5 (so ids 4 and up predict positive); records each call's batch."""

    def __init__(self, vocab_size: int = 9, d: int = 4):
        super().__init__()
        self.E = nn.Parameter(torch.zeros(vocab_size, d))
        self.batches: list[list[int]] = []

    def logits_and_attention(self, X, mask):
        self.batches.append(X[:, 0].tolist())
        return (X[:, 0].double() - 3.5 + 0 * self.E.sum()), None


def _split(first_tokens: list[int], labels: list[int], T: int = 3) -> EncodedSplit:
    X = torch.tensor(first_tokens)[:, None].repeat(1, T)
    return EncodedSplit(X, torch.ones(len(first_tokens), T, dtype=torch.bool), torch.tensor(labels), "hand-made")


def test_predictions_come_in_batches_that_fit_the_evaluation_budget(monkeypatch):
    split = _split(list(range(12)), [0] * 12)  # T = 3
    monkeypatch.setattr(trainer, "_EVAL_BUDGET", 60)
    model = _Recorder(vocab_size=9, d=4)  # T d = 12 > V = 9: 60 // 12 = 5 reviews a batch
    logits = predict_logits(model, split)
    assert [len(b) for b in model.batches] == [5, 5, 2]
    assert logits.dtype == torch.float32 and logits.tolist() == [i - 3.5 for i in range(12)]  # in order
    wide = _Recorder(vocab_size=20, d=4)  # V = 20 > T d = 12: 60 // 20 = 3
    predict_logits(wide, split)
    assert [len(b) for b in wide.batches] == [3, 3, 3, 3]
    asked = _Recorder(vocab_size=9, d=4)  # a smaller batch size asked for wins
    predict_logits(asked, split, batch_size=4)
    assert [len(b) for b in asked.batches] == [4, 4, 4]
    monkeypatch.setattr(trainer, "_EVAL_BUDGET", 60)
    on_budget = _Recorder(vocab_size=9, d=5)  # T d = 15: exactly 4 a batch
    predict_logits(on_budget, split)
    assert [len(b) for b in on_budget.batches] == [4, 4, 4]
    monkeypatch.setattr(trainer, "_EVAL_BUDGET", 7)
    tiny = _Recorder(vocab_size=9, d=4)  # 7 // 12 = 0: still one review a batch
    assert predict_logits(tiny, split).tolist() == logits.tolist() and len(tiny.batches) == 12


def test_evaluate_and_accuracy_read_the_logits_of_every_review():
    split = _split([5, 1, 7, 2, 4, 0, 8], [1, 1, 1, 0, 0, 0, 1])  # logits > 0 for ids 4 and up
    loss, share = evaluate(_Recorder(), split, batch_size=3)
    # right: 5 (y 1), 7 (y 1), 2 (y 0), 0 (y 0), 8 (y 1); wrong: 1 (y 1), 4 (y 0): 5 of 7
    assert share == pytest.approx(5 / 7)
    signed = [1, 1, 1, -1, -1, -1, 1]
    by_hand = sum(softplus(-s * (t - 3.5)) for s, t in zip(signed, [5, 1, 7, 2, 4, 0, 8], strict=True)) / 7
    assert loss == pytest.approx(by_hand, rel=1e-6) and isinstance(loss, float)
    model = _Recorder()
    assert accuracy(model, split, batch_size=2) == pytest.approx(5 / 7)
    assert [len(b) for b in model.batches] == [2, 2, 2, 1]


def test_adam_is_fused_where_torch_can_and_falls_back_where_it_cannot(monkeypatch):
    weight = nn.Parameter(torch.zeros(3))
    fused = adam([weight], 0.25)
    assert fused.defaults["lr"] == 0.25 and fused.defaults["fused"] is True
    original = torch.optim.Adam

    def no_fused_kernel(parameters, lr, **kwargs):
        if kwargs.get("fused"):
            raise RuntimeError("fused Adam is not supported here")
        return original(parameters, lr=lr, **kwargs)

    monkeypatch.setattr(torch.optim, "Adam", no_fused_kernel)
    plain = adam([weight], 0.125)
    assert plain.defaults["lr"] == 0.125 and not plain.defaults["fused"]


class _Linear(nn.Module):
    """logit = w_{x_1} + b, one weight per first token: every review has its own loss; ``E`` is a spare parameter."""

    def __init__(self, vocab_size: int = 9):
        super().__init__()
        self.E = nn.Parameter(torch.linspace(-1.0, 1.0, vocab_size)[:, None].repeat(1, 2))
        self.b = nn.Parameter(torch.tensor(0.25))
        self.training_batches: list[list[int]] = []
        self.seen_at_evaluation: list[torch.Tensor] = []
        self.e_trains: list[bool] = []

    def logits_and_attention(self, X, mask):
        if torch.is_grad_enabled():
            self.training_batches.append(X[:, 0].tolist())
            self.e_trains.append(self.E.requires_grad)
        else:
            self.seen_at_evaluation.append(self.b.detach().clone())
        return self.E[X[:, 0], 0] + self.b, None


def test_the_train_loss_averages_over_reviews_not_over_batches():
    train = _split([0, 1, 2, 3, 4, 5, 6, 7, 8, 1], [0, 1, 0, 1, 1, 0, 1, 0, 1, 1])
    model = _Linear()
    w = model.E[:, 0].tolist()
    history = train_model(model, train, train, epochs=1, batch_size=4, lr=1e-12, device="cpu", progress=False)
    assert sorted(len(b) for b in model.training_batches) == [2, 4, 4]  # uneven batches
    signed = [2 * y - 1 for y in train.y.tolist()]
    by_hand = sum(softplus(-s * (w[t] + 0.25)) for s, t in zip(signed, train.X[:, 0].tolist(), strict=True)) / 10
    assert history.train_loss == [pytest.approx(by_hand, rel=1e-5)]  # lr 1e-12: the weights stay put
    loss, share = evaluate(model, train)
    assert history.validation_loss == [pytest.approx(loss, rel=1e-5)] and history.validation_accuracy == [share]


def test_training_shuffles_with_its_seed_and_visits_every_review_once_an_epoch():
    train = _split(list(range(9)), [0, 1] * 4 + [1])
    orders = {}
    for seed in (None, 0, 0, 5):
        model = _Linear()
        kwargs = {} if seed is None else {"seed": seed}
        train_model(model, train, train, epochs=2, batch_size=3, lr=1e-12, patience=5, device="cpu", progress=False, **kwargs)
        epochs = [sum(model.training_batches[i : i + 3], []) for i in (0, 3)]
        assert all(sorted(order) == list(range(9)) for order in epochs)
        assert epochs[0] != epochs[1]  # a new order every epoch
        orders.setdefault(seed, []).append(epochs)
    assert orders[None][0] == orders[0][0] == orders[0][1]  # seed 0 by default, and reproducible
    assert orders[5][0] != orders[0][0]


class _Improving(_Linear):
    """Validation accuracy follows a script (the first entry: before training); the bias moves with training."""

    def __init__(self, script: list[float]):
        super().__init__()
        self.script = script

    def logits_and_attention(self, X, mask):
        logits, _ = super().logits_and_attention(X, mask)
        if torch.is_grad_enabled():
            return logits, None
        n_right = round(self.script[len(self.seen_at_evaluation) - 1] * X.shape[0])
        return torch.tensor([1.0] * n_right + [-1.0] * (X.shape[0] - n_right)) + 0 * logits, None


def test_the_model_keeps_the_parameters_of_its_best_epoch_and_e_trains_again_afterwards():
    split = _split([1] * 10, [1] * 10)  # every review labelled 1
    model = _Improving([0.3, 0.5, 0.8, 0.6, 0.7])  # best after epoch 2
    history = train_model(model, split, split, epochs=4, batch_size=10, lr=0.5, patience=3, device="cpu", progress=False)
    assert history.validation_accuracy == [0.5, 0.8, 0.6, 0.7] and history.best_epoch == 2
    assert history.stop_reason == "ran all 4 epochs"
    assert len(history.epoch_seconds) == 4 and all(0 < s < 60 for s in history.epoch_seconds)
    assert 60 > history.seconds >= sum(history.epoch_seconds) > 0
    assert history.hardware == machine_description(torch.device("cpu"))
    assert torch.equal(model.b.detach(), model.seen_at_evaluation[2])  # the bias as it was after epoch 2
    assert not torch.equal(model.seen_at_evaluation[2], model.seen_at_evaluation[4])
    assert model.E.requires_grad


def test_frozen_embeddings_stay_put_while_the_rest_trains_and_are_trainable_afterwards():
    split = _split([1, 2, 5, 6, 7, 0], [0, 0, 1, 1, 1, 0])
    model = _Linear()
    E = model.E.detach().clone()
    train_model(model, split, split, epochs=2, batch_size=2, lr=0.1, train_embeddings=False, device="cpu", progress=False)
    assert torch.equal(model.E.detach(), E) and model.E.requires_grad
    assert model.e_trains == [False] * 6  # E never trainable during the epochs
    trained = _Linear()
    train_model(trained, split, split, epochs=2, batch_size=2, lr=0.1, device="cpu", progress=False)
    assert trained.e_trains == [True] * 6  # E trains by default


def test_progress_shows_a_bar_with_its_description_and_length_only_when_asked(capsys):
    split = _split([1, 2, 5, 6, 7], [0, 0, 1, 1, 1])
    train_model(_Linear(), split, split, epochs=2, batch_size=2, device="cpu", progress=False)
    assert capsys.readouterr().err == ""
    train_model(_Linear(), split, split, epochs=2, batch_size=2, device="cpu", desc="imdb run")
    shown = capsys.readouterr().err
    assert "imdb run" in shown and "/6" in shown  # 2 epochs of 3 batches (5 reviews, 2 a batch)
    assert re.search(r"\| 3/6 \[", shown) and re.search(r"\| 6/6 \[", shown)  # counted batch by batch, a whole total
    assert shown.endswith("\r") and not shown.rsplit("\r", 2)[-2].strip()  # the bar is cleared when training ends
    assert re.search(r"val_acc=[01]\.\d{3}\b", shown)  # the last validation accuracy, three decimals
    train_model(_Linear(), split, split, epochs=1, batch_size=5, device="cpu")
    assert re.search(r"(^|\r)training: ", capsys.readouterr().err)  # the default description


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"epochs": 0}, "epochs must be"),
        ({"batch_size": 0}, "batch_size must be"),
        ({"patience": 0}, "patience must be"),
        ({"lr": -0.5}, "lr must be > 0, got -0.5"),
    ],
)
def test_bad_training_arguments_are_refused_by_name(arguments, message):
    split = _split([1, 2], [0, 1])
    with pytest.raises(ValueError, match=re.escape(message)):
        train_model(_Linear(), split, split, device="cpu", progress=False, **arguments)


def test_the_default_device_is_used_without_one(monkeypatch):
    asked = []
    monkeypatch.setattr(trainer, "default_device", lambda: asked.append(1) or torch.device("cpu"))
    split = _split([1, 2], [0, 1])
    train_model(_Linear(), split, split, epochs=1, progress=False)
    assert asked == [1]


def test_a_device_given_is_used_and_recorded_whatever_the_machine_default(monkeypatch):
    asked = []
    monkeypatch.setattr(trainer, "default_device", lambda: asked.append(1) or torch.device("cpu"))
    monkeypatch.setattr(machine, "default_device", lambda: torch.device("cuda"))  # a machine whose default is a GPU
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda device=None: "Some GPU")
    split = _split([1, 2, 5], [0, 1, 1])
    history = train_model(_Linear(), split, split, epochs=1, device="cpu", progress=False)
    assert history.hardware.startswith("CPU ") and "Some GPU" not in history.hardware  # where it ran, not the default
    seen = {}
    monkeypatch.setattr(trainer, "train_model", lambda model, train, validation, **kwargs: seen.update(kwargs))
    one_step_then_freeze(OneLayerAttention(8, 4), _uneven_split(), split, step_lr=0.5, device="cpu")
    assert asked == [] and seen["device"] == torch.device("cpu")


class _RareBias(_Linear):
    """Adds the weight ``extra`` to the logits only in a batch that holds a review whose first token is 1."""

    def __init__(self):
        super().__init__()
        self.extra = nn.Parameter(torch.tensor(0.0))
        self.extra_at_evaluation: list[float] = []

    def logits_and_attention(self, X, mask):
        logits, _ = super().logits_and_attention(X, mask)
        if not torch.is_grad_enabled():
            self.extra_at_evaluation.append(float(self.extra.detach()))
        elif bool((X[:, 0] == 1).any()):
            logits = logits + self.extra
        return logits, None


def test_a_weight_a_batch_does_not_use_is_not_moved_by_that_batch():
    """Adam steps only the weights with a gradient: ``extra`` moves once, by lr (Adam's first step), in its one batch."""
    split = _split([1, 2, 3, 4, 5, 6], [1, 0, 1, 0, 1, 0])
    model = _RareBias()
    train_model(model, split, split, epochs=1, batch_size=1, lr=0.1, device="cpu", progress=False)
    order = [batch[0] for batch in model.training_batches]
    assert sorted(order) == [1, 2, 3, 4, 5, 6] and order.index(1) < 5  # batches without token 1 follow it
    assert model.extra_at_evaluation[0] == 0.0 and model.extra_at_evaluation[-1] == pytest.approx(0.1, abs=1e-6)


def _uneven_split() -> EncodedSplit:
    X = torch.tensor([[2, 3, 0, 0], [4, 2, 5, 0], [6, 6, 6, 7], [3, 0, 0, 0], [5, 7, 2, 0]])
    return EncodedSplit(X, X != 0, torch.tensor([1, 0, 1, 1, 0]), "uneven")


def test_the_one_step_size_is_the_threshold_times_the_factor():
    split = _uneven_split()
    eta_star, eta = one_step_size(split, 8, 4, 3.0)
    assert eta_star == step_size_threshold(split.X, split.y, 8, 4, split.mask)
    assert eta == pytest.approx(3.0 * eta_star, rel=1e-12)
    assert one_step_size(split, 8, 4, 1e-9)[1] == pytest.approx(1e-9 * eta_star)  # tiny but positive: accepted
    with pytest.raises(ValueError, match=re.escape("factor must be > 0 (the step as a multiple of eta*), got -1.0")):
        one_step_size(split, 8, 4, -1.0)


def test_one_step_then_freeze_takes_the_step_on_e_then_trains_the_rest(monkeypatch):
    split = _uneven_split()
    model = OneLayerAttention(8, 4, seed=2)
    expected = one_step_embeddings(OneLayerAttention(8, 4, seed=2), split.X, split.y, 0.75, split.mask)
    seen = {}

    def train_model(model, train, validation, **kwargs):
        seen.update(E=model.E.detach().clone(), train=train, validation=validation, kwargs=kwargs)
        return "HISTORY"

    monkeypatch.setattr(trainer, "train_model", train_model)
    other = _split([1, 2], [0, 1])
    assert one_step_then_freeze(model, split, other, step_lr=0.75, device="cpu", epochs=3, lr=0.5) == "HISTORY"
    assert torch.allclose(seen["E"], expected, atol=1e-6) and not torch.allclose(seen["E"], OneLayerAttention(8, 4, seed=2).E)
    assert seen["train"] is split and seen["validation"] is other
    assert seen["kwargs"] == {"train_embeddings": False, "device": torch.device("cpu"), "epochs": 3, "lr": 0.5}
    monkeypatch.setattr(trainer, "default_device", lambda: torch.device("cpu"))
    one_step_then_freeze(OneLayerAttention(8, 4), split, other, step_lr=0.75)
    assert seen["kwargs"]["device"] == torch.device("cpu")


def test_one_step_then_freeze_refuses_a_model_that_is_not_the_one_layer_one():
    split = _uneven_split()
    message = "model must be a CLSAttention (the one-layer model), got TwoLayerCLSAttention"
    with pytest.raises(ValueError, match=re.escape(message)):
        one_step_then_freeze(TwoLayerCLSAttention(8, 4), split, split, step_lr=1.0)


def test_the_default_budget_is_ten_epochs_with_a_patience_of_two():
    split = _split([1] * 20, [1] * 20)
    improving = _Improving([i / 20 for i in range(12)])  # better after every epoch
    history = train_model(improving, split, split, device="cpu", progress=False)
    assert history.epoch == list(range(1, 11)) and history.stop_reason == "ran all 10 epochs"
    stalling = _Improving([0.25, 0.5, 0.5, 0.5, 0.75, 1.0])  # no better after epoch 1
    assert train_model(stalling, split, split, device="cpu", progress=False).epoch == [1, 2, 3]


def test_the_default_batch_holds_512_reviews():
    model = _Linear()
    split = _split([i % 9 for i in range(513)], [i % 2 for i in range(513)])
    train_model(model, split, split, epochs=1, lr=1e-12, device="cpu", progress=False)
    assert sorted(len(b) for b in model.training_batches) == [1, 512]


def test_the_default_learning_rate_moves_each_weight_by_0_01_on_the_first_step():
    """Adam's first step moves every weight with a gradient by the learning rate (the gradient's sign times lr)."""
    split = _split([1, 1, 1], [1, 1, 1])  # every review labelled 1: the loss falls as the bias grows
    model = _Improving([0.0, 1.0])  # better after the epoch: its parameters are kept
    train_model(model, split, split, epochs=1, device="cpu", progress=False)
    assert float(model.b.detach()) == pytest.approx(0.25 + 0.01, abs=1e-7)


# Device placement, checked on the ``meta`` device (shapes without data, on every machine): a GPU run
# needs the model, the training tensors, the shuffled order and the running loss all on ``device``.


class _Placed(nn.Module):
    """Records where the model's E and each training batch sit; logits of zeros on the batch's device."""

    def __init__(self):
        super().__init__()
        self.E = nn.Parameter(torch.zeros(9, 2))
        self.seen: list[tuple] = []

    def logits_and_attention(self, X, mask):
        self.seen.append((self.E.device.type, X.device.type, mask.device.type))
        return self.E.sum() * 0 + torch.zeros(X.shape[0], device=X.device), None


class _Stop(Exception):
    pass


def test_training_places_the_model_and_every_training_tensor_on_the_device(monkeypatch):
    import sys

    placed: dict[str, str] = {}

    def evaluate(model, split, *, batch_size):  # evaluation moves its own batches (predict_logits); not tested here
        frame = sys._getframe(1)  # train_model's frame, after the first epoch
        if "total" not in frame.f_locals:
            return 0.0, 0.5
        for name in ("X", "mask", "y", "order", "total"):
            placed[name] = frame.f_locals[name].device.type
        raise _Stop

    monkeypatch.setattr(trainer, "evaluate", evaluate)
    monkeypatch.setattr(trainer, "adam", lambda parameters, lr: torch.optim.SGD(parameters, lr=lr))  # no fused kernel on meta
    model = _Placed()
    split = _split([1, 2, 5, 6], [0, 0, 1, 1])
    with pytest.raises(_Stop):
        train_model(model, split, split, epochs=1, batch_size=2, device="meta", progress=False)
    assert placed == dict.fromkeys(("X", "mask", "y", "order", "total"), "meta")
    assert model.seen == [("meta", "meta", "meta")] * 2


def test_the_one_step_sees_the_model_and_the_training_tensors_on_the_device(monkeypatch):
    placed = {}

    def one_step_embeddings(model, X, y, lr, mask):
        placed.update(E=model.E.device.type, X=X.device.type, y=y.device.type, mask=mask.device.type, lr=lr)
        raise _Stop

    monkeypatch.setattr(trainer, "one_step_embeddings", one_step_embeddings)
    split = _uneven_split()
    with pytest.raises(_Stop):
        one_step_then_freeze(OneLayerAttention(8, 4), split, split, step_lr=0.5, device="meta")
    assert placed == {"E": "meta", "X": "meta", "y": "meta", "mask": "meta", "lr": 0.5}
