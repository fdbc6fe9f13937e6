"""The 4-class Yelp experiment (1, 2, 4, 5 stars), as in the authors' rebuttal (reply to reviewer E1M4, Q2).

Reviews come from the Hugging Face hub, else from a local star-rated stand-in
(``$TOKEN_SELECTION_DATA/yelp_review_full``: real Yelp reviews, not the Zhang et al. rows);
the model, trainer, checkpoint and record are the binary experiments' (``pipeline``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..validation import check_positive_int
from .encoding import EncodedReviews, EncodedSplit, build_tokenizer, encode_texts, vocabulary
from .pipeline import TrainedRun, run_experiment
from .reviews import DATA_VARIABLE, _hub_unreachable_reason, _load_from_parquet, data_directory
from .settings import RealDataSettings, real_data_settings

YELP_STARS_HUB_ID = "Yelp/yelp_review_full"
YELP_STARS_CLASSES = (0, 1, 3, 4)
"""Star ratings kept for the 4-class experiment (labels 0..4 = 1..5 stars; 3 stars dropped): our choice."""


YELP_STARS_LOCAL = "yelp_review_full"
"""Folder of the local copy under ``$TOKEN_SELECTION_DATA``: ``<dir>/yelp_review_full/{train,test}.parquet``."""
STARS_STAND_IN_NOTE = (
    "stand-in for Yelp/yelp_review_full: real star-rated Yelp reviews, balanced per star, not the Zhang et al. rows; "
    "see the data README"
)


@dataclass(frozen=True)
class StarReviews:
    """4-class Yelp reviews: texts, labels (n,) int64 in 0..3 (1, 2, 4, 5 stars), where they came from."""

    texts: list[str]
    labels: np.ndarray
    source: str
    fingerprint: str
    stand_in: bool
    hub_error: str | None


def _from_hub(split: str) -> tuple[list[str], np.ndarray, str]:
    """(texts, star labels 0..4, fingerprint) from the hub; raises ConnectionError on any failure."""
    reason = _hub_unreachable_reason()
    if reason is not None:
        raise ConnectionError(reason)
    try:
        import datasets

        dataset = datasets.load_dataset(YELP_STARS_HUB_ID, split=split)
    except Exception as error:  # every hub failure (offline, HTTP, auth, cache) means: use the local copy
        raise ConnectionError(f"{YELP_STARS_HUB_ID} could not be loaded: {type(error).__name__}: {error}") from None
    return list(dataset["text"]), np.asarray(dataset["label"]), f"hub:{YELP_STARS_HUB_ID}:{dataset._fingerprint}"


def load_yelp_stars(
    split: str, *, limit: int | None = None, seed: int = 0, data_dir: str | os.PathLike | None = None
) -> StarReviews:
    """Yelp reviews with star labels, 4 classes: 1, 2, 4 and 5 stars (``YELP_STARS_CLASSES``, our choice) as 0..3.

    Tries the Hugging Face hub (``Yelp/yelp_review_full``), then the local stand-in
    ``<data_dir or $TOKEN_SELECTION_DATA>/yelp_review_full/<split>.parquet`` (columns text, label 0..4 = 1..5
    stars). Raises FileNotFoundError naming what to set when neither is available. ``limit``: a random subset of at
    most this many of the kept reviews, drawn with ``seed``.
    """
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    if limit is not None:
        limit = check_positive_int(limit, "limit")
    try:
        texts, labels, fingerprint = _from_hub(split)
        source, stand_in, hub_error = f"Hugging Face hub: {YELP_STARS_HUB_ID} ({split})", False, None
    except ConnectionError as error:
        hub_error = str(error)
        directory = data_directory(data_dir)
        path = None if directory is None else directory / YELP_STARS_LOCAL / f"{split}.parquet"
        if path is None or not path.is_file():
            where = f"the local copy {path} does not exist" if path else f"{DATA_VARIABLE} is not set"
            raise FileNotFoundError(
                f"Could not load {YELP_STARS_HUB_ID} from the Hugging Face hub ({hub_error}), and {where}. "
                f"Set {DATA_VARIABLE} (or pass data_dir=) to a directory holding {YELP_STARS_LOCAL}/{split}.parquet "
                "with columns text, label (0..4 = 1..5 stars)."
            ) from None
        texts, labels, fingerprint = _load_from_parquet(path)
        source, stand_in = f"local Parquet: {path} ({STARS_STAND_IN_NOTE})", True
    labels = np.asarray(labels)
    bad = sorted(set(np.unique(labels).tolist()) - set(range(5)))
    if bad:
        raise ValueError(f"star labels of {split} must lie in 0..4 (1..5 stars), got other values {bad[:5]}")
    keep = np.flatnonzero(np.isin(labels, YELP_STARS_CLASSES))
    if limit is not None and limit < keep.size:
        keep = np.sort(np.random.default_rng(seed).choice(keep, size=limit, replace=False))
        fingerprint += f":limit={limit}:seed={seed}"
    mapping = {star: k for k, star in enumerate(YELP_STARS_CLASSES)}
    kept_labels = np.array([mapping[int(s)] for s in labels[keep]], dtype=np.int64)
    return StarReviews([texts[i] for i in keep], kept_labels, source, fingerprint, stand_in, hub_error)


def prepare_yelp_stars(settings: RealDataSettings, *, progress: bool = True) -> EncodedReviews:
    """4-class Yelp (1, 2, 4, 5 stars), from the hub or the local stand-in, tokenised like the binary datasets
    (``settings``: T, min_count, max_vocab, limit per split, validation share, seed). Not cached on disk: the
    stand-in tokenises in seconds."""
    start = time.perf_counter()
    train = load_yelp_stars("train", limit=settings.limit, seed=settings.seed)
    test = load_yelp_stars("test", limit=settings.limit, seed=settings.seed)
    train_texts, train_labels, test_texts, test_labels = train.texts, train.labels, test.texts, test.labels
    held = np.random.default_rng(settings.seed).random(len(train_texts)) < settings.validation_fraction
    tokenizer = build_tokenizer(
        [t for t, h in zip(train_texts, held, strict=True) if not h], min_count=settings.min_count, max_vocab=settings.max_vocab
    )
    X, mask = encode_texts(tokenizer, train_texts, settings.T, progress=progress)
    X_test, mask_test = encode_texts(tokenizer, test_texts, settings.T, progress=progress)
    y, y_test, keep = torch.from_numpy(train_labels), torch.from_numpy(test_labels), torch.from_numpy(~held)
    source, test_source = (
        f"{part.source.replace(f' ({split})', '')}; 1, 2, 4, 5 stars" for part, split in ((train, "train"), (test, "test"))
    )
    return EncodedReviews(
        name="yelp_stars",
        vocab=vocabulary(tokenizer),
        train=EncodedSplit(X[keep], mask[keep], y[keep], source + "; train part"),
        validation=EncodedSplit(X[~keep], mask[~keep], y[~keep], source + "; validation part"),
        test=EncodedSplit(X_test, mask_test, y_test, test_source + "; test split"),
        test_texts=test_texts,
        config={
            "kind": "yelp_stars",
            "source": [train.fingerprint, test.fingerprint],
            "classes": list(YELP_STARS_CLASSES),
            **settings.data_arguments(),
        },
        cache_path=Path("(not cached)"),
        from_cache=False,
        seconds=time.perf_counter() - start,
        stand_in=train.stand_in,
        hub_error=train.hub_error,
    )


def run_yelp_stars(
    settings: RealDataSettings | None = None, *, data: EncodedReviews | None = None, progress: bool = True
) -> TrainedRun:
    """Train ``MultiClassCLSAttention`` jointly on 4-class Yelp through the pipeline (record ``yelp_stars-multiclass-joint``).

    ``settings``: default the preset of the current scale for ``yelp_polarity``. ``data``: the reviews as
    ``prepare_yelp_stars(settings)`` gives them, when the caller has them already (default: prepared here).
    Raises FileNotFoundError (from ``load_yelp_stars``) when neither the hub nor the local stand-in can be used.
    """
    settings = real_data_settings(dataset="yelp_polarity") if settings is None else settings
    data = prepare_yelp_stars(settings, progress=progress) if data is None else data
    return run_experiment("multiclass", "joint", settings, data=data, progress=progress)
