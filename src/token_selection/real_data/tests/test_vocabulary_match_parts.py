"""What each part of ``vocabulary_match`` hands on: the draw and split behind a vocabulary count (against the data
pipeline's own vocabulary), the defaults of the search, its comparison on the boundary, and the runner's settings."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from token_selection.real_data import reviews
from token_selection.real_data import vocabulary_match as vm
from token_selection.real_data.encoding import prepare_reviews
from token_selection.real_data.settings import REBUTTAL_VOCABULARY, real_data_settings


@pytest.fixture
def toy_dir(tmp_path, monkeypatch):
    texts, labels = reviews.make_toy_reviews(400, seed=0)
    texts = [f"{text} rare{i % 131} other{i % 53}" for i, text in enumerate(texts)]
    reviews.write_parquet_split(tmp_path, "imdb", "train", texts, labels)
    reviews.write_parquet_split(tmp_path, "imdb", "test", texts[:50], labels[:50])
    monkeypatch.setattr(reviews, "_load_from_hub", lambda name, split: (_ for _ in ()).throw(ConnectionError("offline")))
    return tmp_path


@pytest.mark.parametrize(("limit", "min_count", "seed", "fraction"), [(60, 1, 0, 0.1), (90, 2, 3, 0.3)])
def test_the_count_is_the_vocabulary_the_pipeline_builds_without_pad_and_unk(toy_dir, tmp_path, limit, min_count, seed, fraction):
    encoded = prepare_reviews("imdb", T=8, min_count=min_count, limit=limit, seed=seed, validation_fraction=fraction,
                              data_dir=toy_dir, cache_dir=tmp_path / "cache", progress=False)  # fmt: skip
    size = vm.training_vocabulary_size("imdb", limit, min_count=min_count, seed=seed, validation_fraction=fraction,
                                       data_dir=toy_dir)  # fmt: skip
    assert size == len(encoded.vocab) - 2


def test_the_count_depends_on_the_draw_and_its_defaults_are_seed_0_and_a_tenth_held_out(toy_dir):
    sizes = {seed: vm.training_vocabulary_size("imdb", 40, min_count=1, seed=seed, data_dir=toy_dir) for seed in range(4)}
    assert len(set(sizes.values())) > 1  # the draw matters
    assert vm.training_vocabulary_size("imdb", 40, min_count=1, data_dir=toy_dir) == sizes[0]
    held = {f: vm.training_vocabulary_size("imdb", 40, min_count=1, validation_fraction=f, data_dir=toy_dir) for f in (0.1, 0.5)}
    assert held[0.1] > held[0.5]  # fewer training reviews, fewer words
    assert vm.training_vocabulary_size("imdb", 40, min_count=1, validation_fraction=0.1, seed=0, data_dir=toy_dir) == sizes[0]


def _recorded(monkeypatch, table):
    calls = []

    def size(dataset, limit, *, min_count, seed, validation_fraction, data_dir):
        calls.append({"dataset": dataset, "limit": limit, "min_count": min_count, "seed": seed,
                      "fraction": validation_fraction, "data_dir": data_dir})  # fmt: skip
        return table(limit)

    monkeypatch.setattr(vm, "training_vocabulary_size", size)
    return calls


def test_the_search_hands_its_draw_to_every_count_and_defaults_to_seed_0(monkeypatch):
    calls = _recorded(monkeypatch, lambda limit: limit)
    vm.matched_limit("yelp_polarity", 300, min_count=7, high=400)
    assert {(c["dataset"], c["min_count"], c["seed"], c["fraction"], c["data_dir"]) for c in calls} == {
        ("yelp_polarity", 7, 0, 0.1, None)
    }
    calls.clear()
    vm.matched_limit("imdb", 300, min_count=2, seed=5, validation_fraction=0.25, data_dir="here", high=400)
    assert {(c["seed"], c["fraction"], c["data_dir"]) for c in calls} == {(5, 0.25, "here")}


def test_the_search_starts_from_every_review_and_from_100(monkeypatch):
    calls = _recorded(monkeypatch, lambda limit: limit)
    monkeypatch.setattr(vm, "load_reviews", lambda dataset, split, *, data_dir: SimpleNamespace(labels=[0] * 4000))
    vm.matched_limit("imdb", 3000, min_count=1)
    assert calls[0]["limit"] == 4000 and calls[1]["limit"] == (100 + 4000) // 2
    calls.clear()
    vm.matched_limit("imdb", 110, min_count=1, high=126)  # low 100: 26 wide, one more count; from 101 none
    assert [c["limit"] for c in calls] == [126, 113]


def test_a_target_of_one_word_is_searched_and_zero_refused(monkeypatch):
    calls = _recorded(monkeypatch, lambda limit: limit)
    assert vm.matched_limit("imdb", 1, min_count=1, low=0, high=20) == (20, 20)  # no bisection: 20 wide
    assert calls[0]["limit"] == 20
    with pytest.raises(ValueError, match="target must be a positive vocabulary size, got 0"):
        vm.matched_limit("imdb", 0, min_count=1, high=20)


def test_a_count_equal_to_the_target_moves_the_top_of_the_bracket(monkeypatch):
    calls = _recorded(monkeypatch, lambda limit: limit)
    assert vm.matched_limit("imdb", 5050, min_count=1, low=100, high=10_000) == (5050, 5050)
    assert [c["limit"] for c in calls][:3] == [10_000, 5050, 2575]  # equal: the search goes on below it


def test_the_settings_in_full():
    for scale in ("fast", "full"):
        assert vm.matched_vocabulary_settings(scale) == {
            "diagnosis": "matched_vocabulary", "scale": scale, "dataset": "imdb",
            "preset": real_data_settings(scale, "imdb").as_dict(), "target": REBUTTAL_VOCABULARY["imdb"],
            "min_counts": [1, 10], "seeds": [0],
        }  # fmt: skip
    assert real_data_settings("full", "imdb").as_dict() != real_data_settings("full", "yelp_polarity").as_dict()


@pytest.mark.parametrize("progress", [None, True])
def test_the_runner_keeps_its_scale_and_dataset_drops_the_truncation_and_hands_on_data_and_progress(monkeypatch, progress):
    searched, loaded, runs = [], [], []
    monkeypatch.setattr(vm, "matched_limit", lambda dataset, target, *, min_count, seed: searched.append(dataset) or (700, 7))
    monkeypatch.setattr(vm, "load_reviews", lambda dataset, split: SimpleNamespace(labels=[0] * 900))
    monkeypatch.setattr(vm, "training_vocabulary_size", lambda dataset, limit, *, min_count, seed: 99)
    data = SimpleNamespace(vocab_size=9, train=[0] * 600, test=[0] * 700)
    monkeypatch.setattr(vm, "load_data", lambda s, *, progress: loaded.append((s, progress)) or data)

    def run(kind, mode, s, *, data, progress):
        runs.append((s, data, progress))
        return SimpleNamespace(test_accuracy=0.5, history=SimpleNamespace(best_epoch=1))

    monkeypatch.setattr(vm, "run_experiment", run)
    settings = dict(vm.matched_vocabulary_settings("full"), dataset="yelp_polarity", min_counts=[10])
    kwargs = {} if progress is None else {"progress": progress}
    vm.run_matched_vocabulary(settings, **kwargs)
    expected = progress is True
    assert searched == ["yelp_polarity"]
    subset, shown = loaded[0]
    assert shown is expected and subset.scale == "full" and subset.dataset == "yelp_polarity"
    assert subset.d == real_data_settings("full").d and subset.max_vocab is None and subset.limit == 700
    assert [(s, d is data, p) for s, d, p in runs] == [(subset, True, expected)] * 2
