"""Every field of a selection_mass record on toy reviews with two seeds that are not 0 and 1 (the first seed's own
numbers kept), the settings the runner passes down, and every refusal of ``review_shares`` at its boundary."""

import re
from types import SimpleNamespace

import pytest
import torch

from token_selection.intervals import seed_interval
from token_selection.real_data import selection_mass as sm
from token_selection.real_data.encoding import EncodedSplit
from token_selection.real_data.measurements import token_importance
from token_selection.real_data.settings import real_data_settings

from .test_selection_mass import toy_split


def run_record(monkeypatch, *, scale="fast", seeds=(3, 1), min_count=2, top_fraction=0.3):
    """The runner on toy reviews (seed s loads the toy split drawn with s) with a stand-in model per arm."""
    splits = {seed: toy_split(seed=seed) for seed in seeds}
    loads, runs = [], []

    def load(s, *, progress):
        split, vocab = splits[s.seed]
        loads.append(SimpleNamespace(train=split, test=split, vocab=vocab, vocab_size=len(vocab), seed=s.seed))
        return loads[-1]

    def run(kind, mode, s, *, data, progress):
        assert data is loads[-1], "the arm is trained on the data just loaded for its seed"
        runs.append((mode, s.seed, s.d, s.scale))
        omega, _ = token_importance(data.train, data.vocab_size, min_count=1)
        scores = {"joint": 3.0 * torch.nan_to_num(omega.abs()), "one_step_frozen": torch.zeros(data.vocab_size)}
        return SimpleNamespace(model=SimpleNamespace(token_scores=lambda: scores.get(mode, -torch.nan_to_num(omega.abs()))),
                               test_accuracy=0.6 + s.seed / 100)  # fmt: skip

    monkeypatch.setattr(sm, "load_data", load)
    monkeypatch.setattr(sm, "run_experiment", run)
    settings = {**sm.selection_mass_settings(scale), "datasets": ["imdb"], "seeds": list(seeds),
                "importance_min_count": min_count, "top_fraction": top_fraction}  # fmt: skip
    return sm.run_selection_mass(settings), splits, runs


def test_each_seed_keeps_its_own_counts_and_the_first_seed_its_words(monkeypatch):
    metrics, splits, runs = run_record(monkeypatch)
    found = metrics["imdb"]
    assert metrics["seeds"] == [3, 1] and metrics["top_fraction"] == 0.3 and metrics["arms"] == list(sm.ARMS)
    for k, seed in enumerate((3, 1)):
        split, vocab = splits[seed]
        omega, counts = token_importance(split, len(vocab), min_count=2)
        important = sm.important_tokens(omega, 0.3)
        assert found["per_seed"]["measured_tokens"][k] == int(torch.isfinite(omega).sum())
        assert found["per_seed"]["important_tokens"][k] == int(important.sum()) < int(torch.isfinite(omega).sum())
        assert found["per_seed"]["threshold"][k] == pytest.approx(float(omega[important].abs().min()))
        summary = sm.summarise(sm.review_shares(-torch.nan_to_num(token_importance(split, len(vocab), min_count=1)[0].abs()),
                                                split, important, omega))  # fmt: skip
        for name in ("uniform", "top_uniform", "counted", "left_out", "top_counted"):
            assert found["per_seed"][name][k] == pytest.approx(summary[name]), (seed, name)
        if k == 0:
            assert (found["reviews"], found["vocab_size"], found["n_train"]) == (len(split), len(vocab), len(split))
            words = found["important_words"]
            assert len(words) == min(sm.TOP_WORDS, int(important.sum())) and set(words[0]) == {"word", "omega", "count"}
            first = vocab.index(words[0]["word"])
            assert words[0]["count"] == int(counts[first]) and words[0]["omega"] == pytest.approx(float(omega[first]))
            assert abs(words[0]["omega"]) == pytest.approx(float(omega[important].abs().max()))
    assert found["arms"]["joint"]["per_seed"]["test_accuracy"] == [0.63, 0.61]
    assert [r[:2] for r in runs] == [(arm, seed) for seed in (3, 1) for arm in sm.ARMS]


def test_intervals_stay_within_what_a_share_and_a_ratio_can_be():
    summary = sm._intervals({"share": [0.99, 0.5], "lift": [0.05, 3.0], "test_accuracy": [1.0, 0.4], "counted": [3, 9]})
    assert summary["share"]["high"] == 1.0 and summary["share"] == seed_interval([0.99, 0.5], bounds=(0.0, 1.0))
    assert summary["lift"]["low"] == 0.0 and summary["lift"]["high"] > 3.0
    assert summary["test_accuracy"]["high"] == 1.0 and set(summary) == {"share", "lift", "test_accuracy"}


def test_the_scale_the_minimum_count_and_the_fraction_reach_the_runs(monkeypatch):
    metrics, splits, runs = run_record(monkeypatch, scale="full", seeds=(2,), min_count=1, top_fraction=1.0)
    assert {(d, scale) for _, _, d, scale in runs} == {(real_data_settings("full").d, "full")}
    split, vocab = splits[2]
    omega, _ = token_importance(split, len(vocab), min_count=1)
    assert metrics["imdb"]["per_seed"]["important_tokens"] == [int(torch.isfinite(omega).sum())]  # fraction 1: all


def test_seeds_and_arms_must_both_be_given(monkeypatch):
    for seeds, arms in (([], ["joint"]), ([0], []), ([], [])):
        settings = {**sm.selection_mass_settings("fast"), "seeds": seeds, "arms": arms}
        with pytest.raises(ValueError, match=re.escape(f"seeds and arms must be non-empty, got seeds={seeds}, arms={arms}")):
            sm.measure_dataset("imdb", settings)


def test_the_important_fraction_is_refused_outside_zero_to_one_and_omega_must_be_a_vector():
    omega = torch.tensor([0.5, -0.2, float("nan")], dtype=torch.float64)
    assert sm.important_tokens(omega, 1).tolist() == [True, True, False]
    for bad in (1.0001, 2, 0, -0.5, "0.5"):
        with pytest.raises(ValueError, match=r"top_fraction must lie in \(0, 1\]"):
            sm.important_tokens(omega, bad)
    with pytest.raises(ValueError, match=r"omega must be 1-D \(V,\), got shape \(1, 3\)"):
        sm.important_tokens(omega[None, :])
    with pytest.raises(ValueError, match="omega has no measured \\(finite\\) token: nothing can be important"):
        sm.important_tokens(torch.full((3,), float("nan")))


def small():
    X = torch.tensor([[2, 3, 0], [3, 4, 4]])
    split = EncodedSplit(X, X != 0, torch.tensor([1, 0]), "toy")
    omega = torch.tensor([float("nan"), float("nan"), 0.5, -0.3, 0.1], dtype=torch.float64)
    return torch.zeros(5, dtype=torch.float64), split, omega > 0.4, omega


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda s, sp, i, o: (s[None, :], sp, i, o), r"must all be \(V,\), got shapes \(1, 5\), \(5,\), \(5,\)"),
        (lambda s, sp, i, o: (s, sp, i[:4], o), r"must all be \(V,\), got shapes \(5,\), \(4,\), \(5,\)"),
        (lambda s, sp, i, o: (s, sp, i, o[:4]), r"must all be \(V,\), got shapes \(5,\), \(5,\), \(4,\)"),
        (
            lambda s, sp, i, o: (s, EncodedSplit(sp.X, sp.mask[:, :2], sp.y, "x"), i, o),
            r"split X and mask must be \(n, T\) of one shape, got \(2, 3\), \(2, 2\)",
        ),
        (
            lambda s, sp, i, o: (s, EncodedSplit(sp.X[0], sp.mask[0], sp.y, "x"), i, o),
            r"split X and mask must be \(n, T\) of one shape, got \(3,\), \(3,\)",
        ),
        (lambda s, sp, i, o: (s, EncodedSplit(sp.X[:0], sp.mask[:0], sp.y[:0], "x"), i, o), "^split holds no review$"),
        (
            lambda s, sp, i, o: (s, EncodedSplit(sp.X.clone().fill_(5), sp.mask, sp.y, "x"), i, o),
            r"split X holds token ids outside \[0, 5\) of the scores",
        ),
        (lambda s, sp, i, o: (s, sp, i | torch.isnan(o), o), "^important marks a token whose omega is not finite"),
    ],
)
def test_each_refusal_of_review_shares_names_what_is_wrong(change, message):
    with pytest.raises(ValueError, match=message):
        sm.review_shares(*change(*small()))


def test_the_largest_id_the_scores_hold_is_accepted():
    scores, split, important, omega = small()
    X = split.X.clone()
    X[1, 2] = 4  # id V - 1
    shares = sm.review_shares(scores, EncodedSplit(X, split.mask, split.y, "x"), important, omega)
    assert shares.counted.tolist() == [True, False] and float(shares.share[0]) == pytest.approx(0.5)


def test_the_page_numbers_are_the_first_seed_s_counts_and_every_arm_s_intervals(monkeypatch):
    metrics, splits, runs = run_record(monkeypatch)
    numbers = sm.page_numbers(metrics, "imdb")
    found = metrics["imdb"]
    assert numbers["seeds"] == 2 and numbers["top_fraction"] == 0.3 and numbers["reviews"] == found["reviews"]
    for name in ("counted", "left_out", "important_tokens", "measured_tokens"):
        assert numbers[name] == found["per_seed"][name][0], name
    assert found["per_seed"]["measured_tokens"][0] != found["per_seed"]["measured_tokens"][1], "two seeds, two counts"
    assert numbers["uniform"] == found["seed_summary"]["uniform"]
    assert numbers["top_uniform"] == found["seed_summary"]["top_uniform"]
    assert list(numbers["arms"]) == list(sm.ARMS) and numbers["arms"]["joint"] == found["arms"]["joint"]["seed_summary"]
    for bad in ({"datasets": ["yelp_polarity"]}, {}):
        with pytest.raises(ValueError, match=r"dataset must be one of the record's .*, got 'imdb'"):
            sm.page_numbers(bad, "imdb")


@pytest.mark.parametrize("scale", ["fast", "full"])
def test_the_settings_hold_both_presets_the_arms_and_at_least_three_seeds(scale):
    settings = sm.selection_mass_settings(scale)
    assert settings["diagnosis"] == "selection_mass" and settings["scale"] == scale and settings["kind"] == "one_layer"
    assert settings["datasets"] == ["imdb", "yelp_polarity"] and settings["arms"] == list(sm.ARMS)
    for dataset in ("imdb", "yelp_polarity"):
        assert settings["presets"][dataset] == real_data_settings(scale, dataset).as_dict()
    assert settings["seeds"] == list(range(max(sm.MIN_SEEDS, 5 if scale == "full" else 1)))
    assert settings["top_fraction"] == sm.TOP_FRACTION


def test_presets_that_disagree_on_the_minimum_count_are_refused(monkeypatch):
    from dataclasses import replace

    original = sm.real_data_settings

    def disagreeing(scale, dataset="imdb"):
        found = original(scale, dataset)
        return replace(found, importance_min_count=found.importance_min_count + (dataset != "imdb"))

    monkeypatch.setattr(sm, "real_data_settings", disagreeing)
    with pytest.raises(ValueError, match=r"^the presets disagree on importance_min_count \{"):
        sm.selection_mass_settings("fast")


def test_the_table_shows_each_arm_in_percent_and_ratios_with_its_interval(monkeypatch):
    metrics, splits, runs = run_record(monkeypatch)
    metrics["arms"] = ["joint", "frozen_random", "probe"]
    metrics["imdb"]["arms"]["probe"] = metrics["imdb"]["arms"]["one_step_frozen"]
    frame = sm.selection_frame(metrics, "imdb")
    assert list(frame.index) == ["joint", "E frozen at random", "probe"], "the record's order; an unknown arm by its key"
    assert list(frame.columns) == ["share on important words (%)", "lift", "median review ratio",
                                   "reviews above uniform (%)"]  # fmt: skip
    joint = metrics["imdb"]["arms"]["joint"]["seed_summary"]
    ratio, above = joint["median_ratio"], joint["above_uniform"]
    assert frame.loc["joint", "median review ratio"] == (f"{ratio['value']:.2f} [{ratio['low']:.2f}, {ratio['high']:.2f}]")
    assert frame.loc["joint", "reviews above uniform (%)"] == (
        f"{100 * above['value']:.1f} [{100 * above['low']:.1f}, {100 * above['high']:.1f}]"
    )
