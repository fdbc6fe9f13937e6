import numpy as np
import pandas as pd
import pytest

from token_selection.real_data import yelp_stars
from token_selection.real_data.reviews import make_toy_reviews
from token_selection.real_data.settings import real_data_settings


def write_stars(directory, split, n, seed):
    """A local star-rated copy: toy texts; negative reviews get 1 star, or 3 stars for every third row (dropped by the
    loader), positive ones 5 stars: uneven counts per star, and the kept stars follow the sentiment."""
    texts, sentiment = make_toy_reviews(n, seed=seed)
    stars = np.where(sentiment == 1, 4, np.where(np.arange(n) % 3 == 0, 2, 0))
    path = directory / "yelp_review_full" / f"{split}.parquet"
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"text": texts, "label": stars}).to_parquet(path)
    return stars


def test_offline_it_reads_the_local_stand_in_and_drops_three_stars(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    stars = write_stars(tmp_path, "train", 301, 0)
    reviews = yelp_stars.load_yelp_stars("train", data_dir=tmp_path)
    assert reviews.stand_in and "stand-in" in reviews.source and "yelp_review_full" in reviews.hub_error
    kept = stars[stars != 2]
    assert len(reviews.texts) == len(kept) == (stars != 2).sum()
    assert np.array_equal(reviews.labels, np.array([{0: 0, 1: 1, 3: 2, 4: 3}[s] for s in kept]))
    assert set(reviews.labels.tolist()) == {0, 3}
    fewer = yelp_stars.load_yelp_stars("train", data_dir=tmp_path, limit=50, seed=1)
    assert len(fewer.texts) == 50 and fewer.fingerprint != reviews.fingerprint


def test_the_four_class_run_goes_through_the_pipeline(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TOKEN_SELECTION_DATA", str(tmp_path))
    monkeypatch.setenv("TOKEN_SELECTION_CACHE", str(tmp_path / "cache"))
    write_stars(tmp_path, "train", 400, 0)
    write_stars(tmp_path, "test", 200, 1)
    settings = real_data_settings("fast", "yelp_polarity", T=12, min_count=1, d=16, epochs=60, patience=60, lr=0.05, n_boot=20)
    run = yelp_stars.run_yelp_stars(settings, progress=False)
    assert run.dataset == "yelp_stars" and run.kind == "multiclass"
    assert [entry["class"] for entry in run.metrics["classes"]] == [0, 1, 2, 3]
    assert run.metrics["stand_in"] and "yelp_review_full" in run.metrics["source"]
    # the kept stars (1 and 5) follow the toy sentiment, which the model learns
    assert run.test_accuracy > 0.9


def test_without_the_hub_or_a_local_copy_it_says_what_to_set(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.delenv("TOKEN_SELECTION_DATA", raising=False)
    with pytest.raises(FileNotFoundError, match="TOKEN_SELECTION_DATA is not set"):
        yelp_stars.load_yelp_stars("train")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        yelp_stars.load_yelp_stars("test", data_dir=tmp_path)


def test_bad_labels_and_splits_are_refused(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    path = tmp_path / "yelp_review_full" / "train.parquet"
    path.parent.mkdir(parents=True)
    pd.DataFrame({"text": ["a", "b"], "label": [0, 5]}).to_parquet(path)
    with pytest.raises(ValueError, match="0..4"):
        yelp_stars.load_yelp_stars("train", data_dir=tmp_path)
    with pytest.raises(ValueError, match="split"):
        yelp_stars.load_yelp_stars("validation", data_dir=tmp_path)
