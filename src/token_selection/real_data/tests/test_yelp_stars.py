import numpy as np
import pytest

from token_selection.real_data import yelp_stars
from token_selection.real_data.reviews import make_toy_reviews
from token_selection.real_data.settings import real_data_settings


def fake_hub(split, *, limit=None, seed=0):
    """Toy reviews with 4 classes: the toy sentiment label and, independently, the parity of the row."""
    texts, labels = make_toy_reviews(400 if split == "train" else 200, seed=0 if split == "train" else 1)
    return texts, 2 * labels + np.arange(len(labels)) % 2


def test_the_four_class_run_goes_through_the_pipeline(monkeypatch, tmp_path):
    monkeypatch.setattr(yelp_stars, "load_yelp_stars", fake_hub)
    monkeypatch.setenv("TOKEN_SELECTION_CACHE", str(tmp_path))
    settings = real_data_settings("fast", "yelp_polarity", T=12, min_count=1, d=16, epochs=5, n_boot=20)
    run = yelp_stars.run_yelp_stars(settings, progress=False)
    assert run.dataset == "yelp_stars" and run.kind == "multiclass" and run.record is None  # not a preset: no record
    assert [entry["class"] for entry in run.metrics["classes"]] == [0, 1, 2, 3]
    # the sentiment half of the label is learnable, the parity half is not: about 50 % at most
    assert 0.35 < run.test_accuracy < 0.65


def test_without_the_hub_it_says_why(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ConnectionError, match="HF_HUB_OFFLINE"):
        yelp_stars.load_yelp_stars("train")
