"""Tests of the graded U: trained scores against the signed frequency."""

from __future__ import annotations

from dataclasses import replace

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from scipy.stats import spearmanr  # noqa: E402

from token_selection.theory.graded_u import GradedScores, graded_scores, plot_graded_u  # noqa: E402
from token_selection.theory.synthetic import REFERENCE_CASE  # noqa: E402


@pytest.fixture(scope="module")
def graded():
    return graded_scores(replace(REFERENCE_CASE, delta=0.5), steps=3000)


def test_with_graded_relevance_the_scores_rise_with_the_size_of_alpha_on_both_arms(graded):
    irrelevant = graded.scores[graded.token_class == 0]
    for sign in (1, -1):
        size, score = graded.arm(sign)
        assert (np.diff(size) >= 0).all()
        assert score[-1] > irrelevant.max() and score[-2] > irrelevant.max()  # the frequent ones win
        assert score[0] < irrelevant.max()  # the rarest sits among the irrelevant tokens
        assert spearmanr(size, score)[0] > 0.8
    assert 0 < graded.steps <= 3000


def test_under_assumption_1_the_scores_take_two_levels():
    two = graded_scores(REFERENCE_CASE, steps=5000)
    relevant, irrelevant = two.scores[two.token_class != 0], two.scores[two.token_class == 0]
    assert np.ptp(relevant) < 0.1 and relevant.min() > irrelevant.max()


def test_no_step_leaves_no_direction_to_score_with():
    with pytest.raises(ValueError, match="did not move"):
        graded_scores(REFERENCE_CASE, steps=0)


def test_arm_checks_its_sign():
    result = GradedScores(np.array([0.1, -0.2, 0.0]), np.zeros(3), np.array([1, -1, 0]), steps=1)
    np.testing.assert_allclose(result.arm(-1)[0], [0.2])
    with pytest.raises(ValueError, match="sign"):
        result.arm(0)


def test_plot_joins_each_arm_in_order(graded):
    fig, ax = plt.subplots()
    plot_graded_u(ax, graded)
    arms = [line for line in ax.get_lines() if len(line.get_xdata()) == 5]
    assert len(arms) == 2
    for line in arms:
        assert (np.diff(np.abs(line.get_xdata())) >= 0).all()
    assert "alpha" in ax.get_xlabel() and "score" in ax.get_ylabel()
    plt.close(fig)


def test_an_arm_orders_by_size_and_keeps_ties_in_order():
    result = GradedScores(np.array([0.3, 0.1, 0.3, -0.2, 0.05]), np.array([3.0, 1.0, 3.5, 2.0, 0.5]),
                          np.array([1, 1, 1, -1, 0]), steps=1)  # fmt: skip
    size, score = result.arm(1)
    assert size.tolist() == [0.1, 0.3, 0.3] and score.tolist() == [1.0, 3.0, 3.5]  # the tie keeps its order
    size, score = result.arm(-1)
    assert size.tolist() == [0.2] and score.tolist() == [2.0]


def test_the_plot_draws_both_arms_in_their_class_colours_and_the_zero_line():
    from token_selection.theory.plots import CLASS_COLORS

    result = GradedScores(np.array([0.3, 0.1, -0.2, -0.4, 0.0]), np.array([3.0, 1.0, 2.0, 4.0, 0.5]),
                          np.array([1, 1, -1, -1, 0]), steps=1)  # fmt: skip
    fig, ax = plt.subplots()
    plot_graded_u(ax, result)
    arms = [line for line in ax.get_lines() if len(line.get_xdata()) == 2 and list(line.get_xdata()) != [0, 0]]
    positive, negative = arms
    assert positive.get_xdata().tolist() == [0.1, 0.3] and positive.get_ydata().tolist() == [1.0, 3.0]
    assert negative.get_xdata().tolist() == [-0.2, -0.4] and negative.get_ydata().tolist() == [2.0, 4.0]
    assert positive.get_color() == CLASS_COLORS[1] and negative.get_color() == CLASS_COLORS[-1]
    assert all(line.get_linewidth() == 1 and line.get_alpha() == 0.6 for line in arms)
    (zero,) = [line for line in ax.get_lines() if list(line.get_xdata()) == [0, 0]]
    assert zero.get_color() == "gray" and zero.get_linewidth() == 0.5
    assert ax.get_xlabel() == r"signed frequency $\alpha_s$ (importance)"
    assert ax.get_ylabel() == r"trained score $E_s\cdot p/\|p\|$"
    plt.close(fig)


def test_graded_scores_follow_the_normalised_steps_and_the_learning_rate():
    few = graded_scores(REFERENCE_CASE, steps=3, lr=0.5)
    assert few.steps == 3 and few.alpha.dtype == np.float64 and few.scores.dtype == np.float64
    assert np.isfinite(few.scores).all()
    other = graded_scores(REFERENCE_CASE, steps=3, lr=1.0)
    assert not np.allclose(few.scores, other.scores)  # the learning rate is passed on
