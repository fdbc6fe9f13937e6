"""The review count whose own vocabulary has a given size: the count on real (toy) text, the bisection on stand-in
sizes (monotone and not, the bracket's stopping width, an unreachable target), and the runner's arms."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from token_selection.real_data import reviews
from token_selection.real_data import vocabulary_match as vm
from token_selection.real_data.settings import real_data_settings


@pytest.fixture
def toy_dir(tmp_path, monkeypatch):
    """400 toy training reviews (alternating labels) as a local Parquet copy; the hub refused."""
    texts, labels = reviews.make_toy_reviews(400, seed=0)
    texts = [f"{text} word{i % 97}" for i, text in enumerate(texts)]  # rare words: the vocabulary grows with the draw
    reviews.write_parquet_split(tmp_path, "imdb", "train", texts, labels)
    monkeypatch.setattr(reviews, "_load_from_hub", lambda name, split: (_ for _ in ()).throw(ConnectionError("offline")))
    return tmp_path


def test_the_vocabulary_of_a_draw_is_what_the_tokeniser_keeps_of_its_training_part(toy_dir):
    small = vm.training_vocabulary_size("imdb", 60, min_count=1, data_dir=toy_dir)
    large = vm.training_vocabulary_size("imdb", 400, min_count=1, data_dir=toy_dir)
    assert 0 < small < large
    # seen at least 3 times: fewer words than seen once; the 97 rare words appear 4 or 5 times in 360 reviews
    assert vm.training_vocabulary_size("imdb", 400, min_count=3, data_dir=toy_dir) < large
    assert vm.training_vocabulary_size("imdb", 400, min_count=1, seed=1, data_dir=toy_dir) == large  # all reviews


def _sizes(monkeypatch, table):
    calls = []

    def size(dataset, limit, *, min_count, seed, validation_fraction, data_dir):
        calls.append(limit)
        return table(limit)

    monkeypatch.setattr(vm, "training_vocabulary_size", size)
    return calls


def test_the_bisection_brackets_the_target_and_keeps_the_closest_size(monkeypatch):
    calls = _sizes(monkeypatch, lambda limit: limit // 2)  # 1,000 words need 2,000 reviews
    # 10000 -> 5050 -> 2575 -> 1337 -> 1956 -> 2265 -> 2110 -> 2033 -> 1994 -> 2013, then [1994, 2013] is 19 wide
    assert vm.matched_limit("imdb", 1000, min_count=10, low=100, high=10_000) == (1994, 997)
    assert calls == [10_000, 5050, 2575, 1337, 1956, 2265, 2110, 2033, 1994, 2013]


def test_the_bracket_stops_at_the_search_step(monkeypatch):
    calls = _sizes(monkeypatch, lambda limit: limit)
    assert vm.matched_limit("imdb", 110, min_count=1, low=100, high=100 + vm.SEARCH_STEP) == (125, 125)
    assert calls == [100 + vm.SEARCH_STEP]  # already as narrow as the step: no bisection
    calls.clear()
    assert vm.matched_limit("imdb", 110, min_count=1, low=100, high=101 + vm.SEARCH_STEP) == (113, 113)
    assert calls == [126, 113]


def test_a_draw_that_is_not_monotone_still_gives_the_closest_size_seen(monkeypatch):
    _sizes(monkeypatch, lambda limit: 900 if limit == 2575 else limit // 2)  # a dip below the target
    # after the dip the bracket moves up and every later size overshoots: 900 (100 short) stays the closest
    assert vm.matched_limit("imdb", 1000, min_count=1, low=100, high=10_000) == (2575, 900)


def test_an_unreachable_or_empty_target_is_refused_with_what_was_found(monkeypatch):
    _sizes(monkeypatch, lambda limit: 50)
    with pytest.raises(ValueError, match="5000 imdb reviews give 50 words seen at least 10 times, fewer than 60"):
        vm.matched_limit("imdb", 60, min_count=10, high=5000)
    with pytest.raises(ValueError, match="target must be a positive vocabulary size, got 0"):
        vm.matched_limit("imdb", 0, min_count=10, high=5000)
    assert vm.matched_limit("imdb", 50, min_count=10, high=5000)[1] == 50  # exactly reached at the top


def test_the_settings_take_the_rebuttals_size_and_both_readings():
    settings = vm.matched_vocabulary_settings("full")
    assert settings["target"] == 7766 and settings["min_counts"] == [1, 10] and settings["dataset"] == "imdb"
    assert settings["preset"] == real_data_settings("full", "imdb").as_dict()


def test_the_runner_trains_both_arms_on_the_subset_matched_at_the_presets_min_count(monkeypatch):
    searched, loaded, runs = [], [], []

    def matched(dataset, target, *, min_count, seed):
        searched.append((dataset, target, min_count, seed))
        return (400 if min_count == 1 else 6000), target + min_count

    monkeypatch.setattr(vm, "matched_limit", matched)
    monkeypatch.setattr(vm, "load_reviews", lambda dataset, split: SimpleNamespace(labels=[0] * 25_000))
    wholes = []
    monkeypatch.setattr(
        vm, "training_vocabulary_size",
        lambda dataset, limit, *, min_count, seed: wholes.append((dataset, limit, min_count, seed)) or 19_000 + min_count,
    )  # fmt: skip
    data = SimpleNamespace(vocab_size=7778, train=[0] * 5400, test=[0] * 6000)
    monkeypatch.setattr(vm, "load_data", lambda s, *, progress: loaded.append(s) or data)

    def run(kind, mode, s, *, data, progress):
        runs.append((kind, mode, s.limit, s.max_vocab))
        return SimpleNamespace(test_accuracy=0.8 if mode == "joint" else 0.7, history=SimpleNamespace(best_epoch=3))

    monkeypatch.setattr(vm, "run_experiment", run)
    result = vm.run_matched_vocabulary(vm.matched_vocabulary_settings("fast"))
    assert searched == [("imdb", 7766, 1, 0), ("imdb", 7766, 10, 0)]
    assert wholes == [("imdb", 25_000, 1, 0), ("imdb", 25_000, 10, 0)]
    assert loaded[0].limit == 6000 and loaded[0].max_vocab is None
    assert runs == [("one_layer", "joint", 6000, None), ("one_layer", "frozen_random", 6000, None)]
    assert result == {
        "matches": {
            "1": {"limit": 400, "vocabulary": 7767, "all_reviews": 25_000, "all_vocabulary": 19_001},
            "10": {"limit": 6000, "vocabulary": 7776, "all_reviews": 25_000, "all_vocabulary": 19_010},
        },
        "vocab_size": 7776, "n_train": 5400, "n_test": 6000,
        "arms": {"joint": {"test_accuracy": 0.8, "best_epoch": 3}, "frozen_random": {"test_accuracy": 0.7, "best_epoch": 3}},
    }  # fmt: skip
