"""The one step as a function of its size: the frames of chapter 3's tau slider.

At ``p = 0`` the step is linear in its size, ``E(eta) = E(0) - eta grad_E L`` with the
gradient taken once at the start, so one autograd gradient gives the values
``E_s(eta) . v`` at every step size. ``step_frames`` evaluates them, and their correlation
over tokens with the signed frequency ``alpha_s``, at log-spaced ``tau = eta / eta*`` of one
case (by default the course's reference case, float64, its own seed).

``correlation_fluctuation`` is the spread of that correlation around the law
``tau / sqrt(1 + tau^2)`` for one draw of ``V`` noise values: the law is a statement about
the spreads over tokens, and ``V`` values estimate them only to about ``1/sqrt(V)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from .importance import signed_frequency
from .model import CLSAttention
from .one_step import one_step_embeddings, predicted_correlation, step_size_threshold
from .synthetic import REFERENCE_CASE, ReferenceCase

DEFAULT_TAUS = np.array([0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0, 15.0, 20.0, 30.0])
"""16 step sizes ``tau = eta / eta*`` from 0.1 to 30, two and a half decades around the threshold, nearly evenly
spaced on a log scale and round, so that a slider's labels print them exactly; ``tau = 1`` (the threshold) is one."""


def taus_with(tau: float, taus: np.ndarray = DEFAULT_TAUS) -> np.ndarray:
    """``taus``, (K,) increasing, with the stop nearest ``tau`` on a log scale replaced by ``tau``: (K,), increasing.

    A slider keeps its number of stops and gains the step a page uses (chapter 3's 14.3, which takes the place of
    15). ``tau`` must be positive and finite and lie within the range of ``taus``; a ``tau`` already among them
    returns them unchanged.
    """
    taus = np.asarray(taus, dtype=np.float64)
    if taus.ndim != 1 or taus.size < 2 or np.any(np.diff(taus) <= 0) or taus[0] <= 0:
        raise ValueError(f"taus must be an increasing 1-D array of two or more positive step sizes, got {taus}")
    if not (np.isfinite(tau) and taus[0] <= tau <= taus[-1]):
        raise ValueError(f"tau must lie between the first and last stop, {taus[0]:g} and {taus[-1]:g}; got {tau}")
    nearest = int(np.argmin(np.abs(np.log(taus) - np.log(tau))))
    out = taus.copy()
    out[nearest] = tau
    return out


@dataclass(frozen=True)
class StepFrames:
    """The values after one step of each size, for one data set and one initialisation.

    taus: (k,) step sizes in units of eta*; alpha: (V,) signed frequencies; token_class: (V,)
    +1 / -1 / 0 (positive-relevant, negative-relevant, irrelevant); values: (k, V) ``E_s(1) . v``
    after the step of size ``taus[i] * eta_star``; correlation: (k,) ``corr_s(values[i], alpha)``;
    eta_star: the case's threshold; v_norm2: ``|v|^2``; noise_sd: ``|v| / sqrt(d)``, the spread of
    ``E_s(0) . v``; initial: (V,) ``E_s(0) . v``.
    """

    taus: np.ndarray
    alpha: np.ndarray
    token_class: np.ndarray
    values: np.ndarray
    correlation: np.ndarray
    eta_star: float
    v_norm2: float
    noise_sd: float
    initial: np.ndarray

    @property
    def etas(self) -> np.ndarray:
        """(k,) the step sizes ``eta = tau eta*``."""
        return self.taus * self.eta_star

    @property
    def slopes(self) -> np.ndarray:
        """(k,) the slope ``(eta/2) |v|^2`` of the leading-order line ``E_s(1) . v = (eta/2) |v|^2 alpha_s``."""
        return self.etas / 2 * self.v_norm2

    @property
    def law(self) -> np.ndarray:
        """(k,) the law ``tau / sqrt(1 + tau^2)`` at each frame."""
        return predicted_correlation(self.taus)

    @property
    def chance_correlation(self) -> float:
        """``c = corr_s(E_s(0) . v, alpha_s)``: how this draw's initial values correlate with alpha by chance."""
        return float(np.corrcoef(self.initial, self.alpha)[0, 1])

    @property
    def noise_spread(self) -> float:
        """``s``: the spread of ``E_s(0) . v`` over the V tokens in units of ``1/sqrt(d)`` (the law takes 1)."""
        return float(self.initial.std() / (self.noise_sd / np.sqrt(self.v_norm2)))

    @property
    def law_for_this_draw(self) -> np.ndarray:
        """(k,) the correlation the leading-order step gives with this draw's own noise.

        In units of ``1/sqrt(d)`` the leading-order values are ``tau |v|^2 a_s + n_s`` (``a`` the
        standardised alpha), so the correlation is ``(t + c s) / sqrt(t^2 + 2 t c s + s^2)`` with
        ``t = tau |v|^2``, ``c`` = ``chance_correlation`` and ``s`` = ``noise_spread``. The law is
        its value at ``c = 0``, ``s = 1``, ``|v| = 1``.
        """
        t, c, s = self.taus * self.v_norm2, self.chance_correlation, self.noise_spread
        return (t + c * s) / np.sqrt(t**2 + 2 * t * c * s + s**2)


def step_frames(case: ReferenceCase = REFERENCE_CASE, taus: np.ndarray | None = None) -> StepFrames:
    """The values ``E_s(1) . v`` after one step of size ``tau eta*`` for each ``tau``, on ``case``.

    case: the data (``case.data()``) and the float64 model of ``case.seed`` (E, v ~ N(0, I/d), p = 0);
    ``case.eta`` is not used: the sizes are ``taus`` (default ``DEFAULT_TAUS``) times the case's ``eta*``.
    The step is autograd's (exact, sample weights included), not the leading-order form.
    """
    taus = DEFAULT_TAUS if taus is None else np.asarray(taus, dtype=np.float64)
    if taus.ndim != 1 or taus.size == 0 or not np.all(np.isfinite(taus)) or np.any(taus <= 0):
        raise ValueError(f"taus must be a non-empty 1-D array of finite positive step sizes, got {taus}")
    data = case.data()
    model = CLSAttention(case.vocab_size, case.d, seed=case.seed, dtype=torch.float64)
    E0, v = model.E.detach(), model.v.detach()
    initial = (E0 @ v).numpy()
    per_unit = ((one_step_embeddings(model, data.X, data.y, lr=1.0) - E0) @ v).numpy()  # linear in eta
    eta_star = step_size_threshold(data.X, data.y, case.vocab_size, case.d)
    alpha = signed_frequency(data.X, data.y, case.vocab_size).numpy()
    values = initial[None, :] + (taus * eta_star)[:, None] * per_unit[None, :]
    correlation = np.array([np.corrcoef(row, alpha)[0, 1] for row in values])
    v_norm2 = float(v @ v)
    return StepFrames(
        taus=taus,
        alpha=alpha,
        token_class=data.token_class.numpy(),
        values=values,
        correlation=correlation,
        eta_star=eta_star,
        v_norm2=v_norm2,
        noise_sd=float(np.sqrt(v_norm2 / case.d)),
        initial=initial,
    )


def correlation_fluctuation(tau: float | np.ndarray, vocab_size: int) -> float | np.ndarray:
    """Standard deviation of ``corr_s(E_s(1) . v, alpha_s)`` around ``tau / sqrt(1 + tau^2)`` for one draw.

    In units of the noise, the values are ``tau a_s + n_s`` with ``a`` the standardised ``alpha``
    and ``n`` the ``V`` initial values. One draw of ``n`` correlates with ``a`` by chance
    (``c``, standard deviation ``1/sqrt(V)``) and has a spread ``1 + e`` (``e`` of standard
    deviation ``1/sqrt(2V)``); to first order the correlation is the law plus
    ``(c - tau e) / (1 + tau^2)^(3/2)``. Returns ``sqrt((1 + tau^2/2) / V) / (1 + tau^2)^(3/2)``.
    """
    if vocab_size < 2:
        raise ValueError(f"vocab_size must be at least 2, got {vocab_size}")
    tau = np.asarray(tau, dtype=np.float64)
    result = np.sqrt((1 + tau**2 / 2) / vocab_size) / (1 + tau**2) ** 1.5
    return float(result) if result.ndim == 0 else result
