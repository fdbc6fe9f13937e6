"""Tests of the tau slider's frames: the step is linear in its size, and the fluctuation formula matches a simulation."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import token_selection as ts
from token_selection.theory.one_step import predicted_correlation
from token_selection.theory.step_frames import DEFAULT_TAUS, correlation_fluctuation, step_frames, taus_with
from token_selection.theory.synthetic import REFERENCE_CASE, ReferenceCase


@pytest.fixture(scope="module")
def frames():
    return step_frames()


def test_frames_equal_a_direct_autograd_step(frames):
    case = REFERENCE_CASE
    data = case.data()
    k = 7
    model = ts.CLSAttention(case.vocab_size, case.d, seed=case.seed, dtype=torch.float64)
    E1 = ts.one_step_embeddings(model, data.X, data.y, lr=float(frames.etas[k]))
    direct = (E1 @ model.v.detach()).numpy()
    assert np.allclose(frames.values[k], direct, rtol=0, atol=1e-12)
    assert np.allclose(frames.initial, (model.E.detach() @ model.v.detach()).numpy(), rtol=0, atol=0)


def test_frames_shapes_and_derived_quantities(frames):
    V = REFERENCE_CASE.vocab_size
    assert frames.values.shape == (len(DEFAULT_TAUS), V) and frames.alpha.shape == (V,)
    assert frames.correlation.shape == frames.taus.shape
    assert np.allclose(frames.etas, frames.taus * frames.eta_star)
    assert np.allclose(frames.slopes, frames.etas / 2 * frames.v_norm2)
    assert np.allclose(frames.law, predicted_correlation(frames.taus))
    assert frames.noise_sd == pytest.approx(np.sqrt(frames.v_norm2 / REFERENCE_CASE.d))
    assert set(np.unique(frames.token_class)) == {-1, 0, 1}


def test_large_steps_put_the_values_on_the_line(frames):
    # at tau = 30 the values are the line (eta/2)|v|^2 alpha up to the noise and the weights g_j
    last = frames.values[-1]
    residual = last - frames.slopes[-1] * frames.alpha
    assert np.abs(residual).max() < 0.1 * np.abs(last).max()
    assert frames.correlation[-1] > 0.999
    assert frames.correlation[0] < 0.5


def test_every_frame_is_within_three_fluctuations_plus_two_hundredths_of_the_law(frames):
    gap = np.abs(frames.correlation - frames.law)
    assert np.all(gap <= 3 * correlation_fluctuation(frames.taus, REFERENCE_CASE.vocab_size) + 0.02)


def test_other_case_and_taus():
    case = ReferenceCase(n=60, T=6, vocab_size=20, d=64, seed=3)
    frames = step_frames(case, np.array([0.5, 2.0]))
    assert frames.values.shape == (2, 20)
    assert frames.correlation[1] > frames.correlation[0]
    # computed here, not read from a cache: every field follows this case and its seed
    data = case.data()
    model = ts.CLSAttention(case.vocab_size, case.d, seed=case.seed, dtype=torch.float64)
    v = model.v.detach()
    assert np.array_equal(frames.alpha, ts.signed_frequency(data.X, data.y, case.vocab_size).numpy())
    assert np.array_equal(frames.token_class, data.token_class.numpy())
    assert np.allclose(frames.initial, (model.E.detach() @ v).numpy(), rtol=0, atol=0)
    assert frames.v_norm2 == pytest.approx(float(v @ v))
    assert frames.noise_sd == pytest.approx(np.sqrt(float(v @ v) / case.d))
    other = step_frames(ReferenceCase(n=60, T=6, vocab_size=20, d=64, seed=4), np.array([0.5, 2.0]))
    assert not np.allclose(other.initial, frames.initial)


@pytest.mark.parametrize("taus", [np.array([]), np.array([0.0, 1.0]), np.array([-1.0]), np.array([np.inf]), np.ones((2, 2))])
def test_bad_taus_raise(taus):
    with pytest.raises(ValueError, match="taus"):
        step_frames(taus=taus)


def test_fluctuation_formula_matches_a_simulation():
    # one draw: V standard-normal noise values plus tau times a standardised alpha; the spread of the
    # correlation over draws should be the first-order formula's (to 15 %, 4000 draws: ~2 % standard error)
    rng = np.random.default_rng(0)
    V = 50
    alpha = rng.standard_normal(V)
    alpha = (alpha - alpha.mean()) / alpha.std()
    for tau in (0.3, 1.0, 3.0):
        noise = rng.standard_normal((4000, V))
        values = tau * alpha[None, :] + noise
        corr = np.array([np.corrcoef(row, alpha)[0, 1] for row in values])
        measured = corr.std()
        assert measured == pytest.approx(correlation_fluctuation(tau, V), rel=0.15), tau


def test_fluctuation_shape_and_errors():
    assert correlation_fluctuation(0.0, 100) == pytest.approx(0.1)
    assert correlation_fluctuation(np.array([0.0, 10.0]), 100).shape == (2,)
    assert correlation_fluctuation(10.0, 100) < 1e-3
    with pytest.raises(ValueError, match="vocab_size"):
        correlation_fluctuation(1.0, 1)
    assert correlation_fluctuation(0.0, 2) == pytest.approx(np.sqrt(0.5))  # two tokens: the smallest vocabulary
    assert isinstance(correlation_fluctuation(0.5, 10), float)


def test_law_for_this_draw_is_exact_for_the_leading_order_step(frames):
    leading = frames.initial[None, :] + frames.slopes[:, None] * frames.alpha[None, :]
    exact = np.array([np.corrcoef(row, frames.alpha)[0, 1] for row in leading])
    assert np.allclose(frames.law_for_this_draw, exact, rtol=0, atol=1e-12)
    # the autograd step differs from the leading-order one by the weights g_j only: a small change
    assert np.abs(frames.law_for_this_draw - frames.correlation).max() < 0.01
    assert frames.chance_correlation == pytest.approx(np.corrcoef(frames.initial, frames.alpha)[0, 1])
    assert 0.7 < frames.noise_spread < 1.3


def test_taus_with_replaces_the_nearest_stop_on_a_log_scale():
    taus = np.array([0.5, 1.0, 3.0, 10.0])
    # 1.8 is nearer 3 than 1 on a log scale (ln 1.8 = 0.59 against ln 3 - ln 1.8 = 0.51), though nearer 1 in value
    assert np.array_equal(taus_with(1.8, taus), [0.5, 1.0, 1.8, 10.0])
    assert np.array_equal(taus_with(1.6, taus), [0.5, 1.6, 3.0, 10.0])
    assert np.array_equal(taus_with(0.5, taus), taus)  # a stop already there, and the first stop itself
    assert np.array_equal(taus_with(10.0, taus), taus)
    course = taus_with(14.3)
    assert course.size == DEFAULT_TAUS.size and 14.3 in course and 15.0 not in course
    assert np.all(np.diff(course) > 0)
    assert np.array_equal(taus, [0.5, 1.0, 3.0, 10.0])  # the input is not changed


@pytest.mark.parametrize("tau", [0.49, 10.01, float("nan"), float("inf"), -1.0])
def test_taus_with_names_a_step_outside_the_stops(tau):
    with pytest.raises(ValueError, match="tau must lie between the first and last stop, 0.5 and 10"):
        taus_with(tau, np.array([0.5, 1.0, 3.0, 10.0]))


@pytest.mark.parametrize("taus", [[1.0], [1.0, 1.0], [2.0, 1.0], [0.0, 1.0], [[1.0, 2.0]]])
def test_taus_with_names_stops_that_are_not_increasing_and_positive(taus):
    with pytest.raises(ValueError, match="taus must be an increasing 1-D array"):
        taus_with(1.0, np.array(taus))


def test_taus_with_reads_stops_of_any_numeric_type_as_float64():
    # integer stops would truncate the new one (2.5 to 2), float32 ones round it: both are read as float64
    assert np.array_equal(taus_with(2.5, np.array([1, 3, 10])), [1.0, 2.5, 10.0])
    out = taus_with(14.3, DEFAULT_TAUS.astype(np.float32))
    assert out.dtype == np.float64 and 14.3 in out
    assert np.array_equal(taus_with(1.5, np.array([1.0, 3.0])), [1.5, 3.0])  # two stops are enough


def test_float32_inputs_come_back_as_float64():
    taus = np.array([0.5, 2.0], dtype=np.float32)
    assert step_frames(taus=taus).taus.dtype == np.float64
    spread = correlation_fluctuation(taus, 50)
    assert spread.dtype == np.float64
    one = correlation_fluctuation(2.0, 50)
    assert type(one) is float and one == pytest.approx(float(correlation_fluctuation(np.array([2.0]), 50)[0]))
