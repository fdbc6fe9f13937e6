"""The negation study: the task hides every first-order statistic, one step sees nothing, joint training hits 3/4."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from token_selection.studies import interactions as it
from token_selection.studies.intervals import bootstrap_interval
from token_selection.theory.importance import signed_frequency
from token_selection.theory.model import CLSAttention
from token_selection.theory.one_step import one_step_embeddings, step_size_from_alpha


def test_negation_data_hide_every_signed_frequency_and_negate_by_the_not_token():
    data = it.make_negation_data(7, 5, 12, k=3, seed=2)
    X, y = data.X, data.y
    assert tuple(X.shape) == (28, 5) and data.not_token == 6
    # every token occurs equally often with both labels: 0 up to the rounding of the per-sequence shares
    assert float(signed_frequency(X, y, 12).abs().max()) < 1e-15
    has_not = (X == 6).any(1)
    assert bool((has_not == data.negated).all()) and int(data.negated.sum()) == 14
    assert bool((y == data.sentiment * torch.where(data.negated, -1, 1)).all())
    word = torch.where(data.sentiment > 0, (X < 3).any(1), ((X >= 3) & (X < 6)).any(1))
    assert bool(word.all()) and int((X < 6).sum(1).max()) == 1, "one marked word per sequence, of its sentiment"
    assert int(data.sentiment.sum()) == 0 and bool((X[~has_not] != 6).all())
    assert sorted(y.tolist()) == [-1] * 14 + [1] * 14


def test_negation_data_defaults_types_and_every_marked_word():
    data = it.make_negation_data(40, 4, 12)
    assert data.not_token == 4 and data.X.dtype == data.y.dtype == torch.int64, "k = 2 by default; integer labels"
    assert torch.equal(data.X, it.make_negation_data(40, 4, 12, k=2, seed=0).X), "seed 0 by default"
    words = data.X[data.X < 4]
    assert set(words.tolist()) == {0, 1, 2, 3}, "every good and every bad word is drawn"


def test_negation_data_refuse_too_short_sequences_or_too_few_tokens():
    with pytest.raises(ValueError, match="^T must be an integer >= 3, got 2$"):
        it.make_negation_data(3, 2, 12)
    with pytest.raises(ValueError, match="^groups must be an integer >= 1, got 0$"):
        it.make_negation_data(0, 4, 12)
    with pytest.raises(ValueError, match="^k must be an integer >= 1, got 0$"):
        it.make_negation_data(3, 4, 12, k=0)
    with pytest.raises(ValueError, match="at least one filler after 5 marked tokens, got 5"):
        it.make_negation_data(3, 4, 5, k=2)
    assert it.make_negation_data(3, 3, 6, k=2).X.max() == 5, "2k + 2 tokens leave exactly one filler"


def test_accuracy_is_the_share_of_logits_with_the_labels_sign():
    model = CLSAttention(6, 4, seed=0, dtype=torch.float64)
    X = torch.tensor([[0, 1], [2, 3], [4, 5], [1, 1]])
    signs = torch.sign(model(X).detach()).long()
    assert it.accuracy(model, X, signs) == 1.0
    assert it.accuracy(model, X, -signs) == 0.0
    flipped = signs.clone()
    flipped[0] = -flipped[0]
    assert it.accuracy(model, X, flipped) == 0.75


def test_settings_per_scale():
    fast = it.negation_settings("fast")
    assert fast == {"groups": 100, "T": 8, "vocab_size": 40, "k": 2, "d": 32, "eta_ratio": 8.0, "joint_steps": 300,
                    "joint_lr": 0.05, "seeds": [0, 1, 2]}  # fmt: skip
    assert it.negation_settings("full") == dict(fast, seeds=list(range(20)))
    with pytest.raises(ValueError, match="got 'all'"):
        it.negation_settings("all")


def test_marked_signal_to_noise_by_hand():
    values = torch.tensor([2.0, -4.0, 3.0, 6.0, 1.0, -1.0, 1.0, -1.0], dtype=torch.float64)
    # k = 1: the 2k + 1 = 3 marked tokens |2|, |-4|, |3| -> mean 3; the fillers 6, 1, -1, 1, -1: their sample std
    fillers = np.array([6.0, 1.0, -1.0, 1.0, -1.0])
    assert it.marked_signal_to_noise(values, 1) == pytest.approx(3.0 / fillers.std(ddof=1))


SMALL = dict(it.negation_settings("fast"), groups=30, joint_steps=60)


def test_one_step_sees_the_sentiment_control_but_not_the_negation():
    out = it.negation_run(SMALL, seed=0)
    assert out["max_abs_alpha"] == 0.0
    assert out["control_signal_to_noise"] > 10 * out["negation_signal_to_noise"]
    assert out["control_one_step_test_accuracy"] > 0.95 and abs(out["negation_one_step_test_accuracy"] - 0.5) < 0.1
    assert out["joint_train_accuracy"] <= it.LINEAR_CEILING + 1e-12
    assert out["joint_not_value"] < 0 < out["joint_good_value"]
    assert 0.0 <= out["joint_test_accuracy"] <= 1.0 and isinstance(out["joint_bad_value"], float)
    assert out == it.negation_run(SMALL, seed=0), "a seed's run is the same every time"
    other = it.negation_run(dict(SMALL, joint_steps=0), seed=1)
    assert other["negation_signal_to_noise"] != out["negation_signal_to_noise"], "the seed draws E and v"
    # no joint steps: the joint model is the seed's initial model, whose values the run reports
    start = CLSAttention(40, 32, seed=1, dtype=torch.float64).token_values().detach()
    assert other["joint_bad_value"] == pytest.approx(float(start[2:4].mean()), abs=1e-12)
    assert other["joint_not_value"] == pytest.approx(float(start[4]), abs=1e-12)


def test_the_summary_over_seeds(monkeypatch):
    def run(settings, seed):
        assert settings["groups"] == 30
        return {"negation_one_step_test_accuracy": 0.5 + seed / 100, "control_one_step_test_accuracy": 1.0,
                "joint_test_accuracy": 0.7 + seed / 10, "joint_train_accuracy": 0.75, "joint_not_value": -seed}  # fmt: skip

    monkeypatch.setattr(it, "negation_run", run)
    many = it.run_negation(dict(SMALL, seeds=list(range(9))))
    joint9 = np.array([0.7 + seed / 10 for seed in range(9)])
    assert many["joint_test_accuracy_ci95"] == list(bootstrap_interval(joint9, np.mean, seed=0))
    tracked = []
    out = it.run_negation(dict(SMALL, seeds=[0, 1, 2]), track=lambda items, total: tracked.append(total) or items)
    assert tracked == [3]
    assert out["joint_not_value"] == [0, -1, -2] and out["negation_one_step_test_accuracy"] == [0.5, 0.51, 0.52]
    assert out["joint_test_accuracy_mean"] == pytest.approx(0.8)
    joint = np.array([0.7 + seed / 10 for seed in range(3)])
    assert out["joint_test_accuracy_ci95"] == list(bootstrap_interval(joint, np.mean, seed=0))
    assert out["negation_one_step_test_accuracy_mean"] == pytest.approx(0.51)
    assert out["control_one_step_test_accuracy_mean"] == 1.0 and out["joint_train_accuracy_mean"] == 0.75
    assert out["linear_ceiling"] == 0.75
    assert "joint_not_value_mean" not in out


def test_protocol_names_the_settings():
    for part in ("100 groups, T=8, V=40, 2 good and 2 bad tokens", "d=32", "8 eta*", "300 steps, lr 0.05",
                 "every signed frequency exactly 0"):  # fmt: skip
        assert part in it.NEGATION_PROTOCOL


def test_a_run_draws_train_and_test_from_its_seed_with_its_k_and_steps_the_seeds_float64_model(monkeypatch):
    drawn, draw = [], it.make_negation_data

    def recording(groups, T, vocab_size, *, k, seed):
        drawn.append((groups, T, vocab_size, k, seed))
        return draw(groups, T, vocab_size, k=k, seed=seed)

    monkeypatch.setattr(it, "make_negation_data", recording)
    settings = dict(SMALL, k=3, joint_steps=0)
    out = it.negation_run(settings, seed=2)
    assert drawn == [(30, 8, 40, 3, 4), (30, 8, 40, 3, 5)], "train from seed 2 * seed, test from 2 * seed + 1"
    # the control's one step, by hand: the seed's float64 initialisation, eta from the sentiment labels
    train, test = it.make_negation_data(30, 8, 40, k=3, seed=4), it.make_negation_data(30, 8, 40, k=3, seed=5)
    eta = 8.0 * step_size_from_alpha(signed_frequency(train.X, train.sentiment, 40), 32)
    model = CLSAttention(40, 32, seed=2, dtype=torch.float64)
    model.E.data.copy_(one_step_embeddings(model, train.X, train.sentiment, eta))
    expected = it.marked_signal_to_noise(model.token_values().detach(), 3)
    assert out["control_signal_to_noise"] == pytest.approx(expected, rel=1e-12)
    assert out["control_one_step_test_accuracy"] == it.accuracy(model, test.X, test.sentiment)
