"""The reviewers' experiments: runners with train-if-missing caching, and the small synthetic ones.

Real data (IMDB, Yelp polarity) go through the course pipeline
(``prepare_reviews`` -> a model -> ``train_jointly``). ``run_variant`` trains one of

- ``"trained"``: the one-layer model, ``E``, ``p``, ``v`` trained jointly;
- ``"frozen"``: the one-layer model with ``E`` frozen at its random draw (``p``, ``v`` trained);
- ``"one_step"``: one large GD step on ``E``, then ``E`` frozen and ``p``, ``v`` trained;
- ``"two_layer"``: the real-data chapters' ``TwoLayerCLSAttention`` (the paper's Figure 1 model, ours in detail);
- ``"key_query"``: ``KeyQueryTwoLayerAttention`` (key-query matrices in both layers);
- ``"mlp"``: ``AttentionMLP`` (a residual MLP after the attention);

Every variant is trained *to convergence on the training reviews*, as the paper trains
its models (our reading): Adam minibatches until the accuracy on a fixed random subset of
the training reviews (``MONITOR_SIZE`` of them) has not improved for ``patience`` epochs, or
``epochs`` epochs; the parameters of the best epoch are kept (``train_jointly``). The
validation split is not used: early stopping on it would stop before ``p`` has grown
and the scores have taken their shape. Each run caches the trained parameters, the
history and the test accuracy with a checksum
(``disk_cache``), so that a second run, or another chapter with the same settings,
loads them instead of training again. The cache key holds the data's configuration
and every training setting.

Synthetic helpers: a K-class generator, a full-batch trainer for any of the models,
the co-occurrence ("shielding") data on which one step and long training disagree,
and the hub loader for Yelp star ratings (multi-class; needs the Hugging Face hub).
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import torch
from torch import nn

from ..disk_cache import cache_key, load_checked, resolve_cache_dir, save_checked
from ..scale import by_scale
from ..theory.model import CLSAttention
from ..validation import check_positive_int
from .attention_variants import AttentionMLP, KeyQueryTwoLayerAttention
from .encoding import EncodedReviews, EncodedSplit, prepare_reviews
from .trainer import JointTrainingHistory, accuracy, default_device, one_step_lr, one_step_then_freeze, train_jointly
from .two_layer_model import TwoLayerCLSAttention

ABLATIONS_VERSION = 1
"""Bump when a runner changes what it trains: old cached runs are then ignored."""
VARIANTS = ("trained", "frozen", "one_step", "two_layer", "key_query", "mlp")
MONITOR_SIZE = 2000
"""Training reviews whose accuracy decides when training has converged."""


@dataclass(frozen=True)
class AblationSettings:
    """Model size and training settings of ``run_variant`` (the course's choices).

    d: embedding dimension; epochs, batch_size, lr, patience: of ``train_jointly`` (Adam,
    early stopping on validation accuracy); step_factor: the one step's size is
    ``step_factor * mean review length * sqrt(d)`` (``one_step_lr``); seed: initialisation
    and shuffling.
    """

    d: int = 64
    epochs: int = 8
    batch_size: int = 256
    lr: float = 1e-2
    patience: int = 2
    step_factor: float = 10.0
    seed: int = 0

    def as_dict(self) -> dict:
        return asdict(self)


def monitor_split(train: EncodedSplit, size: int = MONITOR_SIZE, *, seed: int = 0) -> EncodedSplit:
    """A fixed random subset of ``size`` training reviews (all if fewer), whose accuracy marks convergence."""
    size = check_positive_int(size, "size")
    rows = torch.from_numpy(np.sort(np.random.default_rng(seed).permutation(len(train))[:size]))
    return EncodedSplit(train.X[rows], train.mask[rows], train.y[rows], f"{train.source}; {len(rows)} of them monitored")


def default_settings() -> AblationSettings:
    """``AblationSettings`` of the current compute scale: fast (d = 64, few epochs) or full (d = 2048, the paper's d)."""
    return by_scale(
        fast=AblationSettings(d=64, epochs=8, batch_size=256, lr=1e-2, patience=2),
        full=AblationSettings(d=2048, epochs=20, batch_size=512, lr=1e-3, patience=2),
    )


FAST_RESTRICTION = {"n_train": 4500, "n_test": 5000, "T": 128}
"""At the fast scale the experiments use a random part of the real-data chapters' tokenised reviews (see ``restrict_reviews``)."""


def ablation_data(name: str, *, progress: bool = True) -> EncodedReviews:
    """The reviews of the experiments: the real-data chapters' tokenisation (``experiment_settings``, same cache),
    restricted to ``FAST_RESTRICTION`` at the fast scale and used whole at the full scale."""
    from .experiment import experiment_settings  # the real-data chapters' settings, shared on purpose

    full = prepare_reviews(name, **experiment_settings().data_arguments(), progress=progress)
    return restrict_reviews(full, **by_scale(fast=FAST_RESTRICTION, full={}))


def _rows(n_total: int, n_keep: int | None, seed: int) -> torch.Tensor:
    """Sorted random row indices: ``n_keep`` of ``n_total`` (all when None or larger)."""
    if n_keep is None or n_keep >= n_total:
        return torch.arange(n_total)
    return torch.from_numpy(np.sort(np.random.default_rng(seed).permutation(n_total)[: check_positive_int(n_keep, "n_keep")]))


def restrict_reviews(
    encoded: EncodedReviews,
    *,
    n_train: int | None = None,
    n_test: int | None = None,
    T: int | None = None,
    min_count: int = 10,
    seed: int = 0,
) -> EncodedReviews:
    """A smaller copy of a tokenised dataset, without tokenising again: fewer reviews, fewer tokens, smaller vocabulary.

    Keeps ``n_train`` random training reviews, ``n_test`` random test reviews (and as many
    validation reviews as test ones), the first ``T`` tokens of each, and only the words seen
    at least ``min_count`` times in the kept training reviews (all others become ``<unk>``).
    Ids are renumbered in the old order. With every argument None it returns ``encoded``.
    The result's ``config`` records the restriction, so cache keys differ from the full data's.
    """
    if n_train is None and n_test is None and T is None:
        return encoded
    T = encoded.T if T is None else min(check_positive_int(T, "T"), encoded.T)
    min_count = check_positive_int(min_count, "min_count")
    picks = {
        "train": _rows(len(encoded.train), n_train, seed),
        "validation": _rows(len(encoded.validation), n_test, seed),
        "test": _rows(len(encoded.test), n_test, seed),
    }

    def cut(split: EncodedSplit, rows: torch.Tensor) -> EncodedSplit:
        return EncodedSplit(
            split.X[rows, :T], split.mask[rows, :T], split.y[rows], f"{split.source}; {len(rows):,} kept, T = {T}"
        )

    parts = {name: cut(getattr(encoded, name), rows) for name, rows in picks.items()}
    counts = torch.bincount(parts["train"].X[parts["train"].mask], minlength=encoded.vocab_size)
    keep = counts >= min_count
    keep[:2] = True  # <pad> and <unk> keep their ids 0 and 1
    new_id = torch.full((encoded.vocab_size,), 1, dtype=torch.int64)  # dropped words become <unk>
    new_id[keep] = torch.arange(int(keep.sum()))
    for name, part in parts.items():
        parts[name] = EncodedSplit(new_id[part.X], part.mask, part.y, part.source)
    restriction = {"n_train": n_train, "n_test": n_test, "T": T, "min_count": min_count, "seed": seed}
    return replace(
        encoded,
        vocab=[word for word, kept in zip(encoded.vocab, keep.tolist(), strict=True) if kept],
        test_texts=[encoded.test_texts[i] for i in picks["test"].tolist()],
        config={**encoded.config, "restricted": restriction},
        **parts,
    )


def build_variant(kind: str, vocab_size: int, d: int, *, seed: int = 0) -> nn.Module:
    """A freshly initialised model for ``kind`` (one of ``VARIANTS``), float32."""
    if kind not in VARIANTS:
        raise ValueError(f"kind must be one of {VARIANTS}, got {kind!r}")
    if kind == "key_query":
        return KeyQueryTwoLayerAttention(vocab_size, d, seed=seed)
    if kind == "mlp":
        return AttentionMLP(vocab_size, d, seed=seed)
    if kind == "two_layer":
        return TwoLayerCLSAttention(vocab_size, d, seed=seed)
    return CLSAttention(vocab_size, d, seed=seed)


@dataclass
class VariantRun:
    """A trained (or loaded) model of one variant with its history, test accuracy and provenance."""

    kind: str
    model: nn.Module
    history: JointTrainingHistory
    test_accuracy: float
    from_cache: bool
    cache_path: Path
    seconds: float

    def token_scores(self) -> np.ndarray:
        """(V,) float64: ``E p`` (one layer, MLP), ``E p2`` (two-layer) or ``p . W2 E_s`` (key-query two-layer)."""
        with torch.no_grad():
            return self.model.token_scores().double().cpu().numpy()

    def token_values(self) -> np.ndarray:
        """(V,) float64: ``E v``."""
        with torch.no_grad():
            return self.model.token_values().double().cpu().numpy()

    def describe(self) -> str:
        origin = f"loaded from {self.cache_path.name}" if self.from_cache else f"trained and saved to {self.cache_path.name}"
        return (
            f"{self.kind}: test accuracy {self.test_accuracy:.3f}; best epoch {self.history.best_epoch} of "
            f"{len(self.history.epoch)} ({self.history.stop_reason}); {self.history.seconds:.1f} s on {self.history.hardware}; "
            f"{origin}"
        )


def variant_config(encoded: EncodedReviews, kind: str, settings: AblationSettings) -> dict:
    """Everything a cached run depends on (the data's configuration holds the data fingerprints)."""
    return {
        "kind": "ablation",
        "version": ABLATIONS_VERSION,
        "variant": kind,
        "data": encoded.config,
        "monitor": MONITOR_SIZE,
        **settings.as_dict(),
    }


def run_variant(
    encoded: EncodedReviews,
    kind: str,
    settings: AblationSettings | None = None,
    *,
    cache_dir: str | os.PathLike | None = None,
    device: torch.device | str | None = None,
    progress: bool = True,
) -> VariantRun:
    """Train ``kind`` on ``encoded`` (or load the cached run with the same configuration).

    The model is evaluated on ``encoded.test``; see the module docstring for the variants.
    """
    start = time.perf_counter()
    settings = default_settings() if settings is None else settings
    config = variant_config(encoded, kind, settings)
    path = resolve_cache_dir(cache_dir) / f"ablation-{encoded.name}-{kind}-{cache_key(config)}.pt"
    device = torch.device(device) if device is not None else default_device()
    model = build_variant(kind, encoded.vocab_size, settings.d, seed=settings.seed)
    cached = load_checked(path)
    if cached is not None and cached.get("config") == config:
        model.load_state_dict(cached["state"])
        model.to(device)
        return VariantRun(
            kind,
            model,
            JointTrainingHistory.from_dict(cached["history"]),
            float(cached["test_accuracy"]),
            True,
            path,
            time.perf_counter() - start,
        )
    training = {
        "epochs": settings.epochs,
        "batch_size": settings.batch_size,
        "lr": settings.lr,
        "patience": settings.patience,
        "seed": settings.seed,
        "device": device,
        "progress": progress,
        "desc": f"{encoded.name}: {kind}",
    }
    monitor = monitor_split(encoded.train, seed=settings.seed)
    if kind == "one_step":
        step = one_step_lr(encoded.train, settings.d, settings.step_factor)
        history = one_step_then_freeze(model, encoded.train, monitor, step_lr=step, **training)
    else:
        history = train_jointly(model, encoded.train, monitor, train_embeddings=kind != "frozen", **training)
    test_accuracy = accuracy(model, encoded.test)
    state = {k: t.detach().cpu() for k, t in model.state_dict().items()}
    save_checked({"config": config, "state": state, "history": history.as_dict(), "test_accuracy": test_accuracy}, path)
    return VariantRun(kind, model, history, test_accuracy, False, path, time.perf_counter() - start)
