"""The one trainer of the real-data models: minibatch Adam through each model's ``logits_and_attention``.

Binary models (logits (B,)) get the logistic loss, K-class models (logits (B, K)) the
cross-entropy; both in float32, with early stopping on the
validation accuracy (the optimiser, batch size, learning rate and stopping rule
are the course's choices; the paper's are not public). The one-layer model's
``logits_and_attention`` is the fast exact form, so a step costs O(V d + B T): the scalars
``(E p)[X]`` and ``(E v)[X]`` are gathered, never the embeddings. The model is
moved to ``device`` (default: CUDA when available).

``one_step_then_freeze`` is the comparison of the authors' rebuttal: one large
full-batch GD step on ``E`` from initialisation, of size ``factor * eta*`` (``one_step_size``),
then ``E`` frozen while ``p`` and ``v`` train.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field

import torch
from torch import nn
from tqdm.auto import tqdm

from ..machine import default_device, machine_description
from ..theory.model import CLSAttention, logistic_loss
from ..theory.one_step import one_step_embeddings, step_size_threshold
from ..validation import check_positive_int
from .encoding import EncodedSplit

# The names chapter 6 and the scripts import from here; one description of where code runs.
hardware_name = machine_description


@dataclass
class TrainingHistory:
    """What ``train_model`` did, per epoch (lists of equal length) and overall.

    train_loss: mean minibatch loss of the epoch; validation_loss / validation_accuracy:
    after the epoch; best_epoch: the epoch with the best validation accuracy (1-based, 0 =
    initialisation); seconds: training time (validation included); hardware: where it ran;
    kept_last: whether the model kept its last epoch's parameters (``keep="last"``) instead of
    the best epoch's (``kept_epoch`` says which).
    """

    epoch: list[int] = field(default_factory=list)
    train_loss: list[float] = field(default_factory=list)
    validation_loss: list[float] = field(default_factory=list)
    validation_accuracy: list[float] = field(default_factory=list)
    epoch_seconds: list[float] = field(default_factory=list)
    best_epoch: int = 0
    seconds: float = 0.0
    hardware: str = ""
    stop_reason: str = ""
    kept_last: bool = False

    @property
    def kept_epoch(self) -> int:
        """The epoch whose parameters the model holds after training (0 = its initialisation)."""
        return len(self.epoch) if self.kept_last else self.best_epoch

    def as_dict(self) -> dict:
        """Plain lists, numbers and strings (what a checkpoint stores)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> TrainingHistory:
        return cls(**values)

    @property
    def best_validation_accuracy(self) -> float:
        return self.validation_accuracy[self.best_epoch - 1] if self.best_epoch else float("nan")


def loss_and_correct(logits: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean loss and number of correct predictions for logits (B,) (binary, y in {0, 1}) or (B, K) (y in [0, K)).

    Binary: the logistic loss on the signed labels, a logit >= 0 predicts class 1. K classes:
    softmax cross-entropy, the largest logit predicts.
    """
    if logits.ndim == 1:
        loss = logistic_loss(logits, y.to(logits.dtype) * 2 - 1)
        return loss, ((logits >= 0) == (y > 0)).sum()
    return nn.functional.cross_entropy(logits, y), (logits.argmax(1) == y).sum()


_EVAL_BUDGET = 2**26
"""Largest B * max(T * d, V) held at once in evaluation (256 MiB of float32): two-layer models build (B, T, d) or (B, V)."""


@torch.no_grad()
def predict_logits(model: nn.Module, split: EncodedSplit, *, batch_size: int = 2048) -> torch.Tensor:
    """Logits of every review of ``split``: (n,) or (n, K) float32 on the CPU, in batches that fit ``_EVAL_BUDGET``."""
    E = model.E
    batch_size = max(1, min(batch_size, _EVAL_BUDGET // max(split.X.shape[1] * E.shape[1], E.shape[0])))
    parts = []
    for first in range(0, len(split), batch_size):
        rows = slice(first, first + batch_size)
        X, mask = split.X[rows].to(E.device), split.mask[rows].to(E.device)
        parts.append(model.logits_and_attention(X, mask)[0].float().cpu())
    return torch.cat(parts)


def evaluate(model: nn.Module, split: EncodedSplit, *, batch_size: int = 2048) -> tuple[float, float]:
    """Mean loss and accuracy of ``model`` on ``split``."""
    logits = predict_logits(model, split, batch_size=batch_size)
    loss, correct = loss_and_correct(logits, split.y)
    return float(loss), float(correct) / len(split)


def accuracy(model: nn.Module, split: EncodedSplit, *, batch_size: int = 2048) -> float:
    """Share of reviews classified correctly (binary: logit 0 counts as positive)."""
    return evaluate(model, split, batch_size=batch_size)[1]


def adam(parameters: list[nn.Parameter], lr: float) -> torch.optim.Adam:
    """Adam, fused into one kernel where torch supports it (several times faster for a large ``E`` on the CPU)."""
    try:
        return torch.optim.Adam(parameters, lr=lr, fused=True)
    except (RuntimeError, ValueError):  # older torch, or a device without the fused kernel
        return torch.optim.Adam(parameters, lr=lr)


def train_model(
    model: nn.Module,
    train_split: EncodedSplit,
    validation: EncodedSplit,
    *,
    epochs: int = 10,
    batch_size: int = 512,
    lr: float = 1e-2,
    patience: int = 2,
    train_embeddings: bool = True,
    seed: int = 0,
    device: torch.device | str | None = None,
    progress: bool = True,
    desc: str = "training",
    keep: str = "best",
    on_epoch: Callable[[TrainingHistory], None] | None = None,
) -> TrainingHistory:
    """Train every parameter of ``model`` (``E`` only if ``train_embeddings``) with Adam, through its own
    ``logits_and_attention``.

    Shuffles ``train_split`` with ``seed`` every epoch, evaluates ``validation`` after each
    epoch. ``keep="best"``: stops after ``patience`` epochs without a better validation accuracy
    and leaves the model holding the best parameters seen (on ``device``). ``keep="last"``: runs
    every one of ``epochs`` epochs (``patience`` is not used) and leaves the model holding the
    last epoch's parameters: training to the end of the budget, not early stopping.
    ``on_epoch(history)``, when given, is called at the end of every epoch, while the model holds that epoch's
    parameters (``history`` holds every epoch so far; its ``seconds`` are the time since training began).
    """
    if keep not in ("best", "last"):
        raise ValueError(f"keep must be 'best' or 'last', got {keep!r}")
    epochs = check_positive_int(epochs, "epochs")
    batch_size = check_positive_int(batch_size, "batch_size")
    patience = check_positive_int(patience, "patience")
    if not lr > 0:
        raise ValueError(f"lr must be > 0, got {lr}")
    device = torch.device(device) if device is not None else default_device()
    model.to(device)
    model.E.requires_grad_(train_embeddings)
    optimiser = adam([p for p in model.parameters() if p.requires_grad], lr)
    X, mask, y = train_split.X.to(device), train_split.mask.to(device), train_split.y.to(device)
    generator = torch.Generator().manual_seed(int(seed))
    history = TrainingHistory(hardware=machine_description(device), kept_last=keep == "last")
    best_state, waited = copy.deepcopy(model.state_dict()), 0
    best_accuracy = evaluate(model, validation, batch_size=4 * batch_size)[1]
    start = time.perf_counter()
    bar = tqdm(total=epochs * ((len(train_split) + batch_size - 1) // batch_size), desc=desc, disable=not progress, leave=False)
    for epoch in range(1, epochs + 1):
        epoch_start = time.perf_counter()
        order = torch.randperm(len(train_split), generator=generator).to(device)
        total = torch.zeros((), device=device)
        for first in range(0, len(train_split), batch_size):
            rows = order[first : first + batch_size]
            loss = loss_and_correct(model.logits_and_attention(X[rows], mask[rows])[0], y[rows])[0]
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
            total += loss.detach() * len(rows)
            bar.update()
        validation_loss, validation_accuracy = evaluate(model, validation, batch_size=4 * batch_size)
        history.epoch.append(epoch)
        history.train_loss.append(float(total) / len(train_split))
        history.validation_loss.append(validation_loss)
        history.validation_accuracy.append(validation_accuracy)
        history.epoch_seconds.append(time.perf_counter() - epoch_start)
        bar.set_postfix(val_acc=f"{validation_accuracy:.3f}")
        better = validation_accuracy > best_accuracy
        if better:
            best_state, best_accuracy, waited = copy.deepcopy(model.state_dict()), validation_accuracy, 0
            history.best_epoch = epoch
        if on_epoch is not None:
            history.seconds = time.perf_counter() - start
            on_epoch(history)
        if not better:
            waited += 1
            if waited >= patience and keep == "best":
                history.stop_reason = f"early stop: no better validation accuracy for {patience} epochs"
                break
    bar.close()
    history.stop_reason = history.stop_reason or f"ran all {epochs} epochs"
    history.seconds = time.perf_counter() - start
    if keep == "best":
        model.load_state_dict(best_state)
    model.E.requires_grad_(True)
    return history


def one_step_size(split: EncodedSplit, vocab_size: int, d: int, factor: float) -> tuple[float, float]:
    """``(eta*, factor * eta*)`` on ``split``: the course's one step-size rule (``step_size_threshold``)."""
    if not factor > 0:
        raise ValueError(f"factor must be > 0 (the step as a multiple of eta*), got {factor}")
    eta_star = step_size_threshold(split.X, split.y, vocab_size, d, split.mask)
    return eta_star, factor * eta_star


def one_step_then_freeze(
    model: CLSAttention,
    train_split: EncodedSplit,
    validation: EncodedSplit,
    *,
    step_lr: float,
    device: torch.device | str | None = None,
    **training,
) -> TrainingHistory:
    """One full-batch GD step of size ``step_lr`` on ``E`` (p, v at their initial values), then ``train_model`` without ``E``.

    ``training``: keyword arguments of ``train_model`` (epochs, batch_size, lr, ...).
    """
    if not isinstance(model, CLSAttention):
        raise ValueError(f"model must be a CLSAttention (the one-layer model), got {type(model).__name__}")
    device = torch.device(device) if device is not None else default_device()
    model.to(device)
    stepped = one_step_embeddings(model, train_split.X.to(device), train_split.y.to(device), step_lr, train_split.mask.to(device))
    with torch.no_grad():
        model.E.copy_(stepped)
    return train_model(model, train_split, validation, train_embeddings=False, device=device, **training)
