"""Training ``p`` past the float64 floor: normalised GD with the gradient's direction computed in the log domain.

A run of ``train_cls`` stops where its gradient falls to the rounding error of float64: there the factor
``u_i - f_j`` of a sequence whose attention has settled on one token is the difference of two nearly equal numbers,
and its rounding error outweighs the true value. Written as ``u_i - f_j = sum_k q_jk (u_i - u_k)``, and with every
factor of a term of the gradient kept as a logarithm, the direction ``-grad L / |grad L|`` is computed to float64's
relative precision however small the gradient is (its size is returned as a logarithm). This study starts from the
ends of the seed sweep (``flow_seed_sweep``: unit normalised steps, and the flow by scipy's RK45) and continues each
the way it came, over ``past_length`` more units of arc: unit steps along that direction, or the flow along it by
RK45. ``|p|`` grows many times past the floor, and the study asks whether a one-sided end stays one-sided.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from scipy.special import logsumexp

from ..scale import is_full
from ..theory.thresholds import DIRECTION_COSINE, SELECTED_ATTENTION
from .flow_seed_sweep import ARC_WORDS, REFERENCE_WORDS, count, flow_sweep_settings
from .pool import Track, run_tasks, untracked

RECORD = "past_floor"
WAYS = ("euler_1", "rk45")
"""The ends continued, each the way it came: unit normalised steps (the report's seed sweep), and the flow by scipy's
RK45."""


def past_floor_settings(scale: str) -> dict[str, Any]:
    """The study's settings at ``scale`` ("fast" or "full"): the reference dimension, seeds, chapter 4's arc length to
    the floor (``steps`` x 1), the arc length followed past it, the solver's tolerances (the flow sweep's, for both
    stretches of the flow), the thresholds."""
    full = is_full(scale)
    return {
        "d": 512,
        "seeds": list(range(100 if full else 4)),
        "steps": 5000,
        "past_length": 1500 if full else 150,
        "ode": flow_sweep_settings(scale)["ode"],
        "cosine_threshold": DIRECTION_COSINE,
        "selected_attention": SELECTED_ATTENTION,
    }


def log_direction(
    E: np.ndarray, values: np.ndarray, X: np.ndarray, y: np.ndarray, p: np.ndarray
) -> tuple[np.ndarray, float, np.ndarray]:
    """The descent direction -grad L/|grad L| (d,) at ``p`` (d,), log |grad L| and the log attention (n, T).

    E: (V, d) embeddings; values: (n, T) the values u = E_{x_ji} . v; X: (n, T) ids; y: (n,) labels in {-1, +1}.
    Each term dL/df_j q_ji (u_i - f_j) of the gradient is kept as a sign and a logarithm, with
    u_i - f_j = sum_k q_jk (u_i - u_k) (no difference of nearly equal numbers) and log sigma(-y f) = -log(1 + e^{y f});
    the terms are rescaled by the largest before they are summed. A zero gradient (every value alike) raises.
    """
    n = X.shape[0]
    scores = (E @ p)[X]
    log_q = scores - logsumexp(scores, axis=1, keepdims=True)
    f = (np.exp(log_q) * values).sum(axis=1)
    gaps = values[:, :, None] - values[:, None, :]  # (n, T, T): u_i - u_k
    with np.errstate(divide="ignore"):
        log_parts = log_q[:, None, :] + np.log(np.abs(gaps))
    log_pos = logsumexp(np.where(gaps > 0, log_parts, -np.inf), axis=2)
    log_neg = logsumexp(np.where(gaps < 0, log_parts, -np.inf), axis=2)
    big, small = np.maximum(log_pos, log_neg), np.minimum(log_pos, log_neg)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_gap = big + np.log1p(-np.exp(small - big))  # log |u_i - f_j|; -inf where the parts cancel exactly
    sign = np.where(log_pos >= log_neg, 1.0, -1.0) * -y[:, None]  # sign of dL/df_j (u_i - f_j)
    log_terms = (-np.logaddexp(0.0, y * f) - np.log(n))[:, None] + log_q + log_gap
    finite = np.isfinite(log_terms)
    if not finite.any():
        raise ValueError("the gradient is exactly zero: every sequence's values are alike")
    top = float(log_terms[finite].max())
    weights = np.where(finite, sign * np.exp(np.where(finite, log_terms, top) - top), 0.0)
    gradient = E.T @ np.bincount(X.ravel(), weights=weights.ravel(), minlength=E.shape[0])
    size = float(np.linalg.norm(gradient))
    return -gradient / size, top + float(np.log(size)), log_q


def log_relevant_attention(log_q: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """log of each sequence's attention on its relevant tokens (n,), from log attention (n, T) and a mask (n, T)."""
    return logsumexp(np.where(relevant, log_q, -np.inf), axis=1)


def state(E: np.ndarray, values: np.ndarray, X: np.ndarray, y: np.ndarray, relevant: np.ndarray, p: np.ndarray,
          target: np.ndarray, selected: float) -> dict[str, Any]:  # fmt: skip
    """Where a run stands at ``p``: "norm" |p|, "cos" with ``target`` (p_mm; 0 at p = 0), "log_gradient" log |grad L|,
    the smallest log attention on the relevant token over the positive and over the negative sequences
    ("log_attention": [pos, neg]) and the classes (+1, -1) whose every sequence puts more than ``selected`` on it
    ("classes")."""
    _, log_gradient, log_q = log_direction(E, values, X, y, p)
    log_mass = log_relevant_attention(log_q, relevant)
    worst = [float(log_mass[y == k].min()) for k in (1, -1)]
    norm = float(np.linalg.norm(p))
    return {
        "norm": norm,
        "cos": float(p @ target / (norm * np.linalg.norm(target))) if norm > 0 else 0.0,
        "log_gradient": log_gradient,
        "log_attention": worst,
        "classes": [k for k, w in zip((1, -1), worst, strict=True) if w > np.log(selected)],
    }


def continue_run(
    E: np.ndarray, values: np.ndarray, X: np.ndarray, y: np.ndarray, p: np.ndarray, steps: int, lr: float = 1.0
) -> np.ndarray:
    """``steps`` normalised steps of length ``lr`` from ``p`` (d,) along ``log_direction``: the end point (d,)."""
    p = p.copy()
    for _ in range(steps):
        p += lr * log_direction(E, values, X, y, p)[0]
    return p


def continue_flow(E: np.ndarray, values: np.ndarray, X: np.ndarray, y: np.ndarray, p: np.ndarray, length: float,
                  rtol: float, atol: float, points: int = 2) -> tuple[np.ndarray, int]:  # fmt: skip
    """The normalised flow dp/ds = ``log_direction`` from ``p`` (d,) over the arc length ``length``, by scipy's RK45
    at ``rtol``, ``atol``: the points (points, d) at ``points`` evenly spaced arc lengths from 0 to ``length``, and the
    number of evaluations of the direction."""
    from scipy.integrate import solve_ivp

    if not length > 0 or points < 2:
        raise ValueError(f"need length > 0 and points >= 2, got length = {length}, points = {points}")
    evaluations = 0

    def field(s: float, q: np.ndarray) -> np.ndarray:
        nonlocal evaluations
        evaluations += 1
        return log_direction(E, values, X, y, q)[0]

    solved = solve_ivp(field, (0.0, length), p, method="RK45", rtol=rtol, atol=atol,
                       t_eval=np.linspace(0.0, length, points))  # fmt: skip
    if not solved.success:
        raise RuntimeError(f"RK45 failed past the floor: {solved.message}")
    return solved.y.T, evaluations


def _check_problem(E: np.ndarray, values: np.ndarray, X: np.ndarray, y: np.ndarray, relevant: np.ndarray,
                   p: np.ndarray, target: np.ndarray) -> None:  # fmt: skip
    """ValueError naming the first argument of ``trajectory`` whose shape or values do not fit the others: E, X, p and
    target by the package's validators (``validation``), the values, labels and mask here."""
    from ..validation import check_matrix, check_tokens, check_vector

    V, d = check_matrix(E, "E").shape
    n, T = check_tokens(X, V).shape
    checks = [
        ("values", values.shape == (n, T), f"shape {(n, T)} like X"),
        ("y", y.shape == (n,) and bool(np.isin(y, (-1, 1)).all()), f"shape {(n,)} with labels -1 and +1"),
        ("relevant", relevant.shape == (n, T) and relevant.dtype == bool, f"a boolean mask of shape {(n, T)}"),
    ]
    for name, ok, allowed in checks:
        if not ok:
            raise ValueError(f"{name} must have {allowed}, as E {(V, d)} and X {(n, T)} ask")
    check_vector(p, d, "p")
    check_vector(target, d, "target")


def trajectory(E: np.ndarray, values: np.ndarray, X: np.ndarray, y: np.ndarray, relevant: np.ndarray, p: np.ndarray,
               target: np.ndarray, length: int, every: int, way: str = "rk45", ode: dict[str, float] | None = None,
               selected: float = SELECTED_ATTENTION) -> list[dict[str, Any]]:  # fmt: skip
    """From ``p`` (d,) over the arc length ``length`` (a multiple of ``every``), by unit steps (``way`` "euler_1") or
    along the flow (``way`` "rk45", at ``ode``'s "rtol" and "atol", default 1e-6 and 1e-8): the ``state`` at the
    start and after every ``every`` units of arc, each with its "arc"."""
    _check_problem(E, values, X, y, relevant, p, target)
    if every < 1 or length < every or length % every:
        raise ValueError(f"need every >= 1 and length a positive multiple of it, got every = {every}, length = {length}")
    if way not in WAYS:
        raise ValueError(f"way must be one of {WAYS}, got {way!r}")
    arcs = list(range(0, length + 1, every))
    if way == "euler_1":
        points = [p]
        for _ in arcs[1:]:
            points.append(continue_run(E, values, X, y, points[-1], every))
    else:
        tolerances = ode or {"rtol": 1e-6, "atol": 1e-8}
        points = list(continue_flow(E, values, X, y, p, length, tolerances["rtol"], tolerances["atol"], len(arcs))[0])
    return [state(E, values, X, y, relevant, q, target, selected) | {"arc": arc} for q, arc in zip(points, arcs, strict=True)]


def run_seed(seed: int, settings: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """One seed of the reference case at ``settings["d"]``, from each of its floor ends, each continued the way it
    came (``WAYS``: ``past_length`` unit steps, or the flow over that arc length): {way: {"floor": ``state`` there,
    "past": ``state`` at the end, "kept": the same classes selected at both, "rate": the fall of log |grad L| per unit
    of |p| between them, "evaluations": the flow's evaluations of the direction (0 for unit steps)}}."""
    from ..theory.max_margin import solve_max_margin
    from ..theory.synthetic import ReferenceCase
    from .flow_solvers import flow_batch, flow_ode

    torch.set_num_threads(1)
    d, ode, length = settings["d"], settings["ode"], settings["past_length"]
    data, model = ReferenceCase(seed=seed, d=d).build()
    E_t, v_t = model.E.detach(), model.v.detach()
    p0 = torch.zeros(d, dtype=torch.float64)
    euler, _ = flow_batch(E_t[None], v_t[None], data.X[None], data.y[None], p0[None], steps=settings["steps"], lr=1.0)
    flow = flow_ode(E_t, v_t, data.X, data.y, p0, length=float(settings["steps"]), rtol=ode["rtol"], atol=ode["atol"])
    E, X, y, relevant = E_t.numpy(), data.X.numpy(), data.y.double().numpy(), data.relevant.numpy()
    values = (E @ v_t.numpy())[X]
    target = solve_max_margin(E_t, data.X, data.relevant).direction.numpy()
    ends = {"euler_1": (euler[0].numpy(), continue_run(E, values, X, y, euler[0].numpy(), length), 0)}
    flow_points, evaluations = continue_flow(E, values, X, y, flow["p"].numpy(), length, ode["rtol"], ode["atol"])
    ends["rk45"] = (flow["p"].numpy(), flow_points[-1], evaluations)
    out = {}
    for way, (floor_end, past_end, used) in ends.items():
        at = [state(E, values, X, y, relevant, q, target, settings["selected_attention"]) for q in (floor_end, past_end)]
        rate = (at[0]["log_gradient"] - at[1]["log_gradient"]) / (at[1]["norm"] - at[0]["norm"])
        out[way] = {"floor": at[0], "past": at[1], "kept": at[0]["classes"] == at[1]["classes"], "rate": rate,
                    "evaluations": used}  # fmt: skip
    return out


def _run_task(task: tuple[int, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return run_seed(*task)


def summarise(per_seed: list[dict[str, dict[str, Any]]], seeds: list[int]) -> dict[str, Any]:
    """Per way: the per-seed runs ("runs"), the seeds selecting one class only at the floor ("one_sided_seeds"), and
    counts with Wilson 95% intervals: "kept" (the same classes selected past the floor as at it) and, of the
    one-sided ends, "fell" (the missed class's relevant attention smaller past the floor than at it)."""
    if len(per_seed) != len(seeds):
        raise ValueError(f"need one run per seed, got {len(per_seed)} runs for {len(seeds)} seeds")
    out: dict[str, Any] = {}
    for way in WAYS:
        runs = [run[way] for run in per_seed]
        one_sided = [i for i, r in enumerate(runs) if len(r["floor"]["classes"]) == 1]
        fell = []
        for i in one_sided:
            missed = 0 if runs[i]["floor"]["classes"] == [-1] else 1  # index in log_attention: [pos, neg]
            fell.append(runs[i]["past"]["log_attention"][missed] < runs[i]["floor"]["log_attention"][missed])
        out[way] = {
            "runs": runs,
            "one_sided_seeds": [seeds[i] for i in one_sided],
            "counts": {"kept": count([r["kept"] for r in runs]), "fell": count(fell)},
        }
    return out


def counts_not_whole(metrics: dict[str, Any], names: tuple[str, ...] = ("kept", "fell")) -> list[tuple[str, str]]:
    """(way, name) for each of a past_floor record's counts ``names`` that is not whole (passed < trials): "kept", an
    end that changed its selected classes past the floor; "fell", a one-sided end whose missed class stopped sinking.
    [] when every end stays as it was at the floor. An unknown name is refused."""
    unknown = sorted(set(names) - {"kept", "fell"})
    if unknown:
        raise ValueError(f"unknown counts {unknown}; a past_floor record counts 'kept' and 'fell'")
    return [
        (way, name)
        for way in metrics["ways"]
        for name in names
        if metrics[way]["counts"][name]["passed"] != metrics[way]["counts"][name]["trials"]
    ]


def run_past_floor(settings: dict[str, Any], track: Track = untracked, jobs: int | None = None) -> dict[str, Any]:
    """Every seed, in ``jobs`` processes (default: one per CPU core): metrics["ways"] and metrics[way], the columns
    of ``summarise``."""
    tasks = [(seed, settings) for seed in settings["seeds"]]
    runs = run_tasks(_run_task, tasks, track, jobs)
    return {"ways": list(WAYS), **summarise(runs, settings["seeds"])}


PAST_FLOOR_PROTOCOL = (
    f"{REFERENCE_WORDS} at d = 512 for each seed "
    f"of the flow sweep: p trained from 0 with E and v frozen to the float64 floor of train_cls over {ARC_WORDS}, "
    "by normalised GD with step 1 and along the flow by scipy's RK45 (the flow sweep's tolerances); "
    "each end continued the way it came over a further arc length (full: 1500, fast: 150), by unit normalised steps or "
    "by RK45 at the same tolerances, along -grad L/|grad L| computed in the log domain (each term's factors as "
    "logarithms, u_i - f_j as sum_k q_jk (u_i - u_k)), so that no difference of nearly equal numbers is "
    "taken. At the floor and "
    f"after: |p|, cos(p, p_mm), log |grad L|, the smallest log attention on the relevant token per class, and the "
    f"classes whose every sequence puts more than {SELECTED_ATTENTION:g} on it. Wilson 95% intervals."
)
