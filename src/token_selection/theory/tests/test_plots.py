import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from matplotlib.colors import to_hex
from matplotlib.markers import MarkerStyle

import token_selection as ts
from token_selection.theory.plots import (
    CLASS_COLORS,
    CLASS_LABELS,
    TRAINING_QUANTITIES,
    _as_numpy,
    fit_line,
    loglog_slope,
    plot_against_importance,
    plot_lean_ends,
    plot_loglog_fit,
    plot_share_by_dimension,
    plot_training_curves,
)
from token_selection.theory.synthetic import REFERENCE_CASE


@pytest.fixture
def ax():
    fig, axis = plt.subplots()
    yield axis
    plt.close(fig)


def test_fit_line_and_power_law_recover_known_values():
    x = np.linspace(-1, 1, 11)
    assert fit_line(x, 3 * x - 2) == pytest.approx((3.0, -2.0))
    d = np.array([64.0, 256.0, 1024.0, 4096.0])
    slope, prefactor = loglog_slope(d, 5 * d**-0.5)
    assert slope == pytest.approx(-0.5) and prefactor == pytest.approx(5.0)


def test_plot_loglog_fit_returns_the_slope_it_draws(ax):
    d = np.array([10.0, 100.0, 1000.0])
    assert plot_loglog_fit(ax, d, d**2, label="square") == pytest.approx(2.0)
    assert len(ax.get_lines()) == 2 and ax.get_xscale() == "log"


def test_plot_against_importance_draws_each_class_and_fits(ax):
    alpha = torch.tensor([0.3, -0.2, 0.0, 0.0, 0.1])
    values = 2 * alpha + 1
    token_class = torch.tensor([1, -1, 0, 0, 1])
    slope, intercept = plot_against_importance(ax, alpha, values, token_class, sizes=np.arange(5.0), fit=True)
    assert slope == pytest.approx(2.0) and intercept == pytest.approx(1.0)
    assert len(ax.collections) == 3
    assert plot_against_importance(ax, alpha, values, token_class) is None


def test_plot_training_curves_uses_log_steps(reference_case):
    data, _ = reference_case
    model = REFERENCE_CASE.model_after_one_step(data.X, data.y)  # a fresh p: the fixture is shared
    history = ts.train_cls(model, data.X, data.y, steps=20, lr=1.0, method="normalized", relevant=data.relevant)
    fig, axes = plt.subplots(1, 2)
    plot_training_curves(axes, {"normalized GD": history}, ("p_norm", "min_relevant_attention"))
    line = axes[0].get_lines()[0]
    np.testing.assert_allclose(line.get_xdata(), np.asarray(history.step) + 1)
    assert axes[0].get_xscale() == "log" and axes[0].get_yscale() == "log" and axes[1].get_yscale() == "linear"
    plt.close(fig)


def test_the_cosine_is_drawn_only_where_p_has_moved_and_other_quantities_everywhere(reference_case):
    data, _ = reference_case
    model = REFERENCE_CASE.model_after_one_step(data.X, data.y)  # p = 0: the first point has no direction
    history = ts.train_cls(model, data.X, data.y, steps=7, lr=1.0, method="normalized", relevant=data.relevant)
    series = history.as_arrays()
    assert series["p_norm"][0] == 0 and (series["p_norm"][1:] > 0).all()
    fig, axes = plt.subplots(1, 2)
    plot_training_curves(axes, {"a": history}, ("cosine", "mean_relevant_attention"))
    cosine_line, attention_line = axes[0].get_lines()[0], axes[1].get_lines()[0]
    np.testing.assert_allclose(cosine_line.get_xdata(), series["step"][1:] + 1)
    np.testing.assert_allclose(cosine_line.get_ydata(), series["cosine"][1:])
    np.testing.assert_allclose(attention_line.get_xdata(), series["step"] + 1)
    plt.close(fig)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda ax: fit_line([1.0, 1.0], [0.0, 1.0]), "two distinct"),
        (lambda ax: loglog_slope([1.0, 2.0], [0.0, 1.0]), "strictly positive"),
        (lambda ax: fit_line([1.0, 2.0], [0.0]), "equal length"),
        (lambda ax: fit_line([1.0, np.nan], [0.0, 1.0]), "finite"),
        (lambda ax: plot_against_importance(ax, [0.1, 0.2], [1.0, 2.0], [2, 0]), "token_class"),
        (lambda ax: plot_against_importance(ax, [0.1, 0.2], [1.0, 2.0], [1, 0], sizes=[-1.0, 1.0]), "sizes"),
        (lambda ax: plot_training_curves([ax], {}, ("cosine",)), "at least one"),
        (lambda ax: plot_training_curves([ax], {"a": ts.PTrainingHistory()}, ("accuracy",)), "unknown quantities"),
        (lambda ax: plot_training_curves([ax], {"a": ts.PTrainingHistory()}, ("cosine", "loss")), "one axis per quantity"),
    ],
)
def test_bad_input_raises_value_error(ax, call, message):
    with pytest.raises(ValueError, match=message):
        call(ax)


def _history(scale: float) -> ts.PTrainingHistory:
    """A hand-made history of four recorded steps (0, 1, 10, 100), every series scaled by ``scale``."""
    series = [0.5, 1.0, 2.0, 4.0]
    return ts.PTrainingHistory(
        step=[0, 1, 10, 100],
        **{name: [scale * v for v in series] for name in ("p_norm", "loss", "cosine", "grad_norm")},
        min_relevant_attention=[scale * v / 8 for v in series],
        mean_relevant_attention=[scale * v / 4 for v in series],
    )


def test_training_curves_one_panel_per_quantity_one_curve_per_history(ax):
    fig, axes = plt.subplots(1, 3)
    histories = {"run a": _history(1.0), "run b": _history(0.5)}
    plot_training_curves(axes, histories, ("cosine", "loss", "grad_norm"), log_y=("loss",))
    for panel, quantity in zip(axes, ("cosine", "loss", "grad_norm"), strict=True):
        lines = panel.get_lines()
        assert [line.get_label() for line in lines] == ["run a", "run b"]
        for line, history in zip(lines, histories.values(), strict=True):
            assert line.get_xdata().tolist() == [1, 2, 11, 101]  # step + 1: step 0 shows on the log axis
            assert line.get_ydata().tolist() == getattr(history, quantity) and line.get_marker() == "."
        assert panel.get_xscale() == "log" and panel.get_xlabel() == "step + 1 (log scale)"
        assert panel.get_ylabel() == TRAINING_QUANTITIES[quantity]
    # log_y names the quantities on a log axis: here only the loss (grad_norm's default is replaced)
    assert [panel.get_yscale() for panel in axes] == ["linear", "log", "linear"]
    plt.close(fig)


def test_training_curves_default_to_cosine_and_min_attention_with_log_norms():
    fig, axes = plt.subplots(1, 2)
    plot_training_curves(axes, {"run": _history(1.0)})
    assert [panel.get_ylabel() for panel in axes] == [
        TRAINING_QUANTITIES["cosine"],
        TRAINING_QUANTITIES["min_relevant_attention"],
    ]
    assert axes[1].get_lines()[0].get_ydata().tolist() == [0.0625, 0.125, 0.25, 0.5]
    assert [panel.get_yscale() for panel in axes] == ["linear", "linear"]
    plot_training_curves(axes, {"run": _history(1.0)}, ("p_norm", "grad_norm"))
    assert [panel.get_yscale() for panel in axes] == ["log", "log"]
    plt.close(fig)


def test_training_curve_errors_name_what_is_allowed(ax):
    with pytest.raises(ValueError) as count:
        plot_training_curves([ax, ax], {"a": _history(1.0)}, ("cosine",))
    assert str(count.value) == "need one axis per quantity: got 2 axes for 1 quantities"
    with pytest.raises(ValueError) as unknown:
        plot_training_curves([ax, ax], {"a": _history(1.0)}, ("accuracy", "cosine"))
    assert str(unknown.value) == f"unknown quantities ['accuracy']; allowed: {sorted(TRAINING_QUANTITIES)}"
    with pytest.raises(ValueError) as empty:
        plot_training_curves([ax], {}, ("cosine",))
    assert str(empty.value) == "histories must hold at least one PTrainingHistory"


def test_loglog_fit_draws_the_points_and_fifty_points_of_the_power_law(ax):
    x, y = np.array([1.0, 4.0, 16.0]), np.array([3.0, 6.0, 12.0])  # y = 3 x^0.5
    assert plot_loglog_fit(ax, x, y, label="runs", color="tab:green") == pytest.approx(0.5)
    points, fit = ax.get_lines()
    assert points.get_xdata().tolist() == [1.0, 4.0, 16.0] and points.get_ydata().tolist() == [3.0, 6.0, 12.0]
    assert (points.get_marker(), points.get_linestyle(), points.get_label()) == ("o", "None", "runs")
    grid = fit.get_xdata()
    assert len(grid) == 50 and grid[0] == pytest.approx(1.0) and grid[-1] == pytest.approx(16.0)
    np.testing.assert_allclose(np.diff(np.log(grid)), np.log(16.0) / 49)  # evenly spaced on the log axis
    np.testing.assert_allclose(fit.get_ydata(), 3 * grid**0.5)
    assert (fit.get_linestyle(), fit.get_label()) == ("--", "fit: slope 0.50")
    assert to_hex(points.get_color()) == to_hex(fit.get_color()) == to_hex("tab:green")
    assert ax.get_xscale() == ax.get_yscale() == "log"


def test_loglog_fit_gives_the_fit_the_colour_of_its_points(ax):
    plot_loglog_fit(ax, [1.0, 2.0], [1.0, 2.0], label="first")
    plot_loglog_fit(ax, [1.0, 2.0], [2.0, 4.0], label="second")
    first, first_fit, second, second_fit = ax.get_lines()
    assert first.get_color() == first_fit.get_color() != second.get_color() == second_fit.get_color()


def test_against_importance_draws_the_classes_present_with_their_colours_sizes_and_the_fit(ax):
    # uneven classes: three irrelevant tokens, two positive, no negative one
    alpha = np.array([0.0, 0.5, -0.25, 0.75, 0.125])
    values = np.array([1.0, 2.0, 0.5, 3.0, 0.0])
    token_class = np.array([0, 1, 0, 1, 0])
    sizes = np.array([5.0, 0.0, 2.0, 8.0, 1.0])  # a zero area is allowed
    slope, intercept = plot_against_importance(ax, alpha, values, token_class, sizes=sizes, fit=True)
    positive, irrelevant = ax.collections
    assert positive.get_label() == CLASS_LABELS[1] and irrelevant.get_label() == CLASS_LABELS[0]
    assert positive.get_offsets().tolist() == [[0.5, 2.0], [0.75, 3.0]]
    assert irrelevant.get_offsets().tolist() == [[0.0, 1.0], [-0.25, 0.5], [0.125, 0.0]]
    assert positive.get_sizes().tolist() == [0.0, 8.0] and irrelevant.get_sizes().tolist() == [5.0, 2.0, 1.0]
    assert to_hex(positive.get_facecolor()[0]) == to_hex(CLASS_COLORS[1])
    assert to_hex(irrelevant.get_facecolor()[0]) == to_hex(CLASS_COLORS[0])
    assert positive.get_alpha() == irrelevant.get_alpha() == 0.75
    # the least-squares line, worked out by hand: mean alpha 0.225, mean value 1.3,
    # sum (a - 0.225)(v - 1.3) = 0.0675 + 0.1925 + 0.38 + 0.8925 + 0.13 = 1.6625,
    # sum (a - 0.225)^2 = 0.050625 + 0.075625 + 0.225625 + 0.275625 + 0.01 = 0.6375
    expected = 1.6625 / 0.6375
    assert slope == pytest.approx(expected) and intercept == pytest.approx(1.3 - expected * 0.225)
    (line,) = ax.get_lines()
    assert line.get_xdata().tolist() == [-0.25, 0.75]
    np.testing.assert_allclose(line.get_ydata(), [intercept - 0.25 * slope, intercept + 0.75 * slope])
    assert (line.get_linestyle(), to_hex(line.get_color()), line.get_linewidth()) == ("--", "#000000", 1.0)
    assert line.get_label() == f"least-squares line, slope {expected:.3g}" == "least-squares line, slope 2.61"


def test_against_importance_without_sizes_draws_markers_of_area_30(ax):
    plot_against_importance(ax, torch.tensor([0.5, -0.5]), torch.tensor([1.0, -1.0]), torch.tensor([1, -1]))
    positive, negative = ax.collections
    assert negative.get_label() == CLASS_LABELS[-1] and to_hex(negative.get_facecolor()[0]) == to_hex(CLASS_COLORS[-1])
    assert positive.get_sizes().tolist() == negative.get_sizes().tolist() == [30.0]
    assert not ax.get_lines()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda ax: fit_line(np.zeros((2, 2)), np.zeros((2, 2))), "x must be a non-empty 1-D array, got shape (2, 2)"),
        (lambda ax: fit_line([], []), "x must be a non-empty 1-D array, got shape (0,)"),
        (lambda ax: fit_line([1.0, 2.0], [[1.0, 2.0]]), "y must be a non-empty 1-D array, got shape (1, 2)"),
        (lambda ax: fit_line([1.0, 2.0, 3.0], [0.0]), "x and y must have equal length, got 3 and 1"),
        (lambda ax: fit_line([1.0, 2.0], [np.inf, 1.0]), "x and y must be finite (no NaN or inf)"),
        (lambda ax: fit_line([1.0], [2.0]), "fit_line needs at least two distinct x values"),
        (lambda ax: loglog_slope([1.0, 2.0], [1.0, 0.0]), "loglog_slope needs strictly positive x and y"),
        (lambda ax: loglog_slope([0.0, 2.0], [1.0, 1.0]), "loglog_slope needs strictly positive x and y"),
        (lambda ax: loglog_slope([1.0, 2.0], [1.0]), "x and y must have equal length, got 2 and 1"),
        (
            lambda ax: plot_loglog_fit(ax, [[1.0, 2.0]], [1.0, 2.0], label="a"),
            "x must be a non-empty 1-D array, got shape (1, 2)",
        ),
        (
            lambda ax: plot_loglog_fit(ax, [1.0, 2.0], [[1.0, 2.0]], label="a"),
            "y must be a non-empty 1-D array, got shape (1, 2)",
        ),
        (
            lambda ax: plot_against_importance(ax, [0.1, 0.2], [1.0], [1, 0]),
            "importance and values must have equal length, got 2 and 1",
        ),
        (
            lambda ax: plot_against_importance(ax, [0.1, 0.2], [1.0, 2.0], [[1, 0]]),
            "token_class must be a non-empty 1-D array, got shape (1, 2)",
        ),
        (
            lambda ax: plot_against_importance(ax, [0.1, 0.2], [1.0, 2.0], [1]),
            "token_class must have length 2 and values in {-1, 0, +1}",
        ),
        (
            lambda ax: plot_against_importance(ax, [0.1, 0.2], [1.0, 2.0], [-2, 1]),
            "token_class must have length 2 and values in {-1, 0, +1}",
        ),
        (
            lambda ax: plot_against_importance(ax, [0.1, 0.2], [1.0, 2.0], [0.5, 1]),
            "token_class must have length 2 and values in {-1, 0, +1}",
        ),
        (
            lambda ax: plot_against_importance(ax, [0.1, 0.2], [1.0, 2.0], [1, 0], sizes=[1.0]),
            "sizes must be 2 non-negative marker areas",
        ),
        (
            lambda ax: plot_against_importance(ax, [0.1, 0.2], [1.0, 2.0], [1, 0], sizes=[[1.0, 1.0]]),
            "sizes must be a non-empty 1-D array, got shape (1, 2)",
        ),
        (
            lambda ax: plot_against_importance(ax, [0.1, 0.2], [1.0, 2.0], [1, 0], sizes=[-1e-9, 1.0]),
            "sizes must be 2 non-negative marker areas",
        ),
    ],
)
def test_bad_input_messages_name_the_argument_and_what_is_allowed(ax, call, message):
    with pytest.raises(ValueError) as error:
        call(ax)
    assert str(error.value) == message


def test_inputs_become_float64_arrays_tensors_with_gradients_included(ax):
    assert _as_numpy([1, 2], "x").dtype == np.float64 and _as_numpy(["0.5", "2"], "x").tolist() == [0.5, 2.0]
    alpha = torch.tensor([0.5, -0.5, 0.0], requires_grad=True)  # a tensor still in an autograd graph
    values = 2 * alpha
    slope, _ = plot_against_importance(ax, alpha, values, torch.tensor([1, -1, 0]), fit=True)
    assert slope == pytest.approx(2.0)


def test_the_smallest_fits_two_points_and_positive_values_near_zero():
    assert fit_line(np.array([1.0, 3.0]), torch.tensor([2.0, 6.0], dtype=torch.float64)) == pytest.approx((2.0, 0.0))
    slope, prefactor = loglog_slope([1e-300, 1e-299], [1.0, 10.0])  # y = 1e300 x
    assert slope == pytest.approx(1.0) and prefactor == pytest.approx(1e300)


def test_plot_lean_ends_puts_each_seed_on_its_row_green_where_it_selects_red_where_one_sided():
    fig, ax = plt.subplots()
    leans = {512: [0.3, -0.1, 0.05], 2048: [0.2, 0.0, -0.25]}
    ends = {(512, "unit steps"): [True, False, True], (512, "flow"): [False, False, True], (2048, "flow"): [True] * 3}
    plot_lean_ends(ax, leans, ends, size=10)
    dots, crosses = ax.collections[0::2], ax.collections[1::2]
    assert len(dots) == len(crosses) == 3
    np.testing.assert_allclose(dots[0].get_offsets(), [[0.3, 0], [0.05, 0]])
    np.testing.assert_allclose(crosses[1].get_offsets(), [[0.3, 1], [-0.1, 1]])
    np.testing.assert_allclose(dots[2].get_offsets(), [[0.2, 2], [0.0, 2], [-0.25, 2]])  # the second row's d: 2048
    assert len(crosses[2].get_offsets()) == 0
    assert dots[0].get_sizes().tolist() == [10] and crosses[0].get_sizes().tolist() == [20]
    assert to_hex(dots[0].get_facecolor()[0]) == to_hex("tab:green") and to_hex(crosses[0].get_facecolor()[0]) == to_hex(
        "tab:red"
    )
    labels = [c.get_label() for c in ax.collections]
    assert labels[:2] == ["selects every relevant token", "ends one-sided"] and all(lab.startswith("_") for lab in labels[2:])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["d = 512, unit steps", "d = 512, flow", "d = 2048, flow"]
    (zero,) = ax.get_lines()
    assert list(zero.get_xdata()) == [0, 0]
    assert ax.get_xlabel() == r"initial lean $\cos(-\nabla_p L, v)$ at $p = 0$"
    plt.close(fig)


def test_plot_share_by_dimension_draws_each_line_in_increasing_d_with_its_interval():
    fig, ax = plt.subplots()
    lines = {
        "T = 8": {1024: (1.0, 0.96, 1.0), 512: (0.54, 0.44, 0.63)},  # unsorted, as from JSON
        "T = 32": {512: (0.0, 0.0, 0.16), 2048: (0.15, 0.05, 0.36), 4096: (0.55, 0.34, 0.74)},
    }
    plot_share_by_dimension(ax, lines)
    assert [line.get_label() for line in ax.containers] == ["T = 8", "T = 32"]
    first = ax.containers[0].lines[0]  # the data line of T = 8
    np.testing.assert_allclose(np.asarray(first.get_xdata(), dtype=float), [512, 1024])
    np.testing.assert_allclose(np.asarray(first.get_ydata(), dtype=float), [0.54, 1.0])
    bars = ax.containers[1].lines[2][0].get_segments()  # the T = 32 error bars, one per d
    np.testing.assert_allclose([seg[:, 1] for seg in bars], [[0.0, 0.16], [0.05, 0.36], [0.34, 0.74]])
    assert ax.get_xscale() == "log"
    assert [tick.get_text() for tick in ax.get_xticklabels()] == ["512", "1024", "2048", "4096"]
    plt.close(fig)


@pytest.mark.parametrize("bad", [(0.5, 0.6, 0.9), (0.5, 0.1, 0.4)])
def test_plot_share_by_dimension_refuses_an_interval_that_misses_its_share(bad):
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="'T = 8'"):
        plot_share_by_dimension(ax, {"T = 8": {512: bad}})
    plt.close(fig)


def test_plot_share_by_dimension_styles_its_axes_and_points():
    fig, ax = plt.subplots()
    plot_share_by_dimension(ax, {"T = 8": {512: (1, 0.9, 1), 2048: (0, 0, 0.1)}})  # ints: drawn as floats
    (container,) = ax.containers
    data_line = container.lines[0]
    assert data_line.get_marker() == "o" and np.asarray(data_line.get_ydata()).dtype == float
    caps = container.lines[1]
    assert len(caps) == 2 and all(cap.get_markersize() == 2 * 3 for cap in caps)  # capsize 3 points, both ends
    assert ax.get_xscale() == "log" and ax.xaxis.get_transform().base == 2
    assert ax.get_ylim() == (-0.05, 1.05)
    assert ax.get_xlabel() == "embedding dimension d"
    assert ax.get_ylabel() == "share of seeds reaching $p_{\\mathrm{mm}}$"
    plt.close(fig)


def test_plot_share_by_dimension_takes_a_share_on_either_end_of_its_interval():
    fig, ax = plt.subplots()
    plot_share_by_dimension(ax, {"at the ends": {512: (0.2, 0.2, 0.5), 1024: (0.5, 0.2, 0.5)}})
    np.testing.assert_allclose(ax.containers[0].lines[2][0].get_segments()[1][:, 1], [0.2, 0.5])
    plot_share_by_dimension(ax, {"rounded": {512: (1.0, 0.96, 1.0 - 1e-13)}})  # within rounding: drawn, bar 0
    assert ax.containers[-1].lines[2][0].get_segments()[0][1, 1] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="low <= share <= high"):
        plot_share_by_dimension(ax, {"below": {512: (0.2, 0.2 + 1e-9, 0.5)}})
    with pytest.raises(ValueError):
        plot_share_by_dimension(ax, {"above": {512: (0.5 + 1e-9, 0.2, 0.5)}})
    plt.close(fig)


def test_plot_lean_ends_draws_crosses_half_transparent_dots_and_a_zero_line():
    fig, ax = plt.subplots()
    plot_lean_ends(ax, {512: [1, -1]}, {(512, "flow"): [1, 0]})  # ints and 0/1: read as float leans and bool ends
    dots, crosses = ax.collections
    np.testing.assert_allclose(dots.get_offsets(), [[1.0, 0]])
    np.testing.assert_allclose(crosses.get_offsets(), [[-1.0, 0]])
    assert dots.get_alpha() == 0.7 and dots.get_sizes().tolist() == [40.0] and crosses.get_sizes().tolist() == [80.0]
    assert to_hex(dots.get_facecolor()[0], keep_alpha=False) == to_hex("tab:green")
    assert to_hex(crosses.get_facecolor()[0]) == to_hex("tab:red")
    assert crosses.get_paths()[0].vertices.shape == MarkerStyle("x").get_path().vertices.shape
    (zero,) = ax.get_lines()
    assert list(zero.get_xdata()) == [0, 0] and to_hex(zero.get_color()) == to_hex("gray") and zero.get_linewidth() == 0.8
    plt.close(fig)


def test_plot_lean_ends_refuses_an_empty_set_of_rows():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="^ends is empty"):
        plot_lean_ends(ax, {512: [0.1]}, {})
    plt.close(fig)


def test_plot_lean_ends_colours_each_miss_by_the_class_it_keeps():
    fig, ax = plt.subplots()
    leans = {512: [0.3, -0.2, 0.1, -0.05, 0.0]}
    ends = {(512, "unit steps"): [False, False, True, True, True], (512, "flow"): [False, False, False, True, False]}
    kept = {(512, "unit steps"): [1, -1, 0, 0, 0], (512, "flow"): [1, -1, 1, 0, 0]}
    plot_lean_ends(ax, leans, ends, size=10, kept=kept)
    plus, minus = ax.collections[1], ax.collections[2]
    np.testing.assert_allclose(plus.get_offsets(), [[0.3, 0]])
    np.testing.assert_allclose(minus.get_offsets(), [[-0.2, 0]])
    assert to_hex(plus.get_facecolor()[0]) == to_hex("tab:red") and to_hex(minus.get_facecolor()[0]) == to_hex("tab:blue")
    flow_plus, flow_minus, flow_neither = ax.collections[4:7]
    np.testing.assert_allclose(flow_plus.get_offsets(), [[0.3, 1], [0.1, 1]])
    np.testing.assert_allclose(flow_minus.get_offsets(), [[-0.2, 1]])
    np.testing.assert_allclose(flow_neither.get_offsets(), [[0.0, 1]])  # a miss that keeps neither class, in grey
    assert to_hex(flow_neither.get_facecolor()[0]) == to_hex("tab:gray")
    labels = [c.get_label() for c in ax.collections]
    assert labels.count("ends one-sided, keeps class +1") == 1 and labels.count("ends with neither class") == 1
    assert flow_plus.get_label().startswith("_")  # labelled once, on the first row
    plt.close(fig)


@pytest.mark.parametrize(
    ("kept", "named"),
    [({(512, "other"): [1]}, "kept must have the rows of ends"), ({(512, "flow"): [1, -1]}, r"kept\[512, 'flow'\] has shape")],
)
def test_plot_lean_ends_refuses_kept_that_does_not_match_ends(kept, named):
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match=named):
        plot_lean_ends(ax, {512: [0.1]}, {(512, "flow"): [False]}, kept=kept)
    plt.close(fig)
