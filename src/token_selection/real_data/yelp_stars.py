"""The 4-class Yelp experiment (1, 2, 4, 5 stars) from the Hugging Face hub, as in the authors' rebuttal.

There is no local copy of star-labelled Yelp reviews, so this runs only where the hub answers;
the model, trainer, checkpoint and record are the binary experiments' (``pipeline``).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import torch

from ..validation import check_positive_int
from .encoding import EncodedReviews, EncodedSplit, build_tokenizer, encode_texts, vocabulary
from .pipeline import TrainedRun, run_experiment
from .settings import RealDataSettings, real_data_settings

YELP_STARS_HUB_ID = "Yelp/yelp_review_full"
YELP_STARS_CLASSES = (0, 1, 3, 4)
"""Star ratings kept for the 4-class experiment (labels 0..4 = 1..5 stars; 3 stars dropped): our choice."""


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


def prepare_yelp_stars(settings: RealDataSettings, *, progress: bool = True) -> EncodedReviews:
    """4-class Yelp (1, 2, 4, 5 stars) from the hub, tokenised like the binary datasets (``settings``: T, min_count,
    limit per split, validation share, seed). Raises ConnectionError when the hub cannot be used. Not cached on disk:
    it only runs where the hub answers."""
    start = time.perf_counter()
    train_texts, train_labels = load_yelp_stars("train", limit=settings.limit, seed=settings.seed)
    test_texts, test_labels = load_yelp_stars("test", limit=settings.limit, seed=settings.seed)
    held = np.random.default_rng(settings.seed).random(len(train_texts)) < settings.validation_fraction
    tokenizer = build_tokenizer([t for t, h in zip(train_texts, held, strict=True) if not h], min_count=settings.min_count)
    X, mask = encode_texts(tokenizer, train_texts, settings.T, progress=progress)
    X_test, mask_test = encode_texts(tokenizer, test_texts, settings.T, progress=progress)
    y, y_test, keep = torch.from_numpy(train_labels), torch.from_numpy(test_labels), torch.from_numpy(~held)
    source = f"Hugging Face hub: {YELP_STARS_HUB_ID} (1, 2, 4, 5 stars)"
    return EncodedReviews(
        name="yelp_stars",
        vocab=vocabulary(tokenizer),
        train=EncodedSplit(X[keep], mask[keep], y[keep], source + "; train part"),
        validation=EncodedSplit(X[~keep], mask[~keep], y[~keep], source + "; validation part"),
        test=EncodedSplit(X_test, mask_test, y_test, source + "; test split"),
        test_texts=test_texts,
        config={
            "kind": "yelp_stars",
            "hub_id": YELP_STARS_HUB_ID,
            "classes": list(YELP_STARS_CLASSES),
            **settings.data_arguments(),
        },
        cache_path=Path("(not cached)"),
        from_cache=False,
        seconds=time.perf_counter() - start,
    )


def run_yelp_stars(settings: RealDataSettings | None = None, *, progress: bool = True) -> TrainedRun:
    """Train ``MultiClassCLSAttention`` jointly on 4-class Yelp through the pipeline (record ``yelp_stars-multiclass-joint``).

    ``settings``: default the preset of the current scale for ``yelp_polarity``. Raises ConnectionError
    (from ``load_yelp_stars``) when the hub cannot be used.
    """
    settings = real_data_settings(dataset="yelp_polarity") if settings is None else settings
    data = prepare_yelp_stars(settings, progress=progress)
    return run_experiment("multiclass", "joint", settings, data=data, progress=progress)
