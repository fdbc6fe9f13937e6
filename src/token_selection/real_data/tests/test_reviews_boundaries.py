"""Loading reviews at its edges: the hub check, the local directory, limits on the boundary, the validation split's
rounding, the messages of every refusal, and the toy reviews' promised shape. All offline and in milliseconds."""

from __future__ import annotations

import re
import socket
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from token_selection.real_data import reviews

PROXIES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY")


@pytest.fixture
def clean_network_env(monkeypatch):
    """No offline switch, no proxy, no endpoint: the hub check then depends on name resolution alone."""
    for key in ("HF_HUB_OFFLINE", "HF_ENDPOINT", *PROXIES):
        monkeypatch.delenv(key, raising=False)
    return monkeypatch


def _resolver(monkeypatch, error: OSError | None = None) -> list:
    """Replace ``socket.getaddrinfo``; return the list of the (host, port) pairs it is asked for."""
    asked = []

    def getaddrinfo(host, port, *args, **kwargs):
        asked.append((host, port))
        if error is not None:
            raise error
        return [("resolved",)]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


def test_the_hub_check_resolves_the_default_host_on_port_443(clean_network_env):
    asked = _resolver(clean_network_env)
    assert reviews._hub_unreachable_reason() is None
    assert asked == [("huggingface.co", 443)]


def test_the_hub_check_reads_the_host_out_of_hf_endpoint_and_says_why_it_fails(clean_network_env):
    clean_network_env.setenv("HF_ENDPOINT", "https://mirror.example.org:8443/some/path")
    asked = _resolver(clean_network_env, OSError("name unknown"))
    assert reviews._hub_unreachable_reason() == "cannot resolve mirror.example.org (name unknown)"
    assert asked == [("mirror.example.org", 443)]


@pytest.mark.parametrize(
    ("endpoint", "host"),
    [("https://hf-mirror.example.org/api", "hf-mirror.example.org"), ("hf.example.net:8080", "hf.example.net")],
)
def test_the_host_is_read_with_or_without_a_scheme_port_or_path(clean_network_env, endpoint, host):
    clean_network_env.setenv("HF_ENDPOINT", endpoint)
    asked = _resolver(clean_network_env)
    assert reviews._hub_unreachable_reason() is None and asked == [(host, 443)]


@pytest.mark.parametrize("value", ["1", "true", "YES", " on "])
def test_hf_hub_offline_leaves_the_failure_to_datasets(clean_network_env, value):
    clean_network_env.setenv("HF_HUB_OFFLINE", value)
    asked = _resolver(clean_network_env, OSError("must not be asked"))
    assert reviews._hub_unreachable_reason() is None and asked == []


@pytest.mark.parametrize("value", ["0", "", "no"])
def test_hf_hub_offline_off_still_checks_the_name(clean_network_env, value):
    clean_network_env.setenv("HF_HUB_OFFLINE", value)
    asked = _resolver(clean_network_env, OSError("down"))
    assert reviews._hub_unreachable_reason() == "cannot resolve huggingface.co (down)" and len(asked) == 1


@pytest.mark.parametrize("proxy", PROXIES)
def test_behind_a_proxy_the_name_is_not_checked(clean_network_env, proxy):
    clean_network_env.setenv(proxy, "http://proxy.example:3128")
    asked = _resolver(clean_network_env, OSError("a proxy resolves names itself"))
    assert reviews._hub_unreachable_reason() is None and asked == []


def _fake_datasets(monkeypatch, texts, labels, fingerprint="f00d"):
    """A stand-in ``datasets`` module whose ``load_dataset`` records what it is asked for."""
    asked = []

    def load_dataset(hub_id, *, split):
        asked.append((hub_id, split))
        return _Table(texts, labels, fingerprint)

    monkeypatch.setitem(sys.modules, "datasets", SimpleNamespace(load_dataset=load_dataset))
    return asked


class _Table:
    """What ``datasets.load_dataset`` returns, as far as ``_load_from_hub`` reads it."""

    def __init__(self, texts, labels, fingerprint):
        self.columns, self._fingerprint = {"text": texts, "label": labels}, fingerprint

    def __getitem__(self, column):
        return self.columns[column]


def test_load_from_hub_names_the_dataset_and_its_fingerprint(clean_network_env):
    _resolver(clean_network_env)
    asked = _fake_datasets(clean_network_env, ("good", "bad", "fine"), [1, 0, 1], "abc123")
    texts, labels, fingerprint = reviews._load_from_hub("yelp_polarity", "test")
    assert asked == [("fancyzhx/yelp_polarity", "test")]
    assert texts == ["good", "bad", "fine"] and isinstance(texts, list)
    assert isinstance(labels, np.ndarray) and labels.tolist() == [1, 0, 1]
    assert fingerprint == "hub:fancyzhx/yelp_polarity:abc123"


def test_load_from_hub_raises_the_reason_without_asking_datasets(clean_network_env):
    _resolver(clean_network_env, OSError("no route"))
    asked = _fake_datasets(clean_network_env, ("a",), [1])
    with pytest.raises(ConnectionError, match=re.escape("cannot resolve huggingface.co (no route)")):
        reviews._load_from_hub("imdb", "train")
    assert asked == []


def test_the_data_directory_comes_from_the_argument_then_the_variable(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv(reviews.DATA_VARIABLE, "/elsewhere")
    assert reviews.data_directory("~/data") == tmp_path / "data"  # the argument wins, ~ expanded
    monkeypatch.setenv(reviews.DATA_VARIABLE, "  ~/reviews  ")
    assert reviews.data_directory(None) == tmp_path / "reviews"  # blanks stripped, ~ expanded
    monkeypatch.setenv(reviews.DATA_VARIABLE, "   ")
    assert reviews.data_directory(None) is None
    monkeypatch.delenv(reviews.DATA_VARIABLE)
    assert reviews.data_directory(None) is None


def _hub_serving(monkeypatch, texts, labels, fingerprint="hub:fp"):
    monkeypatch.setattr(reviews, "_load_from_hub", lambda name, split: (list(texts), np.asarray(labels), fingerprint))


def _hub_failing(monkeypatch, error: Exception):
    def fail(name, split):
        raise error

    monkeypatch.setattr(reviews, "_load_from_hub", fail)


def test_a_hub_load_says_which_dataset_and_split(monkeypatch):
    _hub_serving(monkeypatch, ["x", "y"], [0, 1])
    loaded = reviews.load_reviews("yelp_polarity", "test")
    assert loaded.source == "Hugging Face hub: fancyzhx/yelp_polarity (test)"
    assert (loaded.name, loaded.split, loaded.fingerprint, loaded.stand_in, loaded.hub_error) == (
        "yelp_polarity",
        "test",
        "hub:fp",
        False,
        None,
    )


def test_the_hub_error_keeps_its_type_and_first_line_only(monkeypatch, tmp_path):
    reviews.write_parquet_split(tmp_path, "imdb", "train", ["a b", "c d", "e f"], [1, 0, 0])
    _hub_failing(monkeypatch, TimeoutError("read timed out\nretry 2 of 5\nretry 3 of 5"))
    assert reviews.load_reviews("imdb", "train", data_dir=tmp_path).hub_error == "TimeoutError: read timed out"
    _hub_failing(monkeypatch, RuntimeError())
    assert reviews.load_reviews("imdb", "train", data_dir=tmp_path).hub_error == "RuntimeError: no message"


def test_the_local_sources_say_where_they_came_from(monkeypatch, tmp_path):
    _hub_failing(monkeypatch, ConnectionError("offline"))
    for name in ("imdb", "yelp_polarity"):
        reviews.write_parquet_split(tmp_path, name, "test", ["good", "bad", "ok"], [1, 0, 1])
    imdb = reviews.load_reviews("imdb", "test", data_dir=tmp_path)
    assert imdb.source == f"local Parquet: {tmp_path / 'imdb' / 'test.parquet'}" and not imdb.stand_in
    assert imdb.fingerprint.startswith("parquet:") and len(imdb.fingerprint) == len("parquet:") + 64
    yelp = reviews.load_reviews("yelp_polarity", "test", data_dir=tmp_path)
    assert yelp.source == f"local Parquet: {tmp_path / 'yelp_polarity' / 'test.parquet'} ({reviews.STAND_IN_NOTE})"
    assert yelp.stand_in and yelp.hub_error == "ConnectionError: offline"


def test_neither_source_names_what_to_set(monkeypatch, tmp_path):
    _hub_failing(monkeypatch, ConnectionError("offline"))
    monkeypatch.delenv(reviews.DATA_VARIABLE, raising=False)
    message = (
        "Could not load 'imdb' from the Hugging Face hub (ConnectionError: offline), and no local copy is configured. "
        "Set the environment variable TOKEN_SELECTION_DATA (or pass data_dir=) to a directory holding "
        "imdb/test.parquet with columns text, label."
    )
    with pytest.raises(FileNotFoundError, match=re.escape(message)):
        reviews.load_reviews("imdb", "test")
    missing = tmp_path / "yelp_polarity" / "train.parquet"
    message = (
        "Could not load 'yelp_polarity' from the Hugging Face hub (ConnectionError: offline), and the local copy "
        f"{missing} does not exist. Set TOKEN_SELECTION_DATA (or pass data_dir=) to a directory holding "
        "yelp_polarity/train.parquet."
    )
    with pytest.raises(FileNotFoundError, match=re.escape(message)):
        reviews.load_reviews("yelp_polarity", "train", data_dir=tmp_path)


def test_bad_names_splits_and_limits_are_refused_with_what_is_allowed(monkeypatch):
    _hub_serving(monkeypatch, ["x", "y"], [0, 1])
    with pytest.raises(ValueError, match=re.escape("name must be one of ['imdb', 'yelp_polarity'], got 'sst2'")):
        reviews.load_reviews("sst2", "train")
    with pytest.raises(ValueError, match=re.escape("split must be one of ('train', 'test'), got 'dev'")):
        reviews.load_reviews("imdb", "dev")
    with pytest.raises(ValueError, match="^limit must be an integer >= 1, got -3"):
        reviews.load_reviews("imdb", "train", limit=-3)
    assert reviews.check_dataset_name("imdb") == "imdb"


def test_texts_and_labels_of_other_lengths_are_refused(monkeypatch):
    _hub_serving(monkeypatch, ["a", "b", "c"], [0, 1])
    with pytest.raises(ValueError, match=re.escape("imdb/train has 3 texts but 2 labels")):
        reviews.load_reviews("imdb", "train")
    _hub_serving(monkeypatch, ["a", "b"], [0, 3])
    with pytest.raises(ValueError, match=re.escape("labels of imdb/test must all be 0 (negative) or 1 (positive)")):
        reviews.load_reviews("imdb", "test")


def test_a_limit_at_the_size_keeps_everything_and_one_below_draws_a_subset(monkeypatch):
    texts = [f"review {i}" for i in range(1201)]
    labels = np.arange(1201) % 2
    _hub_serving(monkeypatch, texts, labels)
    whole = reviews.load_reviews("imdb", "train", limit=1201, seed=5)  # the boundary: nothing to drop
    assert whole.texts == texts and whole.fingerprint == "hub:fp" and "random" not in whole.source
    assert reviews.load_reviews("imdb", "train", limit=5000).texts == texts
    fewer = reviews.load_reviews("imdb", "train", limit=1200, seed=5)
    assert len(fewer) == 1200 and fewer.fingerprint == "hub:fp:limit=1200:seed=5"
    assert fewer.source == "Hugging Face hub: stanfordnlp/imdb (train), random 1,200 of them (seed 5)"
    kept = [int(t.split()[1]) for t in fewer.texts]
    assert kept == sorted(set(kept))  # no review twice, in the source's order
    assert fewer.labels.tolist() == [i % 2 for i in kept]  # each label stays with its text
    other = reviews.load_reviews("imdb", "train", limit=1200, seed=6)
    assert other.texts != fewer.texts and other.fingerprint.endswith(":seed=6")
    unseeded = reviews.load_reviews("imdb", "train", limit=1200)
    assert unseeded.texts == reviews.load_reviews("imdb", "train", limit=1200, seed=0).texts  # seed 0 by default


def test_labels_are_checked_with_the_name_they_are_given():
    with pytest.raises(ValueError, match=re.escape("scores must be one-dimensional, got shape (2, 2)")):
        reviews.validated_labels([[0, 1], [1, 0]], "scores")
    with pytest.raises(ValueError, match=re.escape("labels must hold integer class labels 0/1, got dtype <U3")):
        reviews.validated_labels(np.array(["pos", "neg"]))
    with pytest.raises(ValueError, match=re.escape("y must hold integer class labels 0/1, got dtype float64")):
        reviews.validated_labels(np.array([1.0, 0.25]), "y")
    other = re.escape("labels must all be 0 (negative) or 1 (positive), got other values [-1, 2, 3, 4, 5]")
    with pytest.raises(ValueError, match=other):
        reviews.validated_labels([0, 1, 7, 6, 5, 4, 3, 2, -1])  # sorted, the first five only
    for good in ([True, False], np.array([1, 0], dtype=np.uint8), [1.0, 0.0], [0, 0]):
        converted = reviews.validated_labels(good)
        assert converted.dtype == np.int64 and converted.tolist() == [int(v) for v in good]


def _reviews(labels, fingerprint="fp", stand_in=False, hub_error=None) -> reviews.Reviews:
    texts = [f"text {i}" for i in range(len(labels))]
    return reviews.Reviews("imdb", "train", texts, np.asarray(labels), "somewhere", fingerprint, stand_in, hub_error)


def test_the_validation_split_rounds_each_class_and_keeps_the_provenance():
    # 7 negatives and 13 positives: 0.25 of each is 1.75 -> 2 and 3.25 -> 3 held out (rounding, not truncation)
    labels = [0] * 7 + [1] * 13
    data = _reviews(np.random.default_rng(0).permutation(labels), stand_in=True, hub_error="down")
    rest, held = reviews.split_validation(data, 0.25, seed=2)
    assert np.bincount(held.labels, minlength=2).tolist() == [2, 3]
    assert np.bincount(rest.labels, minlength=2).tolist() == [5, 10]
    assert sorted(rest.texts + held.texts) == sorted(data.texts)
    for part, label in ((rest, "train"), (held, "validation")):
        assert part.split == f"train/{label}" and part.name == "imdb"
        assert part.source == f"somewhere; {label} part (seed 2, 25% held out)"
        assert part.fingerprint == f"fp:{label}:0.25:2"
        assert part.stand_in and part.hub_error == "down"
        for text, y in zip(part.texts, part.labels, strict=True):
            assert y == data.labels[data.texts.index(text)]  # each label stays with its text
    assert reviews.split_validation(data, 0.25)[1].texts == reviews.split_validation(data, 0.25, seed=0)[1].texts
    assert reviews.split_validation(data)[1].fingerprint == "fp:validation:0.1:0"  # 10% by default


@pytest.mark.parametrize("fraction", [0.0, 1.0, -0.1, 1.5])
def test_the_validation_fraction_must_lie_strictly_inside_zero_and_one(fraction):
    with pytest.raises(ValueError, match=re.escape(f"fraction must lie strictly between 0 and 1, got {fraction}")):
        reviews.split_validation(_reviews([0, 1] * 5), fraction)


def test_a_fraction_that_holds_out_nothing_or_everything_is_refused():
    data = _reviews([0, 1] * 5)  # 5 per class
    with pytest.raises(ValueError, match=re.escape("fraction=0.05 leaves an empty part of 10 reviews")):
        reviews.split_validation(data, 0.05)  # 0.25 per class rounds to 0
    with pytest.raises(ValueError, match=re.escape("fraction=0.95 leaves an empty part of 10 reviews")):
        reviews.split_validation(data, 0.95)  # 4.75 per class rounds to 5: everything
    with pytest.raises(ValueError, match="leaves an empty part"):
        reviews.split_validation(data, 0.1)  # 0.5 per class rounds to even, 0: nothing held
    rest, held = reviews.split_validation(data, 0.3)  # 1.5 per class rounds to 2
    assert (len(rest), len(held)) == (6, 4)


def test_toy_reviews_have_the_promised_shape():
    texts, labels = reviews.make_toy_reviews(300, length=9, seed=4)
    assert labels.dtype == np.int64 and labels.tolist() == [i % 2 for i in range(300)]
    own_counts, breaks = [], 0
    for text, label in zip(texts, labels, strict=True):
        words = text.replace(".<br /><br />", "|").split()  # the break holds spaces: mark it first
        assert len(words) == 9 and words[0][0].isupper() and words[0][1:] == words[0][1:].lower()
        breaks += words[4].endswith("|")  # the line break follows the middle word
        assert all("|" not in w for i, w in enumerate(words) if i != 4) and words[4].count("|") <= 1
        plain = [w.lower().removesuffix("|") for w in words]
        assert set(plain) <= set(reviews._TOY_WORDS[-1]) | set(reviews._TOY_WORDS[int(label)])
        own_counts.append(sum(w in reviews._TOY_WORDS[int(label)] for w in plain))
    assert set(own_counts) == {1, 2, 3}  # one to three words of its own class
    assert 0.2 < breaks / 300 < 0.4  # about 30% of the reviews hold a line break
    assert reviews.make_toy_reviews(300, length=9, seed=4)[0] == texts  # the same seed, the same reviews
    assert reviews.make_toy_reviews(20, length=9)[0] == reviews.make_toy_reviews(20, length=9, seed=0)[0]  # seed 0
    assert reviews.make_toy_reviews(20, length=9, seed=5)[0] != texts[:20]
    assert all(len(t.replace(".<br /><br />", "").split()) == 12 for t in reviews.make_toy_reviews(10)[0])  # 12 by default
    assert len(reviews.make_toy_reviews(4, length=4)[0]) == 4  # the shortest length allowed
    with pytest.raises(ValueError, match=re.escape("length must be an integer >= 4, got 3")):
        reviews.make_toy_reviews(4, length=3)
    with pytest.raises(ValueError, match="^n must be an integer >= 1, got 0"):
        reviews.make_toy_reviews(0)


def test_toy_reviews_hold_one_to_three_distinct_words_of_their_class_evenly():
    """At the shortest length, 4 words, class words drawn onto repeated positions would overwrite each other."""
    texts, labels = reviews.make_toy_reviews(600, length=4, seed=1)
    counts = [
        sum(w.lower() in reviews._TOY_WORDS[int(y)] for w in text.replace(".<br /><br />", "").split())
        for text, y in zip(texts, labels, strict=True)
    ]
    assert set(counts) == {1, 2, 3}
    # one, two or three words equally often: a mean of 2 (without distinct positions it would be about 1.7)
    assert 1.9 < sum(counts) / 600 < 2.1


def test_write_parquet_split_writes_what_load_reviews_reads(tmp_path):
    path = reviews.write_parquet_split(tmp_path / "new", "yelp_polarity", "train", ("good", "bad"), [True, False])
    assert path == tmp_path / "new" / "yelp_polarity" / "train.parquet" and isinstance(path, Path)
    frame = pd.read_parquet(path)
    assert list(frame.columns) == ["text", "label"] and frame["text"].tolist() == ["good", "bad"]
    assert frame["label"].tolist() == [1, 0] and frame["label"].dtype == np.int64
    with pytest.raises(ValueError, match=re.escape("name must be one of ['imdb', 'yelp_polarity'], got 'sst2'")):
        reviews.write_parquet_split(tmp_path, "sst2", "train", ["a"], [1])
    with pytest.raises(ValueError, match=re.escape("split must be one of ('train', 'test'), got 'dev'")):
        reviews.write_parquet_split(tmp_path, "imdb", "dev", ["a"], [1])
    with pytest.raises(ValueError, match="0 \\(negative\\) or 1"):
        reviews.write_parquet_split(tmp_path, "imdb", "test", ["a"], [2])
    assert not (tmp_path / "imdb" / "test.parquet").exists()  # refused before anything is written
