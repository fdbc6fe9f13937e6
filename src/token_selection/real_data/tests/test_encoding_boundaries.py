"""Tokenising at its edges: the vocabulary cap, the stored vocabulary, chunked encoding, the cached form of a split,
the provenance a dataset prints, and a cache file whose configuration is not the one asked for."""

from __future__ import annotations

import dataclasses
import os
import pty
import re
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from token_selection.disk_cache import cache_key, save_checked
from token_selection.real_data import encoding, reviews
from token_selection.real_data.encoding import (
    PAD_ID,
    UNK_ID,
    EncodedReviews,
    EncodedSplit,
    build_tokenizer,
    encode_texts,
    prepare_reviews,
    tokenizer_from_vocab,
    vocabulary,
)


def test_max_vocab_keeps_the_most_frequent_words_on_top_of_pad_and_unk():
    texts = ["d d d d a a a b b c", "d a e"]  # counts: d 5, a 4, b 2, c 1, e 1
    assert vocabulary(build_tokenizer(texts, min_count=1, max_vocab=2)) == ["<pad>", "<unk>", "d", "a"]
    assert vocabulary(build_tokenizer(texts, min_count=1, max_vocab=3)) == ["<pad>", "<unk>", "d", "a", "b"]
    everything = vocabulary(build_tokenizer(texts, min_count=1))
    assert everything[:5] == ["<pad>", "<unk>", "d", "a", "b"] and set(everything[5:]) == {"c", "e"}
    assert vocabulary(build_tokenizer(texts, min_count=1, max_vocab=50)) == everything  # a cap above V changes nothing
    assert vocabulary(build_tokenizer(texts, min_count=2, max_vocab=50)) == ["<pad>", "<unk>", "d", "a", "b"]
    assert vocabulary(build_tokenizer(["w " * 12])) == ["<pad>", "<unk>", "w"]  # min count 10 by default
    assert vocabulary(build_tokenizer(["w " * 10])) == ["<pad>", "<unk>", "w"]  # exactly 10: kept
    assert vocabulary(build_tokenizer(["w " * 9])) == ["<pad>", "<unk>"]


def test_build_tokenizer_refuses_an_empty_corpus_and_a_bad_cap():
    with pytest.raises(ValueError, match="^texts must hold at least one review to build a vocabulary from$"):
        build_tokenizer([], min_count=1)
    with pytest.raises(ValueError, match="^max_vocab must be an integer >= 1, got 0$"):
        build_tokenizer(["a b"], min_count=1, max_vocab=0)
    with pytest.raises(ValueError, match="^min_count must be an integer >= 1, got 0$"):
        build_tokenizer(["a b"], min_count=0)


def test_build_tokenizer_prints_no_progress(capfd):
    build_tokenizer(["a b c"] * 50, min_count=1)
    captured = capfd.readouterr()  # the trainer would write from Rust, to the process's own stderr
    assert captured.out == "" and captured.err == ""


def _stderr_on_a_terminal(call) -> bytes:
    """What ``call()`` writes to the process's stderr (file descriptor 2) while that is a terminal (a pty)."""
    master, follower = pty.openpty()
    chunks: list[bytes] = []

    def drain() -> None:
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # the terminal's other end is closed
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=drain)
    reader.start()
    saved = os.dup(2)
    os.dup2(follower, 2)
    try:
        call()
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(follower)
        reader.join(timeout=5)
        os.close(master)
    return b"".join(chunks)


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_build_tokenizer_draws_no_progress_bar_even_on_a_terminal():
    # the trainer's bar (drawn from Rust) shows only on a terminal, so captured output alone would not see it
    assert _stderr_on_a_terminal(lambda: build_tokenizer(["a b c"] * 50, min_count=1)) == b""


def test_without_a_cap_every_word_seen_often_enough_is_kept():
    words = [f"w{i}" for i in range(300)]
    vocab = vocabulary(build_tokenizer([" ".join(words)] * 2, min_count=2))
    assert len(vocab) == 302 and set(vocab[2:]) == set(words)


def test_a_tokenizer_from_its_stored_vocabulary_encodes_as_the_trained_one():
    trained = build_tokenizer(["Great film<br />GREAT acting\\nawful plot", "great plot"], min_count=1)
    words = vocabulary(trained)
    rebuilt = tokenizer_from_vocab(words)
    assert vocabulary(rebuilt) == words
    text = "GREAT<br>Plot\\nunseen"
    assert rebuilt.encode(text).ids == trained.encode(text).ids
    assert rebuilt.encode(text).tokens == ["great", "plot", "<unk>"]  # lower-cased, breaks removed, unknown word
    assert tokenizer_from_vocab(["<pad>", "<unk>"]).encode("anything").ids == [UNK_ID]  # the smallest vocabulary


@pytest.mark.parametrize("vocab", [[], ["<pad>"], ["<unk>", "<pad>", "a"], ["<pad>", "a", "<unk>"], ["a", "<unk>"]])
def test_a_stored_vocabulary_must_start_with_pad_and_unk(vocab):
    with pytest.raises(ValueError, match=re.escape(f"vocab must start with '<pad>', '<unk>', got {vocab[:2]}")):
        tokenizer_from_vocab(vocab)


def test_encoding_in_chunks_gives_the_same_rows(monkeypatch):
    tokenizer = build_tokenizer(["a b c d e f"], min_count=1)
    texts = ["a b c", "", "d", "e f a b c d", "f", "b b"]
    whole_X, whole_mask = encode_texts(tokenizer, texts, 4)
    monkeypatch.setattr(encoding, "_CHUNK", 4)  # chunks of 4 and 2 reviews
    X, mask = encode_texts(tokenizer, texts, 4)
    assert torch.equal(X, whole_X) and torch.equal(mask, whole_mask)
    assert mask.sum(1).tolist() == [3, 1, 1, 4, 1, 2]
    assert X[1].tolist() == [UNK_ID, PAD_ID, PAD_ID, PAD_ID]
    assert len(tokenizer.encode("a").ids) == 1  # padding is switched off again afterwards
    assert len(tokenizer.encode("a b c d e f a b").ids) == 8  # and so is truncation


def test_encode_texts_refuses_no_texts_and_shows_progress_only_when_asked(capsys):
    tokenizer = build_tokenizer(["a b"], min_count=1)
    with pytest.raises(ValueError, match="^texts must hold at least one review$"):
        encode_texts(tokenizer, [], 3)
    encode_texts(tokenizer, ["a b"], 3)
    assert capsys.readouterr().err == ""
    encode_texts(tokenizer, ["a b"], 3, progress=True)
    assert capsys.readouterr().err.startswith("\rtokenising: ")


def test_a_split_goes_to_its_cached_form_and_back():
    X = torch.tensor([[5, 3, 0, 0], [2, 2, 2, 7], [9, 0, 0, 0]])
    mask = X != 0
    split = EncodedSplit(X, mask, torch.tensor([1, 0, 1]), "somewhere")
    assert len(split) == 3
    assert split.y_signed.tolist() == [1.0, -1.0, 1.0] and split.y_signed.dtype == torch.float32
    stored = split.to_cache()
    assert stored["X"].dtype == torch.int32 and stored["y"].dtype == torch.int8 and stored["source"] == "somewhere"
    assert stored["lengths"].tolist() == [2, 4, 1] and stored["lengths"].dtype == torch.int32
    back = EncodedSplit.from_cache(stored)
    assert torch.equal(back.X, X) and back.X.dtype == torch.int64
    assert torch.equal(back.mask, mask) and back.mask.dtype == torch.bool
    assert back.y.tolist() == [1, 0, 1] and back.y.dtype == torch.int64 and back.source == "somewhere"


def _dataset(name="imdb", hub_error=None, stand_in=False, from_cache=False, n_train=1234) -> EncodedReviews:
    def split(n, T=7):
        return EncodedSplit(torch.zeros(n, T, dtype=torch.int64), torch.ones(n, T, dtype=torch.bool), torch.zeros(n), f"s{n}")

    return EncodedReviews(
        name=name,
        vocab=["<pad>", "<unk>"] + [f"w{i}" for i in range(1498)],
        train=split(n_train),
        validation=split(56),
        test=split(2001),
        test_texts=[],
        config={"min_count": 3},
        cache_path=Path("/somewhere/reviews-imdb-abc.pt"),
        from_cache=from_cache,
        seconds=2.345,
        stand_in=stand_in,
        hub_error=hub_error,
    )


def test_the_source_label_names_the_hub_or_the_local_copy():
    assert _dataset("imdb").source_label == "Hugging Face hub: stanfordnlp/imdb"
    assert _dataset("yelp_polarity").source_label == "Hugging Face hub: fancyzhx/yelp_polarity"
    assert _dataset("yelp_stars").source_label == "Hugging Face hub: Yelp/yelp_review_full"
    assert _dataset("imdb", hub_error="down").source_label == "local Parquet copy of imdb"
    stand_in = _dataset("yelp_polarity", hub_error="down", stand_in=True).source_label
    assert stand_in == "local Parquet copy of yelp_polarity (a stand-in built from real Yelp reviews, not the yelp_polarity rows)"
    stars = _dataset("yelp_stars", hub_error="down", stand_in=True).source_label
    assert (
        stars == "local Parquet copy of yelp_review_full (a stand-in built from real Yelp reviews, not the yelp_review_full rows)"
    )
    assert _dataset("yelp_stars", hub_error="down").source_label == "local Parquet copy of yelp_review_full"


def test_describe_gives_sizes_sources_and_what_happened_to_the_cache():
    data = _dataset(hub_error="ConnectionError: offline")
    assert (data.vocab_size, data.T) == (1500, 7)
    assert data.describe().splitlines() == [
        "imdb: 1,234 train / 56 validation / 2,001 test reviews, T = 7, vocabulary V = 1,500 (min count 3, from the train part)",
        "  train source: s1234",
        "  test source:  s2001",
        "  tokenised tensors built and saved to reviews-imdb-abc.pt (2.3 s)",
        "  (Hugging Face hub not used: ConnectionError: offline)",
    ]
    loaded = _dataset(from_cache=True).describe().splitlines()
    assert len(loaded) == 4 and loaded[3] == "  tokenised tensors loaded from reviews-imdb-abc.pt (2.3 s)"
    assert vocabulary(_dataset().tokenizer()) == _dataset().vocab


@pytest.fixture
def local_imdb(tmp_path, monkeypatch):
    """Local toy reviews (uneven: 90 train with 60 positive, 30 test); the hub unreachable."""

    def offline(name, split):
        raise ConnectionError("offline")

    monkeypatch.setattr(reviews, "_load_from_hub", offline)
    texts, _ = reviews.make_toy_reviews(90, seed=3)
    labels = (np.arange(90) % 3 != 0).astype(np.int64)
    reviews.write_parquet_split(tmp_path / "data", "imdb", "train", texts, labels)
    reviews.write_parquet_split(tmp_path / "data", "imdb", "test", *reviews.make_toy_reviews(30, seed=4))
    return tmp_path


def test_prepare_reviews_records_every_setting_and_names_the_file_by_them(local_imdb):
    data_dir, cache = local_imdb / "data", local_imdb / "cache"
    data = prepare_reviews(
        "imdb", T=6, min_count=2, max_vocab=20, limit=80, validation_fraction=0.2, seed=3,
        data_dir=data_dir, cache_dir=cache, progress=False,
    )  # fmt: skip
    train = reviews.load_reviews("imdb", "train", data_dir=data_dir, limit=80, seed=3)
    test = reviews.load_reviews("imdb", "test", data_dir=data_dir, limit=80, seed=3)
    config = {
        "kind": "encoded_reviews",
        "version": encoding.ENCODING_VERSION,
        "name": "imdb",
        "train": train.fingerprint,
        "test": test.fingerprint,
        "sources": [train.source, test.source],
        "T": 6,
        "min_count": 2,
        "max_vocab": 20,
        "limit": 80,
        "validation_fraction": 0.2,
        "seed": 3,
    }
    assert data.config == config
    assert data.cache_path == cache / f"reviews-imdb-{cache_key(config)}.pt" and data.cache_path.is_file()
    assert len(data.train) + len(data.validation) == 80 and len(data.test) == 30 and data.test_texts == test.texts
    assert len(data.validation) == 16  # 20% of each class, rounded
    assert data.vocab_size == 22 and data.T == 6
    assert data.hub_error == "ConnectionError: offline" and not data.stand_in
    assert not data.from_cache and data.seconds > 0
    assert torch.equal(data.test.y, torch.from_numpy(test.labels))


def test_a_cache_file_holding_another_configuration_is_not_read(local_imdb):
    arguments = {"T": 6, "min_count": 1, "data_dir": local_imdb / "data", "cache_dir": local_imdb / "cache", "progress": False}
    first = prepare_reviews("imdb", **arguments)
    stored = torch.load(first.cache_path, weights_only=False)
    stored["config"] = {**stored["config"], "T": 99}
    stored["vocab"] = ["<pad>", "<unk>", "stale"]
    save_checked(stored, first.cache_path)  # a valid checksum, but written under other settings
    again = prepare_reviews("imdb", **arguments)
    assert not again.from_cache and again.vocab == first.vocab
    assert prepare_reviews("imdb", **arguments).from_cache  # rebuilt under the right settings


def test_a_loaded_dataset_equals_the_built_one(local_imdb):
    arguments = {"T": 6, "min_count": 1, "data_dir": local_imdb / "data", "cache_dir": local_imdb / "cache", "progress": False}
    built, loaded = prepare_reviews("imdb", **arguments), prepare_reviews("imdb", **arguments)
    assert loaded.from_cache and loaded.config == built.config and loaded.cache_path == built.cache_path
    for part in ("train", "validation", "test"):
        a, b = getattr(built, part), getattr(loaded, part)
        assert torch.equal(a.X, b.X) and torch.equal(a.mask, b.mask) and torch.equal(a.y, b.y) and a.source == b.source
    assert loaded.vocab == built.vocab and isinstance(loaded.vocab, list) and loaded.test_texts == built.test_texts
    assert loaded.hub_error == built.hub_error == "ConnectionError: offline"


def test_prepare_reviews_checks_its_arguments_first(local_imdb):
    with pytest.raises(ValueError, match="name must be one of"):
        prepare_reviews("sst2", data_dir=local_imdb / "data")
    with pytest.raises(ValueError, match="T must be"):
        prepare_reviews("imdb", T=0, data_dir=local_imdb / "data")
    with pytest.raises(ValueError, match="^min_count must be an integer >= 1, got 0$"):
        prepare_reviews("imdb", min_count=0, data_dir=local_imdb / "data")


def test_the_progress_bar_is_cleared_when_tokenising_ends(capsys):
    tokenizer = build_tokenizer(["a b"], min_count=1)
    encode_texts(tokenizer, ["a b", "b"], 3, progress=True)
    err = capsys.readouterr().err
    assert err.startswith("\rtokenising: ") and "\n" not in err  # not left on screen: no finished bar and no new line
    assert err.endswith("\r") and err.split("\r")[-2].strip() == ""


def test_prepare_reviews_shows_progress_by_default_only_while_tokenising(local_imdb, capsys):
    arguments = {"T": 6, "min_count": 1, "data_dir": local_imdb / "data", "cache_dir": local_imdb / "cache"}
    before = time.perf_counter()
    built = prepare_reviews("imdb", **arguments)
    took = time.perf_counter() - before
    assert capsys.readouterr().err.startswith("\rtokenising: ") and built.from_cache is False
    assert 0 < built.seconds <= took  # the time of this call, not a clock reading
    loaded = prepare_reviews("imdb", **arguments)
    assert loaded.from_cache and capsys.readouterr().err == ""  # nothing to tokenise


def test_a_local_yelp_polarity_copy_is_marked_as_a_stand_in(tmp_path, monkeypatch):
    def offline(name, split):
        raise ConnectionError("offline")

    monkeypatch.setattr(reviews, "_load_from_hub", offline)
    for split, seed in (("train", 5), ("test", 6)):
        reviews.write_parquet_split(tmp_path / "data", "yelp_polarity", split, *reviews.make_toy_reviews(40, seed=seed))
    data = prepare_reviews(
        "yelp_polarity", T=5, min_count=1, data_dir=tmp_path / "data", cache_dir=tmp_path / "cache", progress=False
    )
    assert data.stand_in is True and data.hub_error == "ConnectionError: offline"
    assert data.source_label.startswith("local Parquet copy of yelp_polarity (a stand-in")
    again = prepare_reviews(
        "yelp_polarity", T=5, min_count=1, data_dir=tmp_path / "data", cache_dir=tmp_path / "cache", progress=False
    )
    assert again.from_cache and again.stand_in is True


def test_datasets_differing_only_in_why_the_hub_was_not_used_are_equal():
    data = _dataset(hub_error="ConnectionError: offline")  # the copies below share its tensors
    assert data == dataclasses.replace(data, hub_error="TimeoutError: slow")
    assert data != dataclasses.replace(data, stand_in=True)
    fields = ("name", "vocab", "train", "validation", "test", "test_texts", "config", "cache_path", "from_cache", "seconds")
    default = EncodedReviews(**{f: getattr(data, f) for f in fields})
    assert default.stand_in is False and default.hub_error is None


def test_the_progress_bar_counts_chunks_of_reviews(monkeypatch, capsys):
    tokenizer = build_tokenizer(["a b c"], min_count=1)
    monkeypatch.setattr(encoding, "_CHUNK", 4)
    encode_texts(tokenizer, ["a", "b", "c", "a b", "b c", "c a"], 3, progress=True)  # 6 reviews: chunks of 4 and 2
    assert "| 0/2 [" in capsys.readouterr().err


def test_prepare_reviews_defaults_to_256_tokens_and_words_seen_10_times(local_imdb):
    data = prepare_reviews("imdb", data_dir=local_imdb / "data", cache_dir=local_imdb / "cache", progress=False)
    assert data.T == 256 and data.config["T"] == 256 and data.config["min_count"] == 10
    train, _ = reviews.split_validation(reviews.load_reviews("imdb", "train", data_dir=local_imdb / "data"), 0.1)
    assert data.vocab == vocabulary(build_tokenizer(train.texts, min_count=10))


def test_limit_seed_and_min_count_reach_every_split_and_the_vocabulary(local_imdb):
    data_dir = local_imdb / "data"
    data = prepare_reviews(
        "imdb", T=6, min_count=2, limit=20, validation_fraction=0.25, seed=3,
        data_dir=data_dir, cache_dir=local_imdb / "cache", progress=False,
    )  # fmt: skip
    test = reviews.load_reviews("imdb", "test", data_dir=data_dir, limit=20, seed=3)  # 20 of the 30 test reviews
    assert len(data.test) == 20 and data.test_texts == test.texts and torch.equal(data.test.y, torch.from_numpy(test.labels))
    assert test.texts != reviews.load_reviews("imdb", "test", data_dir=data_dir, limit=20, seed=0).texts
    train_all = reviews.load_reviews("imdb", "train", data_dir=data_dir, limit=20, seed=3)
    train, validation = reviews.split_validation(train_all, 0.25, seed=3)
    assert train.texts != reviews.split_validation(train_all, 0.25, seed=0)[0].texts  # the seed matters here
    assert data.vocab == vocabulary(build_tokenizer(train.texts, min_count=2))
    assert data.vocab != vocabulary(build_tokenizer(train.texts, min_count=10))
    tokenizer = data.tokenizer()
    for part, source in ((data.train, train), (data.validation, validation)):
        X, mask = encode_texts(tokenizer, source.texts, 6)
        assert torch.equal(part.X, X) and torch.equal(part.mask, mask) and torch.equal(part.y, torch.from_numpy(source.labels))
