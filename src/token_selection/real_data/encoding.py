"""Reviews to token ids: a word-level tokeniser, a training-split vocabulary, padded tensors, a checked cache.

The tokeniser (Hugging Face ``tokenizers``; the choices are the course's own):
lower-case, replace HTML line breaks (``<br />``, ``<br/>``, ``<br>``) and the escaped
line break ``\\n`` (two characters, as in the Yelp polarity files) by a space,
split into runs of word characters and runs of punctuation, and map every word
seen at least ``min_count`` times in the *training* reviews to an id. Id 0 is
``<pad>``, id 1 is ``<unk>`` (every other word). Each review keeps its first
``T`` tokens; shorter ones are padded with ``<pad>`` and masked out.

``prepare_reviews`` runs the whole pipeline and caches the tensors on disk with a
SHA-256 checksum (``disk_cache``): a corrupted cache is detected and rebuilt.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from tqdm.auto import tqdm

from ..disk_cache import cache_key, load_checked, resolve_cache_dir, save_checked
from ..validation import check_positive_int
from .reviews import HUB_IDS, check_dataset_name, load_reviews, split_validation

PAD, UNK = "<pad>", "<unk>"
PAD_ID, UNK_ID = 0, 1
ENCODING_VERSION = 2
"""Bump when anything here changes what the tensors hold: old caches are then ignored."""
_CHUNK = 4096


def _empty_tokenizer(vocab: dict[str, int] | None = None):
    """A word-level tokeniser with the course's normaliser and pre-tokeniser (empty vocabulary if None)."""
    from tokenizers import Regex, Tokenizer, models, normalizers, pre_tokenizers

    tokenizer = Tokenizer(models.WordLevel(vocab=vocab or {PAD: PAD_ID, UNK: UNK_ID}, unk_token=UNK))
    # Lower-case first so that "<BR />" is caught too; offsets still refer to the original text.
    tokenizer.normalizer = normalizers.Sequence(
        [normalizers.Lowercase(), normalizers.Replace(Regex(r"<br\s*/?>"), " "), normalizers.Replace("\\n", " ")]
    )
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    return tokenizer


def build_tokenizer(texts: list[str], *, min_count: int = 10, max_vocab: int | None = None):
    """Train the word-level vocabulary on ``texts``: words seen at least ``min_count`` times, at most the
    ``max_vocab`` most frequent of them (None: all).

    Returns a ``tokenizers.Tokenizer``; ids 0 and 1 are ``<pad>`` and ``<unk>``, then
    words by decreasing count (ties in a fixed order, so the ids are reproducible).
    """
    from tokenizers import trainers

    min_count = check_positive_int(min_count, "min_count")
    if max_vocab is not None:
        max_vocab = check_positive_int(max_vocab, "max_vocab")
    if not texts:
        raise ValueError("texts must hold at least one review to build a vocabulary from")
    tokenizer = _empty_tokenizer()
    trainer = trainers.WordLevelTrainer(
        vocab_size=2**31 - 1 if max_vocab is None else max_vocab + 2,
        min_frequency=min_count,
        special_tokens=[PAD, UNK],
        show_progress=False,
    )
    tokenizer.train_from_iterator(texts, trainer)
    return tokenizer


def tokenizer_from_vocab(vocab: list[str]):
    """The tokeniser whose id ``i`` is ``vocab[i]`` (as stored in the cache)."""
    if len(vocab) < 2 or vocab[PAD_ID] != PAD or vocab[UNK_ID] != UNK:
        raise ValueError(f"vocab must start with {PAD!r}, {UNK!r}, got {vocab[:2]}")
    return _empty_tokenizer({word: i for i, word in enumerate(vocab)})


def vocabulary(tokenizer) -> list[str]:
    """The tokeniser's words in id order: a list of V strings."""
    ids = tokenizer.get_vocab()
    words = [""] * len(ids)
    for word, i in ids.items():
        words[i] = word
    return words


def encode_texts(tokenizer, texts: list[str], T: int, *, progress: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """Token ids and padding mask of ``texts``, truncated and padded to ``T``.

    Returns X: (n, T) int64 (padding = 0) and mask: (n, T) bool, True on real tokens.
    A review with no token at all (an empty text) becomes a single ``<unk>``, so
    that every row has a real position.
    """
    T = check_positive_int(T, "T")
    if not texts:
        raise ValueError("texts must hold at least one review")
    tokenizer.enable_truncation(T)
    tokenizer.enable_padding(length=T, pad_id=PAD_ID, pad_token=PAD)
    encode = getattr(tokenizer, "encode_batch_fast", tokenizer.encode_batch)  # no offsets: faster
    X = np.empty((len(texts), T), dtype=np.int64)
    lengths = np.empty(len(texts), dtype=np.int64)
    try:
        for first in tqdm(range(0, len(texts), _CHUNK), desc="tokenising", disable=not progress, leave=False):
            encodings = encode(texts[first : first + _CHUNK])
            rows = slice(first, first + len(encodings))
            X[rows] = np.array([e.ids for e in encodings], dtype=np.int64)
            lengths[rows] = [sum(e.attention_mask) for e in encodings]
    finally:
        tokenizer.no_truncation()
        tokenizer.no_padding()
    empty = lengths == 0
    X[empty, 0], lengths[empty] = UNK_ID, 1
    X_t = torch.from_numpy(X)
    return X_t, torch.arange(T)[None, :] < torch.from_numpy(lengths)[:, None]


@dataclass
class EncodedSplit:
    """One split as tensors: X (n, T) int64, mask (n, T) bool, y (n,) int64 in {0, 1}; source: its origin."""

    X: torch.Tensor
    mask: torch.Tensor
    y: torch.Tensor
    source: str

    def __len__(self) -> int:
        return int(self.X.shape[0])

    @property
    def y_signed(self) -> torch.Tensor:
        """Labels as float32 -1/+1: (n,)."""
        return self.y.float() * 2 - 1

    def to_cache(self) -> dict[str, Any]:
        # Padding sits at the end of each row, so the mask is stored as lengths; int32 halves the file.
        return {"X": self.X.int(), "lengths": self.mask.sum(1).int(), "y": self.y.to(torch.int8), "source": self.source}

    @classmethod
    def from_cache(cls, item: dict[str, Any]) -> EncodedSplit:
        X = item["X"].long()
        mask = torch.arange(X.shape[1])[None, :] < item["lengths"].long()[:, None]
        return cls(X, mask, item["y"].long(), item["source"])


@dataclass
class EncodedReviews:
    """A dataset ready for training: vocabulary, train / validation / test tensors, and provenance.

    vocab: V words in id order (built from ``train`` only); test_texts: the raw test
    reviews (for showing attention on words); config: every setting the tensors
    depend on; cache_path: the checked file; from_cache: whether it was loaded
    rather than built; seconds: time spent (loading and tokenising).
    """

    name: str
    vocab: list[str]
    train: EncodedSplit
    validation: EncodedSplit
    test: EncodedSplit
    test_texts: list[str]
    config: dict[str, Any]
    cache_path: Path
    from_cache: bool
    seconds: float
    stand_in: bool = False
    hub_error: str | None = field(default=None, compare=False)

    @property
    def vocab_size(self) -> int:
        return len(self.vocab)

    @property
    def T(self) -> int:
        return int(self.train.X.shape[1])

    @property
    def source_label(self) -> str:
        """A short label of where the reviews came from, for figure titles and printed results."""
        if self.hub_error is None:
            return f"Hugging Face hub: {HUB_IDS.get(self.name) or 'Yelp/yelp_review_full'}"
        named = {"yelp_stars": "yelp_review_full"}.get(self.name, self.name)
        label = f"local Parquet copy of {named}"
        return label + f" (a stand-in built from real Yelp reviews, not the {named} rows)" if self.stand_in else label

    def tokenizer(self):
        """The tokeniser of this vocabulary (for encoding new text with offsets)."""
        return tokenizer_from_vocab(self.vocab)

    def describe(self) -> str:
        """A short multi-line summary: sizes, vocabulary, sources."""
        lines = [
            f"{self.name}: {len(self.train):,} train / {len(self.validation):,} validation / {len(self.test):,} test reviews, "
            f"T = {self.T}, vocabulary V = {self.vocab_size:,} (min count {self.config['min_count']}, from the train part)",
            f"  train source: {self.train.source}",
            f"  test source:  {self.test.source}",
            f"  tokenised tensors {'loaded from' if self.from_cache else 'built and saved to'} {self.cache_path.name} "
            f"({self.seconds:.1f} s)",
        ]
        if self.hub_error:
            lines.append(f"  (Hugging Face hub not used: {self.hub_error})")
        return "\n".join(lines)


def prepare_reviews(
    name: str,
    *,
    T: int = 256,
    min_count: int = 10,
    max_vocab: int | None = None,
    limit: int | None = None,
    validation_fraction: float = 0.1,
    seed: int = 0,
    data_dir: str | os.PathLike | None = None,
    cache_dir: str | os.PathLike | None = None,
    progress: bool = True,
) -> EncodedReviews:
    """Load, split, tokenise and cache a dataset: the whole data pipeline of the real-data chapters.

    name: "imdb" or "yelp_polarity"; T: tokens kept per review; min_count: minimum
    count of a word in the train part to enter the vocabulary; max_vocab: keep at most this many of
    those words, the most frequent (None: all); limit: at most this
    many reviews per split (random, seeded; None = all); validation_fraction: share
    of the train split held out (stratified, seeded) for early stopping.
    The cache key holds every one of these, the data's fingerprints and
    ``ENCODING_VERSION``.
    """
    start = time.perf_counter()
    check_dataset_name(name)
    T, min_count = check_positive_int(T, "T"), check_positive_int(min_count, "min_count")
    train_all = load_reviews(name, "train", data_dir=data_dir, limit=limit, seed=seed)
    test = load_reviews(name, "test", data_dir=data_dir, limit=limit, seed=seed)
    train, validation = split_validation(train_all, validation_fraction, seed=seed)
    config = {
        "kind": "encoded_reviews",
        "version": ENCODING_VERSION,
        "name": name,
        "train": train_all.fingerprint,
        "test": test.fingerprint,
        "sources": [train_all.source, test.source],
        "T": T,
        "min_count": min_count,
        "max_vocab": max_vocab,
        "limit": limit,
        "validation_fraction": validation_fraction,
        "seed": seed,
    }
    path = resolve_cache_dir(cache_dir) / f"reviews-{name}-{cache_key(config)}.pt"
    cached = load_checked(path)
    if cached is not None and cached.get("config") == config:
        splits = {k: EncodedSplit.from_cache(cached[k]) for k in ("train", "validation", "test")}
        vocab, from_cache = list(cached["vocab"]), True
    else:
        tokenizer = build_tokenizer(train.texts, min_count=min_count, max_vocab=max_vocab)
        vocab = vocabulary(tokenizer)
        splits = {}
        for label, part in (("train", train), ("validation", validation), ("test", test)):
            X, mask = encode_texts(tokenizer, part.texts, T, progress=progress)
            splits[label] = EncodedSplit(X, mask, torch.from_numpy(part.labels), part.source)
        save_checked({"config": config, "vocab": vocab, **{k: s.to_cache() for k, s in splits.items()}}, path)
        from_cache = False
    return EncodedReviews(
        name=name,
        vocab=vocab,
        train=splits["train"],
        validation=splits["validation"],
        test=splits["test"],
        test_texts=test.texts,
        config=config,
        cache_path=path,
        from_cache=from_cache,
        seconds=time.perf_counter() - start,
        stand_in=train_all.stand_in,
        hub_error=train_all.hub_error,
    )
