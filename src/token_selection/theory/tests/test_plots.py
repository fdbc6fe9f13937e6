import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

import token_selection as ts
from token_selection.theory.plots import (
    fit_line,
    loglog_slope,
    plot_against_importance,
    plot_loglog_fit,
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
        (lambda ax: plot_training_curves([ax], {"a": ts.TrainingHistory()}, ("accuracy",)), "unknown quantities"),
        (lambda ax: plot_training_curves([ax], {"a": ts.TrainingHistory()}, ("cosine", "loss")), "one axis per quantity"),
    ],
)
def test_bad_input_raises_value_error(ax, call, message):
    with pytest.raises(ValueError, match=message):
        call(ax)
