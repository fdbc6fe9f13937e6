import numpy as np
import pandas as pd
import pytest

from token_selection.real_data import reviews


@pytest.fixture
def hub_down(monkeypatch):
    """Make every hub attempt fail at once, as without network."""

    def fail(name, split):
        raise ConnectionError("no network in tests")

    monkeypatch.setattr(reviews, "_load_from_hub", fail)


@pytest.fixture
def local_dir(tmp_path):
    texts, labels = reviews.make_toy_reviews(40, seed=1)
    for name in ("imdb", "yelp_polarity"):
        reviews.write_parquet_split(tmp_path, name, "train", texts, labels)
        reviews.write_parquet_split(tmp_path, name, "test", texts[:10], labels[:10])
    return tmp_path


def test_hub_is_tried_first(monkeypatch, local_dir):
    calls = []

    def hub(name, split):
        calls.append((name, split))
        return ["good film", "bad film"], np.array([1, 0]), "hub:fingerprint"

    monkeypatch.setattr(reviews, "_load_from_hub", hub)
    loaded = reviews.load_reviews("imdb", "train", data_dir=local_dir)
    assert calls == [("imdb", "train")]
    assert loaded.source.startswith("Hugging Face hub: stanfordnlp/imdb")
    assert loaded.hub_error is None and not loaded.stand_in
    assert loaded.texts == ["good film", "bad film"]


def test_hub_failure_falls_back_to_local_parquet(hub_down, local_dir):
    loaded = reviews.load_reviews("imdb", "train", data_dir=local_dir)
    assert len(loaded) == 40
    assert loaded.source == f"local Parquet: {local_dir / 'imdb' / 'train.parquet'}"
    assert "ConnectionError: no network in tests" in loaded.hub_error
    assert loaded.labels.dtype == np.int64 and set(loaded.labels.tolist()) == {0, 1}


def test_environment_variable_names_the_local_directory(hub_down, local_dir, monkeypatch):
    monkeypatch.setenv(reviews.DATA_VARIABLE, str(local_dir))
    assert len(reviews.load_reviews("imdb", "test")) == 10


def test_yelp_local_copy_says_it_is_a_stand_in(hub_down, local_dir):
    loaded = reviews.load_reviews("yelp_polarity", "test", data_dir=local_dir)
    assert loaded.stand_in
    assert "stand-in" in loaded.source and "not the Zhang et al. rows" in loaded.source


def test_clear_error_when_nothing_is_available(hub_down, monkeypatch, tmp_path):
    monkeypatch.delenv(reviews.DATA_VARIABLE, raising=False)
    with pytest.raises(FileNotFoundError, match="TOKEN_SELECTION_DATA"):
        reviews.load_reviews("imdb", "train")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        reviews.load_reviews("imdb", "train", data_dir=tmp_path)


def test_offline_hub_fails_fast_and_is_reported(monkeypatch, local_dir):
    # The real hub path with HF_HUB_OFFLINE=1: datasets refuses at once and the reason is kept.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_CACHE", str(local_dir / "hf-cache"))
    loaded = reviews.load_reviews("imdb", "test", data_dir=local_dir)
    assert loaded.hub_error and loaded.source.startswith("local Parquet")


def test_bad_arguments(hub_down, local_dir):
    with pytest.raises(ValueError, match="name must be one of"):
        reviews.load_reviews("sst2", "train", data_dir=local_dir)
    with pytest.raises(ValueError, match="split must be one of"):
        reviews.load_reviews("imdb", "validation", data_dir=local_dir)
    with pytest.raises(ValueError, match="limit"):
        reviews.load_reviews("imdb", "train", data_dir=local_dir, limit=0)


def test_labels_are_validated(hub_down, tmp_path):
    path = tmp_path / "imdb" / "train.parquet"
    path.parent.mkdir()
    pd.DataFrame({"text": ["a", "b", "c"], "label": [0, 1, 2]}).to_parquet(path)
    with pytest.raises(ValueError, match=r"0 \(negative\) or 1 \(positive\).*\[2\]"):
        reviews.load_reviews("imdb", "train", data_dir=tmp_path)
    with pytest.raises(ValueError, match="integer class labels"):
        reviews.validated_labels(np.array([0.5, 1.0]))
    assert reviews.validated_labels(np.array([0.0, 1.0])).tolist() == [0, 1]


def test_limit_is_a_seeded_subset(hub_down, local_dir):
    a = reviews.load_reviews("imdb", "train", data_dir=local_dir, limit=15, seed=3)
    b = reviews.load_reviews("imdb", "train", data_dir=local_dir, limit=15, seed=3)
    c = reviews.load_reviews("imdb", "train", data_dir=local_dir, limit=15, seed=4)
    everything = reviews.load_reviews("imdb", "train", data_dir=local_dir)
    assert len(a) == 15 and a.texts == b.texts and a.texts != c.texts
    assert set(a.texts) <= set(everything.texts)
    assert "random 15" in a.source and a.fingerprint != everything.fingerprint


def test_validation_split_is_stratified_disjoint_and_seeded(hub_down, local_dir):
    loaded = reviews.load_reviews("imdb", "train", data_dir=local_dir)
    rest, held = reviews.split_validation(loaded, 0.25, seed=0)
    again, _ = reviews.split_validation(loaded, 0.25, seed=0)
    other, _ = reviews.split_validation(loaded, 0.25, seed=1)
    assert len(rest) + len(held) == len(loaded)
    assert np.bincount(held.labels).tolist() == [5, 5]
    assert rest.texts == again.texts and rest.texts != other.texts
    with pytest.raises(ValueError, match="fraction"):
        reviews.split_validation(loaded, 1.0)


def test_toy_reviews_carry_their_label_words():
    texts, labels = reviews.make_toy_reviews(20, seed=0)
    for text, label in zip(texts, labels, strict=True):
        words = set(text.lower().replace(".<br /><br />", "").split())
        assert words & set(reviews._TOY_WORDS[int(label)])
        assert not words & set(reviews._TOY_WORDS[1 - int(label)])
