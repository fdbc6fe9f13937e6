import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from token_selection.theory.geometry_plots import (  # noqa: E402
    logistic_direction_path,
    max_margin_2d,
    plot_selection_geometry,
)

TOY = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]])


def test_max_margin_of_two_unit_points_is_their_bisector():
    w = max_margin_2d(TOY)
    np.testing.assert_allclose(w, [1.0, 1.0], atol=1e-6)  # the third point is not a support point
    assert (TOY @ w).min() == pytest.approx(1.0, abs=1e-6)


def test_logistic_regression_turns_to_the_max_margin_direction():
    rng = np.random.default_rng(0)
    points = rng.normal(size=(12, 2)) * 0.4 + [1.0, 0.6]
    w_hat = max_margin_2d(points)
    w_hat /= np.linalg.norm(w_hat)
    path = logistic_direction_path(points, steps=20_000, lr=0.5)
    np.testing.assert_allclose(np.linalg.norm(path, axis=1), 1.0)
    assert path[-1] @ w_hat > 0.99
    assert path[0] @ w_hat < path[-1] @ w_hat


def test_a_single_step_is_recorded():
    path = logistic_direction_path(TOY, steps=1, lr=0.1, record=5)
    assert path.shape == (1, 2)


@pytest.mark.parametrize("points", [np.zeros((0, 2)), np.zeros((3, 3)), np.zeros(4)])
def test_points_of_the_wrong_shape_are_refused(points):
    with pytest.raises(ValueError, match="points must have shape"):
        logistic_direction_path(points, steps=10, lr=0.1)


def test_bad_step_settings_are_refused():
    with pytest.raises(ValueError, match="steps >= 1"):
        logistic_direction_path(TOY, steps=0, lr=0.1)
    with pytest.raises(ValueError, match="lr > 0"):
        logistic_direction_path(TOY, steps=5, lr=0.0)


def test_the_figure_draws_both_panels_and_checks_w_mm():
    fig, (left, right) = plt.subplots(1, 2)
    path = logistic_direction_path(TOY, steps=50, lr=0.5)
    plot_selection_geometry(left, right, TOY, path, max_margin_2d(TOY), [[0.0, 0.0], [0.1, 2.0]])
    assert left.get_title() and right.get_xlabel()
    with pytest.raises(ValueError, match="w_mm must have shape"):
        plot_selection_geometry(left, right, TOY, path, [1.0, 1.0, 1.0], [[0.0, 0.0]])
    plt.close(fig)
