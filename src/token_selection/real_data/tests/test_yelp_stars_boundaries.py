"""The 4-class Yelp loader and its tokenisation at their edges, offline and without training: the hub stand-in,
the star mapping, the limit on the boundary, the validation split, the provenance and the refusals' messages."""

from __future__ import annotations

import re
import socket
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
import torch

from token_selection.real_data import yelp_stars
from token_selection.real_data.encoding import UNK_ID
from token_selection.real_data.settings import real_data_settings
from token_selection.real_data.yelp_stars import STARS_STAND_IN_NOTE, StarReviews, load_yelp_stars, prepare_yelp_stars


def _hub_serving(monkeypatch, texts, stars, fingerprint="hub:fp") -> list[str]:
    """The hub replaced by fixed reviews; returns the list of the splits it is asked for."""
    asked = []
    monkeypatch.setattr(
        yelp_stars, "_from_hub", lambda split: asked.append(split) or (list(texts), np.asarray(stars), fingerprint)
    )
    return asked


def _hub_failing(monkeypatch, reason="offline"):
    def fail(split):
        raise ConnectionError(reason)

    monkeypatch.setattr(yelp_stars, "_from_hub", fail)


class _Table:
    """What ``datasets.load_dataset`` returns, as far as ``_from_hub`` reads it."""

    def __init__(self, texts, labels, fingerprint):
        self.columns, self._fingerprint = {"text": texts, "label": labels}, fingerprint

    def __getitem__(self, column):
        return self.columns[column]


@pytest.fixture
def resolvable(monkeypatch):
    """The hub's host resolves (no real lookup), with no offline switch or proxy in the way."""
    for key in ("HF_HUB_OFFLINE", "HF_ENDPOINT", "HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setattr(socket, "getaddrinfo", lambda host, port, *a, **k: [("resolved",)])
    return monkeypatch


def test_from_hub_reads_the_full_review_set_and_its_fingerprint(resolvable):
    asked = []

    def load_dataset(hub_id, *, split):
        asked.append((hub_id, split))
        return _Table(("one", "two"), [4, 0], "beef")

    resolvable.setitem(sys.modules, "datasets", SimpleNamespace(load_dataset=load_dataset))
    texts, labels, fingerprint = yelp_stars._from_hub("test")
    assert asked == [("Yelp/yelp_review_full", "test")]
    assert texts == ["one", "two"] and isinstance(texts, list) and labels.tolist() == [4, 0]
    assert isinstance(labels, np.ndarray) and fingerprint == "hub:Yelp/yelp_review_full:beef"


def test_from_hub_turns_every_failure_into_a_connection_error_that_says_why(resolvable):
    def load_dataset(hub_id, *, split):
        raise PermissionError("gated dataset")

    resolvable.setitem(sys.modules, "datasets", SimpleNamespace(load_dataset=load_dataset))
    message = "Yelp/yelp_review_full could not be loaded: PermissionError: gated dataset"
    with pytest.raises(ConnectionError, match=re.escape(message)):
        yelp_stars._from_hub("train")


def test_from_hub_stops_before_datasets_when_the_host_does_not_resolve(monkeypatch):
    monkeypatch.setattr(yelp_stars, "_hub_unreachable_reason", lambda: "cannot resolve huggingface.co (down)")
    monkeypatch.setitem(sys.modules, "datasets", SimpleNamespace(load_dataset=None))  # calling it would fail otherwise
    with pytest.raises(ConnectionError, match=re.escape("cannot resolve huggingface.co (down)")):
        yelp_stars._from_hub("train")


# stars 0..4 (1..5 stars), three-star reviews (label 2) in between; 7 of the 10 are kept
STARS = [4, 2, 0, 1, 3, 2, 4, 0, 2, 3]
TEXTS = [f"review {i}" for i in range(len(STARS))]
KEPT = [i for i, s in enumerate(STARS) if s != 2]


def test_the_hub_reviews_keep_four_stars_as_four_classes(monkeypatch):
    asked = _hub_serving(monkeypatch, TEXTS, STARS)
    loaded = load_yelp_stars("train")
    assert asked == ["train"]
    assert loaded.texts == [TEXTS[i] for i in KEPT]
    assert loaded.labels.tolist() == [{0: 0, 1: 1, 3: 2, 4: 3}[STARS[i]] for i in KEPT]  # 1, 2, 4, 5 stars -> 0..3
    assert loaded.labels.dtype == np.int64
    assert loaded.source == "Hugging Face hub: Yelp/yelp_review_full (train)"
    assert (loaded.fingerprint, loaded.stand_in, loaded.hub_error) == ("hub:fp", False, None)


def test_a_limit_counts_the_kept_reviews_and_on_the_boundary_keeps_them_all(monkeypatch):
    _hub_serving(monkeypatch, TEXTS, STARS)
    whole = load_yelp_stars("test", limit=len(KEPT), seed=3)  # 7 kept reviews, limit 7: nothing drawn
    assert whole.texts == [TEXTS[i] for i in KEPT] and whole.fingerprint == "hub:fp"
    fewer = load_yelp_stars("test", limit=len(KEPT) - 1, seed=3)
    assert len(fewer.texts) == 6 and fewer.fingerprint == "hub:fp:limit=6:seed=3"
    rows = [int(t.split()[1]) for t in fewer.texts]
    assert rows == sorted(set(rows)) and set(rows) <= set(KEPT)  # kept reviews only, each once, in the source's order
    assert fewer.labels.tolist() == [{0: 0, 1: 1, 3: 2, 4: 3}[STARS[i]] for i in rows]
    draws = {tuple(load_yelp_stars("test", limit=3, seed=s).texts) for s in range(6)}
    assert len(draws) > 1  # the seed picks the subset
    assert load_yelp_stars("test", limit=3).texts == load_yelp_stars("test", limit=3, seed=0).texts


def test_only_three_star_reviews_leave_an_empty_set_of_integer_labels(monkeypatch):
    _hub_serving(monkeypatch, ["meh", "so-so"], [2, 2])
    loaded = load_yelp_stars("test")
    assert loaded.texts == [] and loaded.labels.shape == (0,) and loaded.labels.dtype == np.int64


def test_bad_splits_limits_and_stars_are_refused_with_what_is_allowed(monkeypatch):
    _hub_serving(monkeypatch, ["a", "b", "c", "d", "e", "f", "g"], [0, 5, 9, -1, 7, 6, 8])
    with pytest.raises(ValueError, match=re.escape("split must be 'train' or 'test', got 'validation'")):
        load_yelp_stars("validation")
    with pytest.raises(ValueError, match="^limit must be an integer >= 1, got 0"):
        load_yelp_stars("train", limit=0)
    message = "star labels of train must lie in 0..4 (1..5 stars), got other values [-1, 5, 6, 7, 8]"
    with pytest.raises(ValueError, match=re.escape(message)):
        load_yelp_stars("train")


def _write_local(directory: Path, split: str, texts, stars) -> Path:
    path = directory / "yelp_review_full" / f"{split}.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"text": list(texts), "label": list(stars)}).to_parquet(path)
    return path


def test_the_local_stand_in_says_so_and_keeps_why_the_hub_was_not_used(monkeypatch, tmp_path):
    _hub_failing(monkeypatch, "cannot resolve huggingface.co")
    path = _write_local(tmp_path, "test", TEXTS, STARS)
    loaded = load_yelp_stars("test", data_dir=tmp_path)
    assert loaded.source == f"local Parquet: {path} ({STARS_STAND_IN_NOTE})"
    assert loaded.stand_in and loaded.hub_error == "cannot resolve huggingface.co"
    assert loaded.texts == [TEXTS[i] for i in KEPT] and loaded.fingerprint.startswith("parquet:")
    monkeypatch.setenv("TOKEN_SELECTION_DATA", str(tmp_path))
    assert load_yelp_stars("test").texts == loaded.texts  # the variable names the same directory


def test_without_either_source_the_message_names_what_to_set(monkeypatch, tmp_path):
    _hub_failing(monkeypatch, "offline")
    monkeypatch.delenv("TOKEN_SELECTION_DATA", raising=False)
    message = (
        "Could not load Yelp/yelp_review_full from the Hugging Face hub (offline), and TOKEN_SELECTION_DATA is not set. "
        "Set TOKEN_SELECTION_DATA (or pass data_dir=) to a directory holding yelp_review_full/train.parquet "
        "with columns text, label (0..4 = 1..5 stars)."
    )
    with pytest.raises(FileNotFoundError, match=re.escape(message)):
        load_yelp_stars("train")
    missing = tmp_path / "yelp_review_full" / "test.parquet"
    with pytest.raises(FileNotFoundError, match=re.escape(f"(offline), and the local copy {missing} does not exist.")):
        load_yelp_stars("test", data_dir=tmp_path)


def _star_reviews(n: int, split: str, unique_words: bool) -> StarReviews:
    """Reviews whose class words follow the label (0..3), each with a word of its own when ``unique_words``."""
    rng = np.random.default_rng(0 if split == "train" else 1)
    labels = rng.integers(0, 4, n)
    words = ["awful", "poor", "good", "superb"]
    texts = [f"the {words[y]} food w{split}{i}" if unique_words else f"the {words[y]} food" for i, y in enumerate(labels)]
    place = "somewhere" if split == "train" else "elsewhere"  # each split names its own file
    return StarReviews(texts, labels.astype(np.int64), f"{place} ({split})", f"fp-{split}", True, "down")


@pytest.fixture
def star_data(monkeypatch):
    """``load_yelp_stars`` replaced by fixed reviews (160 train, 40 test); the calls it gets are recorded."""
    calls = []
    parts = {"train": _star_reviews(160, "train", True), "test": _star_reviews(40, "test", False)}

    def load(split, *, limit=None, seed=0, data_dir=None):
        calls.append((split, limit, seed))
        return parts[split]

    monkeypatch.setattr(yelp_stars, "load_yelp_stars", load)
    return SimpleNamespace(calls=calls, **parts)


def test_prepare_builds_the_vocabulary_from_the_train_part_and_holds_out_a_seeded_share(star_data):
    settings = real_data_settings("fast", "yelp_polarity", T=5, min_count=1, limit=900, validation_fraction=0.25, seed=4)
    data = prepare_yelp_stars(settings, progress=False)
    assert star_data.calls == [("train", 900, 4), ("test", 900, 4)]  # each split under the settings' limit and seed
    assert len(data.train) + len(data.validation) == 160 and len(data.test) == 40
    assert 0.15 < len(data.validation) / 160 < 0.35
    own = {w for w in data.vocab if w.startswith("wtrain")}
    assert len(own) == len(data.train)  # every train-part review's own word, and no held-out review's
    assert data.train.X.shape == (len(data.train), 5) and data.test.X.shape == (40, 5)
    vocab = {word: i for i, word in enumerate(data.vocab)}
    for split in (data.train, data.validation):
        for row, y in zip(split.X.tolist(), split.y.tolist(), strict=True):
            assert row[1] == vocab[["awful", "poor", "good", "superb"][y]]  # each label stays with its review
    assert torch.all(data.validation.X[:, 3] == UNK_ID)  # a held-out review's own word (the 4th token) is unknown
    assert torch.all(data.train.X[:, 3] > UNK_ID) and torch.all(data.train.X[:, 4] == 0)  # then padding
    assert data.train.y.dtype == torch.int64 and set(data.test.y.tolist()) <= {0, 1, 2, 3}
    assert torch.equal(data.test.y, torch.from_numpy(star_data.test.labels))
    other = prepare_yelp_stars(settings.__class__(**{**vars(settings), "seed": 5}), progress=False)
    assert other.validation.X.tolist() != data.validation.X.tolist()  # the seed draws the split
    assert prepare_yelp_stars(settings, progress=False).validation.X.tolist() == data.validation.X.tolist()


def test_prepare_keeps_the_provenance_and_every_data_setting(star_data):
    settings = real_data_settings("fast", "yelp_polarity", T=6, min_count=2, max_vocab=3)
    data = prepare_yelp_stars(settings, progress=False)
    assert data.name == "yelp_stars" and data.vocab_size == 3 + 2  # <pad>, <unk> and the 3 most frequent words
    assert data.train.source == "somewhere; 1, 2, 4, 5 stars; train part"  # " (train)" dropped
    assert data.validation.source == "somewhere; 1, 2, 4, 5 stars; validation part"
    assert data.test.source == "elsewhere; 1, 2, 4, 5 stars; test split"  # the test file, not the train file
    assert data.test_texts == star_data.test.texts
    assert data.config == {
        "kind": "yelp_stars",
        "source": ["fp-train", "fp-test"],
        "classes": [0, 1, 3, 4],
        "T": 6,
        "min_count": 2,
        "max_vocab": 3,
        "limit": settings.limit,
        "validation_fraction": 0.1,
        "seed": 0,
    }
    assert data.cache_path == Path("(not cached)") and data.from_cache is False and 0 <= data.seconds < 60
    for split in (data.train, data.validation, data.test):
        assert torch.equal(split.mask, split.X != 0)  # each split keeps its own padding mask
    assert data.stand_in and data.hub_error == "down"
    stand_in = "(a stand-in built from real Yelp reviews, not the yelp_review_full rows)"
    assert data.source_label == f"local Parquet copy of yelp_review_full {stand_in}"


def test_prepare_shows_the_tokenising_progress_unless_told_not_to(star_data, monkeypatch):
    shown = []
    encode = yelp_stars.encode_texts
    monkeypatch.setattr(yelp_stars, "encode_texts", lambda *a, progress: shown.append(progress) or encode(*a, progress=False))
    settings = real_data_settings("fast", "yelp_polarity", T=5, min_count=1)
    prepare_yelp_stars(settings)
    assert shown == [True, True]  # train and test, with a progress bar by default
    prepare_yelp_stars(settings, progress=False)
    assert shown[2:] == [False, False]


def test_a_word_below_min_count_is_unknown(star_data):
    data = prepare_yelp_stars(real_data_settings("fast", "yelp_polarity", T=5, min_count=2), progress=False)
    assert not any(w.startswith("wtrain") for w in data.vocab)  # each seen once: below min_count 2
    assert {"the", "food"} <= set(data.vocab)


def test_run_yelp_stars_trains_the_multiclass_model_jointly_on_the_prepared_data(monkeypatch):
    seen = {}
    monkeypatch.setattr(yelp_stars, "prepare_yelp_stars", lambda s, *, progress: seen.update(prepared=(s, progress)) or "DATA")

    def run(kind, mode, settings, *, data, progress):
        seen["run"] = (kind, mode, settings, data, progress)
        return "RUN"

    monkeypatch.setattr(yelp_stars, "run_experiment", run)
    settings = real_data_settings("fast", "yelp_polarity", d=8)
    assert yelp_stars.run_yelp_stars(settings, progress=False) == "RUN"
    assert seen == {"prepared": (settings, False), "run": ("multiclass", "joint", settings, "DATA", False)}
    monkeypatch.setenv("TOKEN_SELECTION_SCALE", "full")
    yelp_stars.run_yelp_stars()
    assert seen["run"][2] == real_data_settings("full", "yelp_polarity") and seen["run"][4] is True
    seen.clear()
    assert yelp_stars.run_yelp_stars(settings, data="GIVEN", progress=False) == "RUN"
    assert seen == {"run": ("multiclass", "joint", settings, "GIVEN", False)}  # given data: nothing prepared again
