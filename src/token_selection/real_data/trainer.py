"""Training ``E``, ``p`` and ``v`` jointly on real reviews, as in the paper's Figures 1 and 3.

Minibatch Adam on the logistic loss, in float32, with early stopping on the
validation accuracy (the optimiser, batch size, learning rate and stopping rule
are the course's choices; the paper's are not public). The one-layer model goes
through the fast exact form, so a step costs O(V d + B T): the scalars
``(E p)[X]`` and ``(E v)[X]`` are gathered, never the embeddings. The model is
moved to ``device`` (default: CUDA when available).

``one_step_then_freeze`` is the comparison of the paper's rebuttal: one large
full-batch GD step on ``E`` from initialisation (Lemma 4.1), then ``E`` frozen while
``p`` and ``v`` train.
"""

from __future__ import annotations

import copy
import platform
import time
from dataclasses import asdict, dataclass, field

import torch
from torch import nn
from tqdm.auto import tqdm

from ..theory.model import CLSAttention, gathered_logits, logistic_loss, token_table
from ..theory.one_step import one_step_embeddings
from ..validation import check_positive_int
from .encoding import EncodedSplit
from .two_layer_model import TwoLayerCLSAttention

Model = CLSAttention | TwoLayerCLSAttention


def default_device() -> torch.device:
    """CUDA when available, else the CPU."""
    return torch.device("cuda" if torch.cuda.is_available() else "cpu")


def hardware_name(device: torch.device | str) -> str:
    """A short description of ``device``: the GPU's name, or the CPU with its thread count."""
    device = torch.device(device)
    if device.type == "cuda":
        return f"{torch.cuda.get_device_name(device)} (CUDA)"
    threads = torch.get_num_threads()
    return f"CPU {cpu_model()}, {threads} thread{'s' if threads > 1 else ''}"


def cpu_model() -> str:
    """The processor's model name (from /proc/cpuinfo on Linux), else the machine type."""
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


@dataclass
class JointTrainingHistory:
    """What ``train_jointly`` did, per epoch (lists of equal length) and overall.

    train_loss: mean minibatch loss of the epoch; validation_loss / validation_accuracy:
    after the epoch; best_epoch: the epoch whose parameters were kept (1-based, 0 =
    initialisation); seconds: training time (validation included); hardware: where it ran.
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

    def as_dict(self) -> dict:
        """Plain lists, numbers and strings (what a checkpoint stores)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict) -> JointTrainingHistory:
        return cls(**values)

    @property
    def best_validation_accuracy(self) -> float:
        return self.validation_accuracy[self.best_epoch - 1] if self.best_epoch else float("nan")


def batch_logits(model: Model, X: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits (B,) of already checked X, mask: (B, T) on the model's device (no input checks: the hot loop)."""
    if isinstance(model, CLSAttention):
        return gathered_logits(*token_table(model.E, model.p, model.v), X, mask)[0]
    return model.logits_and_attention(X, mask)[0]


_GATHER_BUDGET = 2**26
"""Largest B * T * d gathered at once by the two-layer model in evaluation (256 MiB of float32)."""


@torch.no_grad()
def predict_logits(model: Model, split: EncodedSplit, *, batch_size: int = 2048) -> torch.Tensor:
    """Logits of every review of ``split``: (n,) float32 on the CPU.

    The two-layer model gathers a (B, T, d) tensor, so its batches are cut to keep it below 256 MiB.
    """
    device = model.E.device
    if isinstance(model, TwoLayerCLSAttention):
        batch_size = max(1, min(batch_size, _GATHER_BUDGET // (split.X.shape[1] * model.d)))
    parts = []
    for first in range(0, len(split), batch_size):
        rows = slice(first, first + batch_size)
        parts.append(batch_logits(model, split.X[rows].to(device), split.mask[rows].to(device)).float().cpu())
    return torch.cat(parts)


def accuracy(model: Model, split: EncodedSplit, *, batch_size: int = 2048) -> float:
    """Share of reviews whose logit has the sign of the label (logit 0 counts as positive)."""
    predicted = predict_logits(model, split, batch_size=batch_size) >= 0
    return float((predicted == (split.y > 0)).float().mean())


def _validation_metrics(model: Model, split: EncodedSplit, batch_size: int) -> tuple[float, float]:
    logits = predict_logits(model, split, batch_size=batch_size)
    loss = float(logistic_loss(logits, split.y_signed))
    return loss, float(((logits >= 0) == (split.y > 0)).float().mean())


def adam(parameters: list[nn.Parameter], lr: float) -> torch.optim.Adam:
    """Adam, fused into one kernel where torch supports it (several times faster for a large ``E`` on the CPU)."""
    try:
        return torch.optim.Adam(parameters, lr=lr, fused=True)
    except (RuntimeError, ValueError):  # older torch, or a device without the fused kernel
        return torch.optim.Adam(parameters, lr=lr)


def train_jointly(
    model: Model,
    train: EncodedSplit,
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
) -> JointTrainingHistory:
    """Train ``model`` (all of its parameters; ``E`` only if ``train_embeddings``) with Adam.

    Shuffles ``train`` with ``seed`` every epoch, evaluates ``validation`` after each
    epoch, stops after ``patience`` epochs without a better validation accuracy, and
    leaves the model holding the best parameters seen (moved to ``device``).
    """
    epochs = check_positive_int(epochs, "epochs")
    batch_size = check_positive_int(batch_size, "batch_size")
    patience = check_positive_int(patience, "patience")
    if not lr > 0:
        raise ValueError(f"lr must be > 0, got {lr}")
    device = torch.device(device) if device is not None else default_device()
    model.to(device)
    model.E.requires_grad_(train_embeddings)
    parameters = [p for p in model.parameters() if p.requires_grad]
    optimiser = adam(parameters, lr)
    X, mask, y = train.X.to(device), train.mask.to(device), train.y_signed.to(device)
    generator = torch.Generator().manual_seed(int(seed))
    history = JointTrainingHistory(hardware=hardware_name(device))
    best_state, waited = copy.deepcopy(model.state_dict()), 0
    _, best_accuracy = _validation_metrics(model, validation, 4 * batch_size)
    start = time.perf_counter()
    bar = tqdm(total=epochs * ((len(train) + batch_size - 1) // batch_size), desc=desc, disable=not progress, leave=False)
    for epoch in range(1, epochs + 1):
        epoch_start = time.perf_counter()
        order = torch.randperm(len(train), generator=generator).to(device)
        total = torch.zeros((), device=device)
        for first in range(0, len(train), batch_size):
            rows = order[first : first + batch_size]
            loss = logistic_loss(batch_logits(model, X[rows], mask[rows]), y[rows])
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
            total += loss.detach() * len(rows)
            bar.update()
        validation_loss, validation_accuracy = _validation_metrics(model, validation, 4 * batch_size)
        history.epoch.append(epoch)
        history.train_loss.append(float(total) / len(train))
        history.validation_loss.append(validation_loss)
        history.validation_accuracy.append(validation_accuracy)
        history.epoch_seconds.append(time.perf_counter() - epoch_start)
        bar.set_postfix(val_acc=f"{validation_accuracy:.3f}")
        if validation_accuracy > best_accuracy:
            best_state, best_accuracy, waited = copy.deepcopy(model.state_dict()), validation_accuracy, 0
            history.best_epoch = epoch
        else:
            waited += 1
            if waited >= patience:
                history.stop_reason = f"early stop: no better validation accuracy for {patience} epochs"
                break
    bar.close()
    history.stop_reason = history.stop_reason or f"ran all {epochs} epochs"
    history.seconds = time.perf_counter() - start
    model.load_state_dict(best_state)
    model.E.requires_grad_(True)
    return history


def one_step_lr(train: EncodedSplit, d: int, factor: float = 1.0) -> float:
    """A step size for the single step on ``E``: ``factor * mean review length * sqrt(d)``."""
    return float(factor * train.mask.sum(1).double().mean() * d**0.5)


def one_step_threshold(train: EncodedSplit, vocab_size: int, d: int) -> float:
    """``eta* = 2 / (sqrt(d) std(alpha))``: the step above which the one-step signal beats the noise.

    After one step ``E_s . v = E_s(0) . v + (eta/2) alpha_s |v|^2``; the first term is noise of
    size 1/sqrt(d) and ``|v|^2`` is about 1, so the signal's spread ``(eta/2) std(alpha)`` exceeds
    the noise once ``eta > eta*`` (the one-step chapter). ``alpha``: signed frequencies of the
    ``vocab_size`` tokens on ``train``.
    """
    from ..theory.importance import signed_frequency

    alpha = signed_frequency(train.X, train.y, vocab_size, train.mask)
    return float(2.0 / (d**0.5 * alpha.std()))


def one_step_then_freeze(
    model: CLSAttention,
    train: EncodedSplit,
    validation: EncodedSplit,
    *,
    step_lr: float,
    device: torch.device | str | None = None,
    **training,
) -> JointTrainingHistory:
    """One full-batch GD step of size ``step_lr`` on ``E`` (p, v at their initial values), then train ``p``, ``v`` only.

    ``training``: keyword arguments of ``train_jointly`` (epochs, batch_size, lr, ...).
    """
    if not isinstance(model, CLSAttention):
        raise ValueError(f"model must be a CLSAttention (the one-layer model), got {type(model).__name__}")
    device = torch.device(device) if device is not None else default_device()
    model.to(device)
    stepped = one_step_embeddings(model, train.X.to(device), train.y.to(device), step_lr, train.mask.to(device))
    with torch.no_grad():
        model.E.copy_(stepped)
    return train_jointly(model, train, validation, train_embeddings=False, device=device, **training)
