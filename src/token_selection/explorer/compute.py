"""``explore``: the whole story of the theory chapters for one setting, with the package's own functions.

1. draw data (``make_synthetic``), take one GD step of size ``step_factor * eta*`` on ``E``
   at ``p = 0`` (``one_step_embeddings``, ``step_size_threshold``) and compare ``E_s . v``
   with the signed frequency ``alpha_s`` (``signed_frequency``);
2. solve the max-margin program on the new embeddings (``solve_max_margin``, with the
   relevant tokens of a sequence tied when there are several) and train
   ``p`` by normalised GD with ``E`` and ``v`` frozen (``train_cls``), recording
   cos(p, p_mm) and the attention mass on relevant tokens;
3. read off the final scores ``E_s . p / |p|`` against importance (the U-shape).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

import numpy as np
import torch

from ..theory.importance import signed_frequency
from ..theory.max_margin import solve_max_margin
from ..theory.model import CLSAttention
from ..theory.one_step import one_step_embeddings, predicted_correlation, step_size_threshold
from ..theory.synthetic import SyntheticData, make_synthetic
from ..theory.training import train_cls
from .config import ExplorerConfig
from .notice import what_to_notice
from .result import LOST_MASS, SELECTED_MASS, ExplorerResult

STAGES = ("drawing data", "one step on E", "max-margin program", "training p", "drawing panels")
"""What ``explore`` (and then the drawing) is doing, in order; reported through ``on_stage``."""


def correlation(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation of two (V,) arrays; 0 when either side is constant (never NaN)."""
    xc, yc = x - x.mean(), y - y.mean()
    denominator = float(np.sqrt((xc @ xc) * (yc @ yc)))
    return float(xc @ yc) / denominator if denominator > 0 else 0.0


def slope(x: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of y on x (with intercept), both (V,); 0 when x is constant."""
    xc = x - x.mean()
    denominator = float(xc @ xc)
    return float(xc @ (y - y.mean())) / denominator if denominator > 0 else 0.0


def token_mass(attention: torch.Tensor, X: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """(n, T) float64: at each position, the attention mass its token holds in the sequence (repeats summed).

    attention: (n, T) weights; X: (n, T) ids. One bincount over (sequence, token) keys.
    """
    n = X.shape[0]
    keys = torch.arange(n)[:, None] * vocab_size + X
    mass = torch.bincount(keys.reshape(-1), weights=attention.detach().double().reshape(-1), minlength=n * vocab_size)
    return mass[keys]


def optimal_fraction(values: np.ndarray, X: torch.Tensor, y: torch.Tensor, relevant: torch.Tensor) -> float:
    """Share of sequences whose best token (largest label-signed value ``y_j u_s``) is relevant, strictly above every
    irrelevant one: hypothesis 1 of chapter 4. values: (V,) ``E_s . v``; X, relevant: (n, T); y: (n,) +-1.
    A sequence without an irrelevant position counts as satisfied."""
    signed = torch.as_tensor(values, dtype=torch.float64)[X] * y.double()[:, None]
    best_relevant = signed.masked_fill(~relevant, float("-inf")).amax(1)
    best_irrelevant = signed.masked_fill(relevant, float("-inf")).amax(1)
    return float((best_relevant > best_irrelevant).double().mean())


def selected_relevant_per_sequence(attention: torch.Tensor, X: torch.Tensor, relevant: torch.Tensor, vocab_size: int) -> float:
    """Mean over sequences of the number of distinct relevant tokens holding >= ``SELECTED_MASS`` of the attention.

    attention: (n, T) weights; X: (n, T) ids; relevant: (n, T) bool.
    """
    n = X.shape[0]
    chosen = relevant & (token_mass(attention, X, vocab_size) >= SELECTED_MASS)
    keys = torch.unique((torch.arange(n)[:, None] * vocab_size + X)[chosen])
    return float(torch.bincount(keys // vocab_size, minlength=n).double().mean())


def explore(delta: float, d: int, T: int, *, on_stage: Callable[[str], None] | None = None, **settings) -> ExplorerResult:
    """Run one setting end to end and return what the three panels show.

    settings: the other fields of ``ExplorerConfig`` (n, step_factor, p_steps, seed,
    vocab_size, p_lr, zipf). When the max-margin program has no solution (small d, or
    no irrelevant token left) the result says why in ``max_margin_message`` and the
    panels that need no p_mm are still filled. on_stage: called with each name in
    ``STAGES[:4]``. Raises ValueError on settings that make no sense.
    """
    config = ExplorerConfig.from_settings(delta=delta, d=d, T=T, **settings)
    with _single_thread():
        return _explore(config, on_stage or (lambda stage: None))


@contextmanager
def _single_thread() -> Iterator[None]:
    """Run torch on one thread, then restore the setting.

    The tensors are tiny (V x d and n x T): on a busy 2-core machine the p-training loop
    took 10x longer on two threads than on one. Results are identical.
    """
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def stepped_case(
    config: ExplorerConfig,
    report: Callable[[str], None] = lambda stage: None,
) -> tuple[SyntheticData, CLSAttention, float]:
    """The setting of ``config`` after its one step, before ``p`` trains.

    Returns the drawn data (``X``: (n, T)), the float64 model whose ``E`` (V, d) is the one-step embeddings
    of a step ``config.step_factor * eta_star`` at ``p = 0`` (``p`` still 0, ``v`` as drawn) and ``eta_star``.
    report: called with ``STAGES[0]`` and ``STAGES[1]`` as each begins.
    """
    report(STAGES[0])
    data = make_synthetic(
        config.n,
        config.T,
        config.vocab_size,
        config.delta,
        zipf=config.zipf,
        seed=config.seed,
    )
    report(STAGES[1])
    eta_star = step_size_threshold(data.X, data.y, config.vocab_size, config.d)
    model = CLSAttention(config.vocab_size, config.d, seed=config.seed, dtype=torch.float64)
    model.E.data.copy_(one_step_embeddings(model, data.X, data.y, config.step_factor * eta_star))
    return data, model, eta_star


def _explore(
    config: ExplorerConfig,
    report: Callable[[str], None],
) -> ExplorerResult:
    """The body of ``explore`` for a validated config."""
    data, model, eta_star = stepped_case(config, report)
    V = config.vocab_size
    step_size = config.step_factor * eta_star
    E1 = model.E.detach().clone()
    v = model.v.detach()
    alpha = signed_frequency(data.X, data.y, V).numpy()
    values = (E1 @ v).numpy()

    report(STAGES[2])
    try:
        # selection=: the relevant tokens of a sequence also tie, as when
        # p selects all of them
        solution = solve_max_margin(E1, data.X, selection=data.relevant)
        reference, message = solution.direction, ""
    except ValueError as error:
        reference, message = None, str(error)

    report(STAGES[3])
    history = train_cls(
        model, data.X, data.y, steps=config.p_steps, lr=config.p_lr,
        method="normalized", reference=reference, relevant=data.relevant,
    )  # fmt: skip
    arrays = history.as_arrays()
    if reference is None:
        arrays["cosine"] = np.full_like(arrays["cosine"], np.nan)
    with torch.no_grad():
        attention = model.attention(data.X)
        p = model.p.detach()
        scores = (model.token_scores() / (float(p.norm()) or 1.0)).numpy().copy()
    selected = token_mass(attention, data.X, config.vocab_size) >= SELECTED_MASS
    chosen_pairs = torch.unique((torch.arange(config.n)[:, None] * config.vocab_size + data.X)[data.relevant & selected])
    all_pairs = torch.unique((torch.arange(config.n)[:, None] * config.vocab_size + data.X)[data.relevant])
    final_cosine = None if reference is None else float(arrays["cosine"][-1])
    selection_cosine = final_cosine
    if reference is not None and not torch.equal(selected, data.relevant):
        # p chose its own set of tokens: compare it with the max-margin direction of that selection
        try:
            selection_cosine = float(p @ solve_max_margin(E1, data.X, selection=selected).direction) / float(p.norm())
        except ValueError:
            selection_cosine = None

    result = ExplorerResult(
        config=config,
        token_class=data.token_class.numpy().copy(),
        alpha=alpha,
        values=values,
        scores=scores,
        eta_star=eta_star,
        step_size=step_size,
        correlation=correlation(values, alpha),
        predicted_correlation=float(predicted_correlation(config.step_factor)),
        slope=slope(alpha, values),
        predicted_slope=step_size / 2 * float(v @ v),
        history=arrays,
        final_cosine=final_cosine,
        max_margin_message=message,
        stop_reason=history.stop_reason,
        relevant_per_sequence=float(data.relevant_per_sequence().double().mean()),
        irrelevant_share=float((~data.relevant).double().mean()),
        selected_fraction=len(chosen_pairs) / len(all_pairs),
        selected_per_sequence=selected_relevant_per_sequence(attention, data.X, data.relevant, config.vocab_size),
        selection_cosine=selection_cosine,
        lost_fraction=float(((attention * data.relevant).sum(1) < LOST_MASS).double().mean()),
        optimal_fraction=optimal_fraction(values, data.X, data.y, data.relevant),
        final_min_attention=float(arrays["min_relevant_attention"][-1]),
        final_mean_attention=float(arrays["mean_relevant_attention"][-1]),
        notice="",
    )
    return replace(result, notice=what_to_notice(result))
