"""Tests of the turn to the max-margin direction as an angle against the step."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from token_selection.theory.turn_angle import angle_from_cosine, angle_to, logistic_turn, plot_angle_against_step  # noqa: E402

TOY = np.random.default_rng(0).normal(size=(12, 2)) * 0.4 + [1.0, 0.6]  # chapter 4's toy points


def test_angles_of_known_cosines():
    np.testing.assert_allclose(angle_from_cosine([1.0, 0.5, 0.0, -1.0]), [0.0, 60.0, 90.0, 180.0], atol=1e-12)
    assert angle_from_cosine(1 + 1e-15) == 0.0  # rounding past 1 is clipped, not NaN
    with pytest.raises(ValueError, match="finite"):
        angle_from_cosine([np.nan])


def test_angle_between_directions():
    np.testing.assert_allclose(angle_to([[1.0, 0.0], [0.0, 3.0], [-1.0, 1.0]], [2.0, 0.0]), [0.0, 90.0, 135.0])
    with pytest.raises(ValueError, match="non-zero"):
        angle_to([[0.0, 0.0]], [1.0, 0.0])
    with pytest.raises(ValueError, match="directions must be"):
        angle_to([1.0, 0.0], [1.0, 0.0])


def test_logistic_regression_turns_towards_the_max_margin_direction():
    steps, angles = logistic_turn(TOY, steps=20_000, lr=0.5)
    assert steps[0] == 1 and steps[-1] == 20_000 and (np.diff(steps) > 0).all()
    assert angles[0] > 15 and angles[-1] < 6  # from about 20 degrees to about 5
    assert (np.diff(angles) <= 1e-9).all()  # on these points the turn never goes back


def test_a_few_steps_are_recorded_at_their_steps():
    steps, angles = logistic_turn(TOY, steps=10, lr=0.5, record=5)
    assert steps.tolist() == [1, 3, 5, 10] and len(angles) == len(steps)  # 1.78 and 1 both record step 1


def test_plot_draws_one_curve_per_label_on_a_log_axis():
    fig, ax = plt.subplots()
    plot_angle_against_step(ax, {"a": ([1, 10, 100], [20.0, 10.0, 5.0]), "b": ([1, 2], [50.0, 40.0])})
    assert [line.get_label() for line in ax.get_lines()][:2] == ["a", "b"]
    assert ax.get_xscale() == "log" and ax.get_ylim()[0] == 0
    assert "angle" in ax.get_ylabel() and "step" in ax.get_xlabel()
    with pytest.raises(ValueError, match="at least one"):
        plot_angle_against_step(ax, {})
    with pytest.raises(ValueError, match="steps >= 1"):
        plot_angle_against_step(ax, {"c": ([0, 1], [1.0, 2.0])})
    with pytest.raises(ValueError, match="equal-length"):
        plot_angle_against_step(ax, {"c": ([1, 2], [1.0])})
    plt.close(fig)


def test_the_plot_draws_each_curve_as_given_with_the_zero_line_and_full_labels():
    fig, ax = plt.subplots()
    plot_angle_against_step(ax, {"a": ([1, 10, 100], [20.0, 10.0, 5.0])})
    curve, zero = ax.get_lines()
    assert list(curve.get_xdata()) == [1, 10, 100] and list(curve.get_ydata()) == [20.0, 10.0, 5.0]
    assert curve.get_marker() == "." and curve.get_label() == "a"
    assert list(zero.get_ydata()) == [0, 0] and zero.get_color() == "black" and zero.get_linewidth() == 0.8
    assert ax.get_xlabel() == "gradient step (log scale)"
    assert ax.get_ylabel() == "angle to the max-margin direction (degrees)"
    plot_angle_against_step(ax, {"one step": ([1], [3.0])})  # a single step is allowed, and step 1 is the bound
    with pytest.raises(ValueError, match="^c: need"):
        plot_angle_against_step(ax, {"c": ([[1, 2]], [[1.0, 2.0]])})  # two-dimensional
    plt.close(fig)


def test_angles_take_integer_and_scalar_input_and_name_a_zero_target():
    assert angle_from_cosine(0) == pytest.approx(90.0)
    assert angle_to([[1, 0]], [0, 2]).tolist() == [90.0]
    with pytest.raises(ValueError, match="non-zero"):
        angle_to([[1.0, 0.0]], [0.0, 0.0])
    with pytest.raises(ValueError, match="target"):
        angle_to([[1.0, 0.0]], [1.0, 0.0, 0.0])


def test_clipping_works_at_both_ends_and_errors_say_what_is_wrong():
    assert angle_from_cosine(-1 - 1e-15) == 180.0  # rounding below -1 is clipped too
    with pytest.raises(ValueError, match="^cosines must be finite$"):
        angle_from_cosine(np.inf)
    assert angle_to([[0.5, 0.0]], [0.5, 0.0]).tolist() == [0.0]  # short vectors are fine: only zero is refused
    with pytest.raises(ValueError, match="^directions and target must be non-zero$"):
        angle_to([[1.0, 0.0]], [0.0, 0.0])
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="^curves must hold at least one"):
        plot_angle_against_step(ax, {})
    plt.close(fig)


def test_logistic_turn_records_about_forty_steps_by_default():
    steps, angles = logistic_turn(TOY, steps=1000, lr=0.5)
    assert steps.tolist() == np.unique(np.geomspace(1, 1000, 40).astype(int)).tolist() and len(angles) == len(steps)
