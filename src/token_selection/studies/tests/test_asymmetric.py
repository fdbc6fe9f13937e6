"""The asymmetric study: its data generator's guarantees and refusals, the arm heights by hand, and the run's summary."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from token_selection.studies import asymmetric as asy
from token_selection.studies.intervals import bootstrap_interval, wilson_interval


def test_data_have_one_relevant_token_of_the_sequences_class_and_the_asked_label_share():
    data = asy.make_asymmetric(50, 5, 30, m_pos=2, m_neg=4, positive_share=0.3, zipf_neg=0.5, seed=3)
    X, y, relevant = data.X, data.y, data.relevant
    assert tuple(X.shape) == (50, 5) and int((y == 1).sum()) == 15  # round(50 x 0.3)
    assert relevant.sum(1).tolist() == [1] * 50
    chosen = X[relevant]
    assert bool(((chosen < 2) == (y == 1)).all()), "a positive sequence holds a positive-relevant token, and only it"
    assert bool(((chosen >= 2) & (chosen < 6))[y == -1].all())
    assert bool((X[~relevant] >= 6).all()), "every other position holds an irrelevant token"
    assert data.token_class.tolist() == [1, 1, -1, -1, -1, -1] + [0] * 24
    again = asy.make_asymmetric(50, 5, 30, m_pos=2, m_neg=4, positive_share=0.3, zipf_neg=0.5, seed=3)
    assert bool((again.X == X).all()) and not bool((asy.make_asymmetric(50, 5, 30, m_pos=2, m_neg=4, positive_share=0.3,
                                                                          seed=4).X == X).all())  # fmt: skip


def test_zipf_exponents_shape_the_frequencies_within_a_class():
    steep = asy.make_asymmetric(4000, 2, 20, m_pos=3, m_neg=3, positive_share=0.5, zipf_pos=2.0, zipf_neg=0.0, seed=1)
    chosen = steep.X[steep.relevant][steep.y == 1]
    share = np.bincount(chosen.numpy(), minlength=3)[:3] / len(chosen)
    assert share == pytest.approx(np.array([1, 1 / 4, 1 / 9]) / (1 + 1 / 4 + 1 / 9), abs=0.04)
    # irrelevant tokens follow Zipf 1 over the 14 of them: the first takes 1 / H_14 of the draws
    irrelevant = steep.X[~steep.relevant] - 6
    assert float((irrelevant == 0).double().mean()) == pytest.approx(1 / sum(1 / k for k in range(1, 15)), abs=0.02)
    assert bool(steep.relevant[:, 0].any() and steep.relevant[:, 1].any()), "the relevant token takes any position"
    assert steep.token_class.dtype == torch.int64
    default = asy.make_asymmetric(30, 3, 20, m_pos=2, m_neg=3, positive_share=0.5)
    same = asy.make_asymmetric(30, 3, 20, m_pos=2, m_neg=3, positive_share=0.5, zipf_pos=1.0, zipf_neg=1.0, seed=0)
    assert torch.equal(default.X, same.X)
    flat = asy.make_asymmetric(4000, 2, 20, m_pos=3, m_neg=3, positive_share=0.5, zipf_pos=0.0, zipf_neg=2.0, seed=0)
    chosen, y = flat.X[flat.relevant], flat.y
    pos = np.bincount(chosen[y == 1].numpy(), minlength=3)[:3] / int((y == 1).sum())
    neg = np.bincount(chosen[y == -1].numpy() - 3, minlength=3)[:3] / int((y == -1).sum())
    assert pos == pytest.approx([1 / 3] * 3, abs=0.04)  # exponent 0: uniform
    assert neg == pytest.approx(np.array([1, 1 / 4, 1 / 9]) / (1 + 1 / 4 + 1 / 9), abs=0.04)  # exponent 2: 1 / k^2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"n": 1}, "^n must"),
        ({"T": 1}, "^T must"),
        ({"m_pos": 0}, "^m_pos must"),
        ({"m_neg": 0}, "^m_neg must"),
        ({"m_pos": 10, "m_neg": 10}, "m_pos \\+ m_neg = 20 leaves no irrelevant token in vocab_size = 20"),
        ({"positive_share": 0.0}, "strictly between 0 and 1, got 0.0"),
        ({"positive_share": 1.0}, "strictly between 0 and 1, got 1.0"),
        ({"positive_share": 0.01}, "positive_share=0.01 leaves one class empty with n=10"),
        ({"positive_share": 0.99}, "positive_share=0.99 leaves one class empty with n=10"),
    ],
)
def test_bad_settings_are_refused_by_name(kwargs, message):
    args = {"n": 10, "T": 3, "vocab_size": 20, "m_pos": 2, "m_neg": 3, "positive_share": 0.5} | kwargs
    with pytest.raises(ValueError, match=message):
        asy.make_asymmetric(args.pop("n"), args.pop("T"), args.pop("vocab_size"), **args)


def test_a_share_that_leaves_one_sequence_in_a_class_is_allowed():
    data = asy.make_asymmetric(10, 3, 20, m_pos=2, m_neg=3, positive_share=0.1)
    assert int((data.y == 1).sum()) == 1


def test_settings_per_scale():
    fast, full = asy.asymmetric_settings("fast"), asy.asymmetric_settings("full")
    assert fast == {
        "n": 400, "T": 8, "vocab_size": 120, "m_pos": 3, "m_neg": 12, "positive_share": 0.7, "zipf_pos": 1.0,
        "zipf_neg": 0.5, "d": 256, "eta_ratio": 8.0, "steps": 1500, "lr": 0.5, "n_boot": 300, "min_count": 5,
        "seeds": [0, 1, 2, 3],
    }  # fmt: skip
    assert full == dict(fast, seeds=list(range(30)))
    with pytest.raises(ValueError, match="got 'medium'"):
        asy.asymmetric_settings("medium")


def test_arm_heights_by_hand():
    scores = np.array([3.0, 5.0, -1.0, 0.0, 1.0, 2.0, 10.0])
    classes = np.array([1, 1, -1, 0, 0, 0, -1])
    # median irrelevant score 1; positive arm (3 + 5) / 2 - 1 = 3; negative arm (-1 + 10) / 2 - 1 = 3.5
    assert asy.arm_heights(scores, classes) == (3.0, 3.5)


TINY = dict(asy.asymmetric_settings("fast"), n=60, T=4, vocab_size=20, m_pos=2, m_neg=4, d=32, steps=80, n_boot=20,
            min_count=2, seeds=[0, 1])  # fmt: skip


def test_one_seed_reports_scores_per_token_and_its_arms():
    run = asy.asymmetric_run(TINY, seed=1)
    assert run["scores"].shape == run["gap"].shape == run["token_class"].shape == (20,)
    assert run["token_class"].tolist() == [1, 1, -1, -1, -1, -1] + [0] * 14
    assert run["arms"] == asy.arm_heights(run["scores"], run["token_class"])
    assert -1.0 <= run["cosine_to_max_margin"] <= 1.0 + 1e-9 and run["p_norm"] > 0
    assert run["shape"].shape in ("U-shaped", "inverted U", "increasing", "decreasing", "flat")
    assert np.linalg.norm(run["scores"]) > 0


def test_the_summary_counts_u_shapes_and_intervals_over_seeds(monkeypatch):
    arms = {0: ((2.0, 1.0), (0.5, 0.25)), 1: ((1.0, 3.0), (-0.75, -0.5)), 2: ((4.0, 0.0), (0.1, 0.1))}

    def run(settings, seed):
        assert settings["n"] == 60
        trained, limit = arms[seed]
        return {"shape": SimpleNamespace(u_shaped=seed != 1), "arms": trained, "max_margin_arms": limit,
                "cosine_to_max_margin": 0.9 + seed / 100, "p_norm": 10.0 + seed}  # fmt: skip

    monkeypatch.setattr(asy, "asymmetric_run", run)
    tracked = []
    out = asy.run_asymmetric(dict(TINY, seeds=[0, 1, 2]), track=lambda items, total: tracked.append(total) or items)
    difference = np.array([1.0, -2.0, 4.0])
    assert tracked == [3]
    assert out == {
        "u_shaped_count": 2,
        "u_shaped_ci95": list(wilson_interval(2, 3)),
        "runs": 3,
        "arm_positive": [2.0, 1.0, 4.0],
        "arm_negative": [1.0, 3.0, 0.0],
        "arm_difference_mean": pytest.approx(1.0),
        "arm_difference_ci95": list(bootstrap_interval(difference, np.mean, seed=0)),
        "max_margin_arm_difference_max": 0.25,  # |0.5 - 0.25|, |-0.75 + 0.5|, |0|: the largest is 0.25
        "cosine_to_max_margin": [0.9, 0.91, 0.92],
        "p_norm": [10.0, 11.0, 12.0],
    }


def test_one_seed_passes_its_settings_on_and_reads_the_end_of_training(monkeypatch):
    seen = {}
    real_gap, real_shape = asy.posterior_gap, asy.classify_shape

    def gap(X, y, V, min_count):
        seen["min_count"] = min_count
        return real_gap(X, y, V, min_count=min_count)

    def shape(gap, scores, n_boot, seed):
        seen["shape"] = (n_boot, seed)
        return real_shape(gap, scores, n_boot=n_boot, seed=seed)

    class History:
        cosine, p_norm = [0.1, 0.5, 0.93], [1.0, 2.0, 7.0]

    monkeypatch.setattr(asy, "posterior_gap", gap)
    monkeypatch.setattr(asy, "classify_shape", shape)

    def train(model, *args, **kwargs):
        model.p.data.copy_(torch.linspace(-1.0, 1.0, model.d, dtype=torch.float64))
        return History()

    monkeypatch.setattr(asy, "train_cls", train)
    run = asy.asymmetric_run(TINY, seed=1)
    assert seen == {"min_count": 2, "shape": (20, 1)}
    assert run["cosine_to_max_margin"] == 0.93 and run["p_norm"] == 7.0
    assert set(run) == {"scores", "gap", "token_class", "shape", "arms", "max_margin_arms", "cosine_to_max_margin", "p_norm"}


def test_a_seed_is_the_same_run_every_time_and_another_seed_is_another():
    one, again, other = (asy.asymmetric_run(dict(TINY, steps=20), seed) for seed in (1, 1, 2))
    assert np.array_equal(one["scores"], again["scores"]) and one["max_margin_arms"] == again["max_margin_arms"]
    assert not np.array_equal(one["scores"], other["scores"])
    assert float(np.linalg.norm(one["scores"])) < 10 * float(np.abs(one["scores"]).max()), "scores of the unit direction"


def test_protocol_names_the_settings():
    for part in ("n=400, T=8, V=120", "3 positive-relevant tokens (Zipf 1)", "12 negative-relevant ones (Zipf 0.5)",
                 "70% positive labels", "8 eta*", "1500 steps of 0.5", ">= 5 times", "300 resamples"):  # fmt: skip
        assert part in asy.ASYMMETRIC_PROTOCOL
