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
from ..theory.model import CLSAttention, logistic_loss
from ..theory.multiclass import check_class_labels
from ..theory.synthetic import zipf_probabilities
from ..validation import ArrayLike, check_labels, check_mask, check_positive_int, check_tokens
from .attention_variants import AttentionMLP, KeyQueryTwoLayerAttention, MultiClassCLSAttention
from .encoding import EncodedReviews, EncodedSplit, build_tokenizer, encode_texts, prepare_reviews
from .trainer import JointTrainingHistory, accuracy, default_device, one_step_lr, one_step_then_freeze, train_jointly
from .two_layer_model import TwoLayerCLSAttention

ABLATIONS_VERSION = 1
"""Bump when a runner changes what it trains: old cached runs are then ignored."""
VARIANTS = ("trained", "frozen", "one_step", "two_layer", "key_query", "mlp")
MONITOR_SIZE = 2000
"""Training reviews whose accuracy decides when training has converged."""
YELP_STARS_HUB_ID = "Yelp/yelp_review_full"
YELP_STARS_CLASSES = (0, 1, 3, 4)
"""Star ratings kept for the 4-class experiment (labels 0..4 = 1..5 stars; 3 stars dropped): our choice."""


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


# ----------------------------------------------------------------------------------------- synthetic data


@dataclass(frozen=True)
class MultiClassData:
    """K-class synthetic data: X (n, T) int64; y (n,) int64 in [0, K); token_class (V,) int64, k for a
    token relevant to class k, -1 for an irrelevant one; relevant (n, T) bool."""

    X: torch.Tensor
    y: torch.Tensor
    token_class: torch.Tensor
    relevant: torch.Tensor


def make_multiclass_synthetic(
    n: int, T: int, vocab_size: int, num_classes: int, *, n_relevant: int = 5, zipf: float = 1.0, seed: int = 0
) -> MultiClassData:
    """K-class version of the course's generator (ours): one relevant token per sequence.

    Tokens ``k * n_relevant .. (k + 1) * n_relevant - 1`` are relevant to class k, the rest
    irrelevant; labels are uniform; each sequence holds ``T - 1`` irrelevant tokens and one
    relevant token of its class at a random position; Zipf law within each group.
    """
    n, T = check_positive_int(n, "n"), check_positive_int(T, "T")
    K = check_positive_int(num_classes, "num_classes", minimum=2)
    m = check_positive_int(n_relevant, "n_relevant")
    if K * m >= vocab_size:
        raise ValueError(f"num_classes * n_relevant = {K * m} leaves no irrelevant token in vocab_size = {vocab_size}")
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    irrelevant = K * m + rng.choice(vocab_size - K * m, size=(n, T), p=zipf_probabilities(vocab_size - K * m, zipf))
    position = rng.integers(0, T, n)
    X = irrelevant.copy()
    X[np.arange(n), position] = y * m + rng.choice(m, size=n, p=zipf_probabilities(m, zipf))
    relevant = np.zeros((n, T), dtype=bool)
    relevant[np.arange(n), position] = True
    token_class = np.full(vocab_size, -1, dtype=np.int64)
    token_class[: K * m] = np.repeat(np.arange(K), m)
    return MultiClassData(torch.from_numpy(X), torch.from_numpy(y), torch.from_numpy(token_class), torch.from_numpy(relevant))


def class_importance(
    X: ArrayLike, y: ArrayLike, num_classes: int, vocab_size: int, mask: ArrayLike | None = None
) -> torch.Tensor:
    """``P(k|s) - 1/K`` over the occurrences of each token: (V, K) float64; NaN for unseen tokens.

    The K-class analogue of the posterior gap (which for K = 2 is twice this for k = 1).
    """
    X = check_tokens(X, vocab_size)
    mask = check_mask(mask, X)
    y = check_class_labels(y, X.shape[0], num_classes).to(X.device)
    real = torch.ones_like(X, dtype=torch.bool) if mask is None else mask
    counts = torch.zeros(vocab_size, num_classes, dtype=torch.float64, device=X.device)
    counts.index_put_((X[real], y[:, None].expand_as(X)[real]), torch.ones(int(real.sum()), dtype=torch.float64), accumulate=True)
    total = counts.sum(1, keepdim=True)
    return torch.where(total > 0, counts / total.clamp(min=1) - 1.0 / num_classes, torch.full_like(counts, float("nan")))


def train_full_batch(
    model: nn.Module,
    X: ArrayLike,
    y: ArrayLike,
    *,
    steps: int,
    lr: float,
    parameters: tuple[str, ...] = ("E", "p", "v"),
    mask: ArrayLike | None = None,
) -> list[float]:
    """Full-batch Adam on the named parameters of ``model`` only; returns the loss before each step and at the end.

    Binary models (logits (n,)) use the logistic loss with y in {0, 1} or {-1, +1};
    ``MultiClassCLSAttention`` uses softmax cross-entropy with y in [0, K).
    Works for ``CLSAttention`` and the models of ``attention_variants``.
    """
    steps = check_positive_int(steps, "steps", minimum=0)
    if not np.isfinite(lr) or lr <= 0:
        raise ValueError(f"lr must be a finite number > 0, got {lr}")
    named = dict(model.named_parameters())
    unknown = [name for name in parameters if name not in named]
    if unknown or not parameters:
        raise ValueError(f"parameters must name some of {sorted(named)}, got {list(parameters)}")
    X = check_tokens(X, model.vocab_size).to(model.E.device)
    mask = check_mask(mask, X)
    multiclass = isinstance(model, MultiClassCLSAttention)
    if multiclass:
        target = check_class_labels(y, X.shape[0], model.num_classes).to(model.E.device)
    else:
        target = check_labels(y, X.shape[0]).to(device=model.E.device, dtype=model.E.dtype)
    chosen = [named[name] for name in parameters]
    optimiser = torch.optim.Adam(chosen, lr=lr)

    def loss_now() -> torch.Tensor:
        logits = model(X, mask) if isinstance(model, CLSAttention) else model.logits_and_attention(X, mask)[0]
        return nn.functional.cross_entropy(logits, target) if multiclass else logistic_loss(logits, target)

    losses = []
    for _ in range(steps):
        loss = loss_now()
        optimiser.zero_grad(set_to_none=True)
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    with torch.no_grad():
        losses.append(float(loss_now()))
    model.zero_grad(set_to_none=True)
    return losses


@dataclass(frozen=True)
class ShieldingData:
    """Synthetic data on which a token's role shows only through what it co-occurs with (ours).

    X (n, T) int64, y (n,) in {-1, +1}. Tokens: ``A`` (0) positive, alone; ``C`` (1) in positive
    sequences alone *and* in negative sequences next to ``N`` (2), a negative token; ``B`` (3)
    negative, alone; ids 4.. irrelevant. ``C`` occurs equally often in both classes, so its
    signed frequency and its posterior gap are 0, yet it is the only evidence in the positive
    sequences that hold it.
    """

    X: torch.Tensor
    y: torch.Tensor
    A: int = 0
    C: int = 1
    N: int = 2
    B: int = 3


def make_shielding_data(n: int = 400, T: int = 6, vocab_size: int = 40, *, seed: int = 0) -> ShieldingData:
    """``n`` sequences (a multiple of 4) of length ``T`` >= 3: four equal groups (A | C) positive, (B | C + N) negative."""
    n = check_positive_int(n, "n")
    if n % 4:
        raise ValueError(f"n must be a multiple of 4 (four equal groups), got {n}")
    if check_positive_int(T, "T") < 3:
        raise ValueError(f"T must be at least 3 (two marked tokens and an irrelevant one), got {T}")
    if check_positive_int(vocab_size, "vocab_size") < 6:
        raise ValueError(f"vocab_size must be at least 6 (4 marked tokens and irrelevant ones), got {vocab_size}")
    rng = np.random.default_rng(seed)
    X = rng.integers(4, vocab_size, size=(n, T))
    quarter = n // 4
    group = np.repeat(np.arange(4), quarter)
    slots = np.stack([rng.permutation(T)[:2] for _ in range(n)])
    first, second = slots[:, 0], slots[:, 1]
    rows = np.arange(n)
    X[rows, first] = np.array([0, 1, 3, 1])[group]  # A, C, B, C
    shielded = group == 3
    X[rows[shielded], second[shielded]] = 2  # N next to C in the last group
    y = np.where(group < 2, 1, -1)
    order = rng.permutation(n)
    return ShieldingData(torch.from_numpy(X[order]), torch.from_numpy(y[order]))


# ----------------------------------------------------------------------------------------- multi-class real data


def load_yelp_stars(split: str, *, limit: int | None = None, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """Yelp reviews with star labels from the Hugging Face hub (``Yelp/yelp_review_full``), 4 classes.

    Keeps 1, 2, 4 and 5 stars (``YELP_STARS_CLASSES``, our choice) as labels 0..3. Raises
    ConnectionError with the reason when the hub cannot be used (offline, ``HF_HUB_OFFLINE=1``,
    no name resolution); there is no local substitute: the course's local Yelp copy has
    binary labels only.
    """
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    if os.environ.get("HF_HUB_OFFLINE", "").strip() not in ("", "0"):
        raise ConnectionError("HF_HUB_OFFLINE is set, so the Hugging Face hub is not contacted")
    import socket

    proxied = any(os.environ.get(k) for k in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY"))
    host = os.environ.get("HF_ENDPOINT", "https://huggingface.co").split("//")[-1].split("/")[0].split(":")[0]
    if not proxied:
        try:
            socket.getaddrinfo(host, 443)
        except OSError as error:
            raise ConnectionError(f"cannot resolve {host} ({error}): no network") from None
    try:
        import datasets

        dataset = datasets.load_dataset(YELP_STARS_HUB_ID, split=split)
    except Exception as error:  # every hub failure (HTTP, auth, cache) means: this part cannot run here
        raise ConnectionError(f"{YELP_STARS_HUB_ID} could not be loaded: {type(error).__name__}: {error}") from None
    labels = np.asarray(dataset["label"])
    keep = np.flatnonzero(np.isin(labels, YELP_STARS_CLASSES))
    if limit is not None and limit < keep.size:
        keep = np.sort(np.random.default_rng(seed).choice(keep, size=check_positive_int(limit, "limit"), replace=False))
    mapping = {star: k for k, star in enumerate(YELP_STARS_CLASSES)}
    texts = dataset.select(keep.tolist())["text"]
    return list(texts), np.array([mapping[int(s)] for s in labels[keep]], dtype=np.int64)


def train_multiclass(
    model: MultiClassCLSAttention,
    X: torch.Tensor,
    mask: torch.Tensor,
    y: torch.Tensor,
    *,
    epochs: int,
    batch_size: int,
    lr: float,
    seed: int = 0,
) -> list[float]:
    """Minibatch Adam on the cross-entropy of ``model`` (all parameters); returns the mean loss of each epoch.

    X, mask: (n, T); y: (n,) class labels in [0, K).
    """
    epochs, batch_size = check_positive_int(epochs, "epochs"), check_positive_int(batch_size, "batch_size")
    X = check_tokens(X, model.vocab_size).to(model.E.device)
    mask = check_mask(mask, X)
    y = check_class_labels(y, X.shape[0], model.num_classes).to(model.E.device)
    optimiser = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=lr)
    generator = torch.Generator().manual_seed(int(seed))
    losses = []
    for _ in range(epochs):
        order = torch.randperm(X.shape[0], generator=generator).to(X.device)
        total = 0.0
        for first in range(0, X.shape[0], batch_size):
            rows = order[first : first + batch_size]
            loss = nn.functional.cross_entropy(model.logits_and_attention(X[rows], mask[rows])[0], y[rows])
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
            total += loss.item() * len(rows)
        losses.append(total / X.shape[0])
    return losses


@dataclass
class YelpStarsRun:
    """The 4-class Yelp experiment: the trained model, the class importance ``P(k|s) - 1/K`` of every
    token (V, K), the test accuracy and the vocabulary."""

    model: MultiClassCLSAttention
    importance: torch.Tensor
    test_accuracy: float
    vocab: list[str]


def run_yelp_stars(
    settings: AblationSettings | None = None,
    *,
    T: int = 128,
    limit: int | None = 20_000,
    min_count: int = 10,
    progress: bool = True,
) -> YelpStarsRun:
    """Train ``MultiClassCLSAttention`` on 4-class Yelp (1, 2, 4, 5 stars) from the hub.

    Raises ConnectionError (from ``load_yelp_stars``) when the hub cannot be used. ``limit``
    reviews per split (random, seeded). Not cached: it only runs where the hub is reachable.
    """
    from .encoding import vocabulary

    settings = default_settings() if settings is None else settings
    train_texts, train_labels = load_yelp_stars("train", limit=limit, seed=settings.seed)
    test_texts, test_labels = load_yelp_stars("test", limit=limit, seed=settings.seed)
    tokenizer = build_tokenizer(train_texts, min_count=min_count)
    X, mask = encode_texts(tokenizer, train_texts, T, progress=progress)
    X_test, mask_test = encode_texts(tokenizer, test_texts, T, progress=progress)
    K = len(YELP_STARS_CLASSES)
    vocab = vocabulary(tokenizer)
    model = MultiClassCLSAttention(len(vocab), settings.d, K, seed=settings.seed).to(default_device())
    y = torch.from_numpy(train_labels)
    train_multiclass(
        model, X, mask, y, epochs=settings.epochs, batch_size=settings.batch_size, lr=settings.lr, seed=settings.seed
    )
    with torch.no_grad():
        predicted = torch.cat(
            [model(X_test[i : i + 2048], mask_test[i : i + 2048]).argmax(1).cpu() for i in range(0, len(X_test), 2048)]
        )
    test_accuracy = float((predicted == torch.from_numpy(test_labels)).double().mean())
    importance = class_importance(X, y, K, len(vocab), mask)
    importance[:2] = float("nan")
    return YelpStarsRun(model, importance, test_accuracy, vocab)
