"""The shared pipeline of the real-data chapters: settings per compute scale, and trained-or-loaded models.

Both chapters (IMDB and Yelp) call the same functions with another dataset name:

    settings = experiment_settings()                  # fast (CI) or full (paper scale)
    data = prepare_reviews(name, **settings.data_arguments())
    one_layer = trained_model("one_layer", data, settings)

Every trained model is checkpointed (``checkpoints.train_or_load``) under a key
holding the data's configuration and every training setting, so a second run of
a chapter loads instead of retraining.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch
from torch import nn

from ..scale import compute_scale
from ..theory.model import CLSAttention
from .checkpoints import train_or_load
from .encoding import EncodedReviews
from .trainer import (
    JointTrainingHistory,
    accuracy,
    default_device,
    one_step_then_freeze,
    one_step_threshold,
    train_jointly,
)
from .two_layer_model import TwoLayerCLSAttention

MODEL_KINDS = {
    "one_layer": "one-layer model, E, p, v trained jointly",
    "two_layer": "two-layer model (ours), E, p1, p2, v trained jointly",
    "one_step_frozen": "one-layer model, one GD step on E, then E frozen and p, v trained",
    "frozen_random": "one-layer model, E frozen at its random initialisation, p, v trained",
}


@dataclass(frozen=True)
class ExperimentSettings:
    """Every setting of the real-data chapters (all are the course's choices; the paper's are not public).

    Data: T tokens per review, vocabulary min_count, limit reviews per split, validation
    share. Models: dimension d. Joint training: Adam with lr, batch_size, at most epochs,
    early stopping after patience epochs. Frozen-embedding runs (p and v only, which converge
    more slowly): frozen_lr, frozen_epochs, frozen_patience. One step: lr = one_step_factor * eta*,
    with eta* = 2 / (sqrt(d) std(alpha)) the threshold above which its signal beats the noise.
    Figures: tokens seen at least importance_min_count times get a posterior gap.
    """

    scale: str
    T: int
    min_count: int
    limit: int | None
    d: int
    epochs: int
    batch_size: int
    lr: float
    patience: int
    frozen_lr: float
    frozen_epochs: int
    one_step_factor: float
    importance_min_count: int
    frozen_patience: int = 5
    validation_fraction: float = 0.1
    seed: int = 0

    def data_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``prepare_reviews``."""
        return {
            "T": self.T,
            "min_count": self.min_count,
            "limit": self.limit,
            "validation_fraction": self.validation_fraction,
            "seed": self.seed,
        }


_SETTINGS = {
    # Fast: all of the local training reviews, small d, a few epochs: ~1 s per epoch of the one-layer model on 2 cores.
    "fast": ExperimentSettings(
        scale="fast",
        T=256,
        min_count=10,
        limit=25_000,
        d=64,
        epochs=8,
        batch_size=512,
        lr=5e-3,
        patience=2,
        frozen_lr=0.1,
        frozen_epochs=20,
        one_step_factor=2.0,
        importance_min_count=20,
    ),
    # Full: the paper's d = 2048, longer reviews, every review; a GPU when there is one. Adam moves every
    # coordinate by about lr per step, and a dot product over 32 times more coordinates moves about sqrt(32)
    # times as far: hence the smaller learning rates.
    "full": ExperimentSettings(
        scale="full",
        T=512,
        min_count=10,
        limit=None,
        d=2048,
        epochs=10,
        batch_size=512,
        lr=5e-4,
        patience=2,
        frozen_lr=0.02,
        frozen_epochs=20,
        one_step_factor=2.0,
        importance_min_count=20,
    ),
}


def experiment_settings(scale: str | None = None, **overrides: Any) -> ExperimentSettings:
    """The settings of ``scale`` ("fast" or "full"; default ``compute_scale()``), with ``overrides`` applied."""
    scale = compute_scale() if scale is None else scale
    if scale not in _SETTINGS:
        raise ValueError(f"scale must be one of {sorted(_SETTINGS)}, got {scale!r}")
    try:
        return replace(_SETTINGS[scale], **overrides)
    except TypeError as error:
        raise ValueError(f"unknown setting in {sorted(overrides)}: {error}") from None


@dataclass
class TrainedModel:
    """A trained model with its history, test accuracy and checkpoint.

    model: on ``default_device()``; history: per-epoch validation and timing;
    test_accuracy: on the test split of the data it was trained on; loaded: True
    when it came from the checkpoint at ``path`` rather than from training now.
    """

    kind: str
    model: nn.Module
    history: JointTrainingHistory
    test_accuracy: float
    loaded: bool
    path: Path

    def summary(self, source: str = "") -> str:
        """One line: what it is, test accuracy, epochs, training time and hardware, and whether it was loaded."""
        h = self.history
        how = "loaded from its checkpoint" if self.loaded else "trained now"
        where = f" [{source}]" if source else ""
        return (
            f"{MODEL_KINDS[self.kind]}: test accuracy {self.test_accuracy:.1%}{where}; best epoch {h.best_epoch} "
            f"of {len(h.epoch)} ({h.stop_reason}); training took {h.seconds:.1f} s on {h.hardware}; {how}"
        )


def training_settings(kind: str, settings: ExperimentSettings) -> dict[str, Any]:
    """The settings a model of ``kind`` depends on (beyond its data): what its checkpoint key holds."""
    common = {"d": settings.d, "batch_size": settings.batch_size, "patience": settings.patience, "seed": settings.seed}
    if kind in ("one_layer", "two_layer"):
        return {**common, "epochs": settings.epochs, "lr": settings.lr}
    frozen = {**common, "epochs": settings.frozen_epochs, "lr": settings.frozen_lr, "patience": settings.frozen_patience}
    return {**frozen, "one_step_factor": settings.one_step_factor} if kind == "one_step_frozen" else frozen


def build_model(kind: str, vocab_size: int, d: int, *, seed: int = 0) -> nn.Module:
    """An untrained model of ``kind`` (see ``MODEL_KINDS``)."""
    if kind not in MODEL_KINDS:
        raise ValueError(f"kind must be one of {sorted(MODEL_KINDS)}, got {kind!r}")
    if kind == "two_layer":
        return TwoLayerCLSAttention(vocab_size, d, seed=seed)
    return CLSAttention(vocab_size, d, seed=seed)


def trained_model(
    kind: str,
    data: EncodedReviews,
    settings: ExperimentSettings,
    *,
    device: torch.device | str | None = None,
    cache_dir: str | None = None,
    progress: bool = True,
) -> TrainedModel:
    """Train a model of ``kind`` on ``data`` with ``settings``, or load it from its checkpoint."""
    device = torch.device(device) if device is not None else default_device()
    model = build_model(kind, data.vocab_size, settings.d, seed=settings.seed).to(device)
    training = {"batch_size": settings.batch_size, "patience": settings.patience, "seed": settings.seed, "device": device}
    training["progress"] = progress
    training["desc"] = f"{data.name}: {kind}"
    frozen_training = {"epochs": settings.frozen_epochs, "lr": settings.frozen_lr, "patience": settings.frozen_patience}

    def train(model: nn.Module) -> dict[str, Any]:
        if kind in ("one_layer", "two_layer"):
            history = train_jointly(model, data.train, data.validation, epochs=settings.epochs, lr=settings.lr, **training)
        elif kind == "frozen_random":
            history = train_jointly(model, data.train, data.validation, train_embeddings=False, **{**training, **frozen_training})
        else:
            start = time.perf_counter()
            step_lr = settings.one_step_factor * one_step_threshold(data.train, data.vocab_size, settings.d)
            history = one_step_then_freeze(model, data.train, data.validation, step_lr=step_lr, **{**training, **frozen_training})
            history.seconds = time.perf_counter() - start
        return {**history.as_dict(), "test_accuracy": accuracy(model, data.test)}

    config = {"kind": kind, "data": data.config, "settings": training_settings(kind, settings)}
    result = train_or_load(model, f"{data.name}-{kind}", config, train, cache_dir=cache_dir)
    model.to(device)
    saved = dict(result.history)
    test_accuracy = float(saved.pop("test_accuracy"))
    return TrainedModel(kind, model, JointTrainingHistory.from_dict(saved), test_accuracy, result.loaded, result.path)
