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


# Uneven fixtures: two points of different lengths (the direction turns after the first step), and a
# path of p whose coordinates are not symmetric, so every scale and limit of the figure is checked.
UNEVEN = np.array([[1.0, 0.0], [0.0, 2.0]])


def _sigmoid_of_minus(m: float) -> float:
    return 1.0 / (1.0 + np.exp(m))


def test_the_first_two_steps_of_gradient_descent_by_hand():
    lr = 0.3
    path = logistic_direction_path(UNEVEN, steps=2, lr=lr, record=2)  # records steps 1 and 2
    w1 = lr * 0.5 * UNEVEN.sum(0)  # every margin is 0 at w = 0: each point pulls with 1/2
    m1, m2 = UNEVEN @ w1
    w2 = w1 + lr * (UNEVEN[0] * _sigmoid_of_minus(m1) + UNEVEN[1] * _sigmoid_of_minus(m2))
    np.testing.assert_allclose(path, [w1 / np.linalg.norm(w1), w2 / np.linalg.norm(w2)], rtol=0, atol=1e-12)


def test_directions_are_recorded_at_log_spaced_steps():
    steps, lr = 100, 0.2
    marks = sorted(set(np.unique(np.geomspace(1, steps, 5).astype(int)).tolist()))
    assert marks == [1, 3, 10, 31, 100]
    path = logistic_direction_path(UNEVEN, steps=steps, lr=lr, record=5)
    assert path.shape == (5, 2)
    for row, step in zip(path, marks, strict=True):  # record=2 keeps steps 1 and `step`: the last is the step's direction
        np.testing.assert_allclose(row, logistic_direction_path(UNEVEN, steps=step, lr=lr, record=2)[-1], atol=1e-12)
    default = logistic_direction_path(UNEVEN, steps=1000, lr=lr)  # record=40 by default
    assert len(default) == len(np.unique(np.geomspace(1, 1000, 40).astype(int)))
    assert len(default) != len(np.unique(np.geomspace(1, 1000, 41).astype(int)))


def test_record_one_keeps_the_first_step_and_record_zero_is_refused():
    path = logistic_direction_path(UNEVEN, steps=10, lr=0.1, record=1)
    np.testing.assert_allclose(path, [UNEVEN.sum(0) / np.linalg.norm(UNEVEN.sum(0))])
    with pytest.raises(ValueError, match=r"record >= 1; got 10, 0.1, 0"):
        logistic_direction_path(UNEVEN, steps=10, lr=0.1, record=0)
    with pytest.raises(ValueError, match=r"lr > 0"):
        logistic_direction_path(UNEVEN, steps=10, lr=-0.1)
    with pytest.raises(ValueError, match=r"points must have shape \(K, 2\) with K >= 1, got \(3, 3\)"):
        max_margin_2d(np.zeros((3, 3)))


def test_max_margin_of_uneven_points():
    w = max_margin_2d(UNEVEN)
    np.testing.assert_allclose(w, [1.0, 0.5], atol=1e-6)  # both constraints tight: w . a_k = 1
    single = max_margin_2d([[0.0, 4.0]])
    np.testing.assert_allclose(single, [0.0, 0.25], atol=1e-6)


def _offsets(collection) -> np.ndarray:
    return np.asarray(collection.get_offsets(), dtype=np.float64)


def test_every_element_of_the_figure():
    from matplotlib.colors import to_rgba
    from matplotlib.markers import MarkerStyle

    points = np.array([[3.0, 3.0], [1.0, 0.0], [0.0, 2.0]])  # the first point is not a support point
    w_mm = max_margin_2d(points)
    path = logistic_direction_path(points, steps=30, lr=0.5, record=4)
    p_path = np.array([[0.0, 0.0], [-0.5, 1.0], [0.25, 4.0]])
    fig, (left, right) = plt.subplots(1, 2)
    plot_selection_geometry(left, right, points, path, w_mm, p_path)
    scale = 3.0
    unit = w_mm / np.linalg.norm(w_mm)

    dots, turning, support, origin = left.collections
    np.testing.assert_allclose(_offsets(dots), points)
    assert dots.get_sizes().tolist() == [18]
    np.testing.assert_allclose(dots.get_facecolor()[0], to_rgba("tab:gray"))
    assert dots.get_label() == r"toy points $a$ (as $E_r - E_x$)"

    direction, boundary = left.get_lines()
    np.testing.assert_allclose(direction.get_xdata(), [0, scale * unit[0]])
    np.testing.assert_allclose(direction.get_ydata(), [0, scale * unit[1]])
    assert direction.get_linestyle() == "-" and direction.get_linewidth() == 2
    assert to_rgba(direction.get_color()) == to_rgba("k") and direction.get_label() == "max-margin direction"
    (arrow,) = left.texts  # the arrow head at the tip of the direction
    np.testing.assert_allclose(arrow.xy, scale * unit)
    np.testing.assert_allclose(arrow.xyann, 0.85 * scale * unit)
    assert arrow.arrow_patch.get_arrowstyle().__class__.__name__ == "CurveFilledB"
    assert arrow.get_text() == ""  # a head only: the line is drawn by plot
    assert to_rgba(arrow.arrow_patch.get_edgecolor()) == to_rgba("k") and arrow.arrow_patch.get_linewidth() == 2
    # the margin boundary: every point of its line has w_mm . a = 1, and it spans 2 * scale across the direction
    ends = np.c_[boundary.get_xdata(), boundary.get_ydata()]
    np.testing.assert_allclose(ends @ w_mm, [1.0, 1.0])
    np.testing.assert_allclose(np.linalg.norm(ends[1] - ends[0]), 2 * scale)
    np.testing.assert_allclose((ends[1] - ends[0]) @ unit, 0.0, atol=1e-12)
    assert boundary.get_linestyle() == ":" and boundary.get_linewidth() == 1.2
    assert to_rgba(boundary.get_color()) == to_rgba("tab:gray")

    np.testing.assert_allclose(_offsets(turning), 0.6 * scale * path)
    np.testing.assert_allclose(turning.get_array(), np.linspace(0.2, 1.0, len(path)))
    assert turning.get_cmap().name == "Reds" and turning.get_sizes().tolist() == [14]
    assert turning.get_label() == r"direction of $\theta$ during GD (on the circle)"

    np.testing.assert_allclose(_offsets(support), points[1:])
    assert support.get_sizes().tolist() == [80] and support.get_label() == "support"
    assert support.get_facecolor().shape[0] == 0 or support.get_facecolor()[0][3] == 0  # hollow
    np.testing.assert_allclose(support.get_edgecolor()[0], to_rgba("k"))

    np.testing.assert_allclose(_offsets(origin), [[0.0, 0.0]])
    np.testing.assert_allclose(origin.get_facecolor()[0], to_rgba("k"))
    plus = MarkerStyle("+")
    np.testing.assert_allclose(origin.get_paths()[0].vertices, plus.get_path().transformed(plus.get_transform()).vertices)

    (circle,) = left.patches
    assert circle.get_linewidth() == 0.8 and to_rgba(circle.get_edgecolor()) == to_rgba("silver")
    assert circle.center == (0.0, 0.0) and not circle.get_fill() and circle.get_linestyle() == ":"
    assert circle.radius == pytest.approx(0.6 * np.abs(points).max())
    assert left.get_aspect() == 1.0
    assert left.get_title() == "Logistic regression turns to the max-margin direction"
    legend = left.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [
        r"toy points $a$ (as $E_r - E_x$)", "max-margin direction", r"margin boundary $\theta_{\mathrm{mm}}\cdot a = 1$",
        r"direction of $\theta$ during GD (on the circle)", "support",
    ]  # fmt: skip
    assert legend.get_texts()[0].get_fontsize() == 9.5 and legend._loc == 9  # 9: "upper center", of the box below
    anchor = legend.get_bbox_to_anchor().transformed(left.transAxes.inverted())
    assert (anchor.x0, anchor.y0) == (pytest.approx(0.5), pytest.approx(-0.1))  # centred under the plot
    assert legend._ncols == 2
    np.testing.assert_allclose(legend.legend_handles[3].get_facecolor()[0], plt.get_cmap("Reds")(0.8))

    trail, axis = right.get_lines()
    np.testing.assert_allclose(np.c_[trail.get_xdata(), trail.get_ydata()], p_path)
    assert trail.get_marker() == "o" and trail.get_linestyle() == "-" and trail.get_markersize() == 3
    assert to_rgba(trail.get_color()) == to_rgba("tab:red")
    assert list(axis.get_xdata()) == [0, 0] and axis.get_linewidth() == 0.8 and to_rgba(axis.get_color()) == to_rgba("k")
    wide, tall = np.abs(np.asarray(p_path)).max(axis=0)  # the across axis stretched to the path's own range
    assert wide < tall / 2  # the fixture's lean is small, as on the reference case, so the stretch shows
    assert right.get_xlim() == pytest.approx((-1.2 * wide, 1.2 * wide))
    assert right.get_ylim() == pytest.approx((-0.05 * tall, 1.05 * tall))
    assert right.get_aspect() == "auto" and not right.child_axes  # one panel, no inset
    assert right.get_xlabel() == r"$p\cdot\hat v$ (stretched: see its scale)"
    assert right.get_ylabel() == r"$p\cdot\hat p_{\mathrm{mm}}$"
    assert right.get_title() == r"p during training: along $p_{\mathrm{mm}}$, nearly orthogonal to $v$"
    plt.close("all")


def test_a_path_of_p_that_never_moves_still_gets_limits():
    fig, (left, right) = plt.subplots(1, 2)
    plot_selection_geometry(left, right, UNEVEN, [[1.0, 0.0]], [1.0, 0.5], np.zeros((3, 2)))
    assert right.get_xlim() == pytest.approx((-1.2e-12, 1.2e-12), rel=1e-6, abs=0)
    assert right.get_ylim() == pytest.approx((-0.05e-12, 1.05e-12), rel=1e-6, abs=0)
    with pytest.raises(ValueError, match=r"w_mm must have shape \(2,\), got \(1, 2\)"):
        plot_selection_geometry(left, right, UNEVEN, [[1.0, 0.0]], [[1.0, 0.5]], np.zeros((3, 2)))
    with pytest.raises(ValueError, match="points must have shape"):
        plot_selection_geometry(left, right, UNEVEN, [[1.0, 0.0]], [1.0, 0.5], np.zeros(3))
    plt.close(fig)


def test_points_given_as_exact_fractions_are_read_as_float64():
    from fractions import Fraction

    exact = [[Fraction(1), Fraction(0)], [Fraction(0), Fraction(2)]]
    np.testing.assert_allclose(logistic_direction_path(exact, steps=5, lr=0.3), logistic_direction_path(UNEVEN, steps=5, lr=0.3))
    np.testing.assert_allclose(max_margin_2d(exact), [1.0, 0.5], atol=1e-6)
    fig, (left, right) = plt.subplots(1, 2)
    plot_selection_geometry(left, right, exact, [[1.0, 0.0]], [Fraction(1), Fraction(1, 2)], [[0.0, 0.0], [0.0, 1.0]])
    np.testing.assert_allclose(_offsets(left.collections[2]), UNEVEN)  # both points are support points
    np.testing.assert_allclose(left.get_lines()[0].get_xdata(), [0.0, 2.0 / np.sqrt(1.25)])
    plt.close(fig)


def test_support_points_are_those_on_the_margin_within_the_tolerance():
    w_mm = [1.0, 0.5]
    points = [[1.0 + 1.05e-5, 0.0], [0.0, 2.0 + 2.4e-5], [1.5, 0.0], [0.0, 2.0 + 3e-5]]  # w . a - 1: 1.05e-5, 1.2e-5, 0.5, 1.5e-5
    fig, (left, right) = plt.subplots(1, 2)
    plot_selection_geometry(left, right, points, [[1.0, 0.0]], w_mm, [[0.0, 0.0], [0.0, 1.0]])
    # np.isclose(w . a, 1, atol=1e-6) with its default rtol 1e-5: within 1.1e-5 of 1
    np.testing.assert_allclose(_offsets(left.collections[2]), [points[0]])
    plt.close(fig)
