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
