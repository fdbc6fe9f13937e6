"""What the rebuttal's vocabulary size implies: a training set whose own vocabulary has that size.

The authors' rebuttal gives IMDB "7,766 tokens seen in training" (reply to reviewer E1M4, Q3). Our
tokeniser finds far more words seen at least ``min_count`` times in the 22,500 training reviews, so
the full preset keeps the 7,766 most frequent (truncation). This module takes the other reading: it
finds how many reviews give a vocabulary of that size by themselves (``matched_limit``), at each
``min_count`` of ``MIN_COUNTS`` (1: every word seen at all), and trains the one-layer model on such a
subset, jointly and with ``E`` frozen at random (``run_matched_vocabulary``).

    limit, size = matched_limit("imdb", 7766, min_count=10)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .encoding import build_tokenizer
from .pipeline import load_data, run_experiment
from .reviews import load_reviews, split_validation
from .settings import REBUTTAL_VOCABULARY, diagnosis_settings, real_data_settings

MIN_COUNTS = (1, 10)
"""The readings of "seen in training": seen at all, and seen as often as the presets ask (ours)."""
SEARCH_STEP = 25
"""The bisection stops when the bracket of review counts is this narrow (ours)."""


def training_vocabulary_size(
    dataset: str, limit: int, *, min_count: int, seed: int = 0, validation_fraction: float = 0.1, data_dir=None
) -> int:
    """Words seen at least ``min_count`` times in the training part (validation held out) of ``limit`` reviews
    drawn with ``seed``: the vocabulary ``prepare_reviews`` would build, without ``<pad>`` and ``<unk>``."""
    reviews = load_reviews(dataset, "train", data_dir=data_dir, limit=limit, seed=seed)
    train, _ = split_validation(reviews, validation_fraction, seed=seed)
    return len(build_tokenizer(train.texts, min_count=min_count).get_vocab()) - 2


def matched_limit(
    dataset: str, target: int, *, min_count: int, seed: int = 0, validation_fraction: float = 0.1, data_dir=None,
    low: int = 100, high: int | None = None,
) -> tuple[int, int]:  # fmt: skip
    """(reviews, vocabulary size): the number of training reviews, found by bisection between ``low`` and ``high``
    (default: every review), whose vocabulary (``training_vocabulary_size``) comes closest to ``target``.

    A larger draw has the larger vocabulary on average but not always (each count is its own random draw), so the
    search keeps the closest size it saw. ValueError when even ``high`` reviews stay below ``target``.
    """
    if target < 1:
        raise ValueError(f"target must be a positive vocabulary size, got {target}")

    def size(limit: int) -> int:
        return training_vocabulary_size(
            dataset, limit, min_count=min_count, seed=seed, validation_fraction=validation_fraction, data_dir=data_dir
        )

    high = high if high is not None else len(load_reviews(dataset, "train", data_dir=data_dir).labels)
    seen = {high: size(high)}
    if seen[high] < target:
        raise ValueError(f"{high} {dataset} reviews give {seen[high]} words seen at least {min_count} times, fewer than {target}")
    while high - low > SEARCH_STEP:
        middle = (low + high) // 2
        seen[middle] = size(middle)
        if seen[middle] < target:
            low = middle
        else:
            high = middle
    best = min(seen, key=lambda limit: (abs(seen[limit] - target), limit))
    return best, seen[best]


def matched_vocabulary_settings(scale: str) -> dict[str, Any]:
    """IMDB at the preset, without the preset's truncation of the vocabulary; the rebuttal's size as the target."""
    return diagnosis_settings(
        "matched_vocabulary", scale, target=REBUTTAL_VOCABULARY["imdb"], min_counts=list(MIN_COUNTS), seeds=[0]
    )


def run_matched_vocabulary(settings: dict[str, Any], *, progress: bool = False) -> dict[str, Any]:
    """The matched review count at each ``min_count`` (beside the vocabulary of every training review), then the
    one-layer model trained jointly and with ``E`` frozen at random on the subset matched at the preset's
    ``min_count`` (its whole vocabulary kept)."""
    preset = real_data_settings(settings["scale"], settings["dataset"])
    matches = {}
    every = len(load_reviews(preset.dataset, "train").labels)
    for min_count in settings["min_counts"]:
        limit, size = matched_limit(preset.dataset, settings["target"], min_count=min_count, seed=preset.seed)
        whole = training_vocabulary_size(preset.dataset, every, min_count=min_count, seed=preset.seed)
        matches[str(min_count)] = {"limit": limit, "vocabulary": size, "all_reviews": every, "all_vocabulary": whole}
    chosen = matches[str(preset.min_count)]
    subset = replace(preset, limit=chosen["limit"], max_vocab=None)
    data = load_data(subset, progress=progress)
    arms = {}
    for mode in ("joint", "frozen_random"):
        run = run_experiment("one_layer", mode, subset, data=data, progress=progress)
        arms[mode] = {"test_accuracy": run.test_accuracy, "best_epoch": run.history.best_epoch}
    return {
        "matches": matches,
        "vocab_size": data.vocab_size - 2,
        "n_train": len(data.train),
        "n_test": len(data.test),
        "arms": arms,
    }
