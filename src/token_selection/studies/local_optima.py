"""Global against local convergence of ``p``: one-sided max-margin directions and where GD ends.

Under Assumption 1 a *one-sided* selection picks the relevant token in the sequences of one class
and, in every sequence of the other class, the irrelevant token with the largest label-signed
value ``y_j E_s . v`` (our construction). Its max-margin direction is *locally optimal* in the sense
of Tarzanagh et al. (2023, Definition 2) when, in every sequence, each token whose constraint is
tight has a smaller label-signed value than the selected token. Gradient descent on ``p`` is then
started from three kinds of points and its end direction is compared with the all-relevant and
the two one-sided max-margin directions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from ..theory.importance import signed_frequency
from ..theory.max_margin import MaxMarginSolution, solve_max_margin
from ..theory.model import CLSAttention, logistic_loss
from ..theory.one_step import one_step_embeddings, step_size_from_alpha
from ..theory.training import log_spaced_steps, train_cls

START_KINDS = ("random", "near_bad", "no_step")
"""(a) small random p after the one step; (b) p near a one-sided direction after the step; (c) no step on E."""
ENDPOINTS = ("all_relevant", "one_sided", "other")


def one_sided_selection(
    X: torch.Tensor, y: torch.Tensor, relevant: torch.Tensor, values: torch.Tensor, keep: int
) -> torch.Tensor:
    """(n, T) bool: the relevant token in sequences with label ``keep``, elsewhere the irrelevant token
    with the largest ``y_j E_s . v``. X: (n, T) ids; y: (n,) in {-1, +1}; values: (V,) ``E v``."""
    if keep not in (-1, 1):
        raise ValueError(f"keep must be the label +1 or -1 whose relevant tokens stay selected, got {keep}")
    signed = torch.where(relevant, -torch.inf, values[X] * y[:, None].to(values.dtype))
    decoy = X.gather(1, signed.argmax(dim=1, keepdim=True))
    return torch.where((y == keep)[:, None], relevant, X == decoy)


def local_optimality_violations(
    solution: MaxMarginSolution, X: torch.Tensor, y: torch.Tensor, selected: torch.Tensor, values: torch.Tensor
) -> int:
    """Number of (sequence, token) pairs that break Tarzanagh et al.'s Definition 2 for ``solution``:
    a tight (support) token whose label-signed value is not below the selected token's. 0 = locally optimal."""
    tight = {tuple(pair) for pair in solution.pairs[solution.active].tolist()}
    signed = values[X] * y[:, None].to(values.dtype)
    violations = 0
    for j in range(X.shape[0]):
        chosen = int(X[j][selected[j]][0])
        best = float(signed[j][selected[j]][0])
        for position in torch.nonzero(~selected[j]).flatten().tolist():
            token = int(X[j, position])
            violations += (chosen, token) in tight and float(signed[j, position]) >= best
    return violations


@dataclass(frozen=True)
class GlobalLocalCase:
    """One initialisation (seed) of the reference case after a step of ``eta_ratio * eta*``.

    model: E after the step (float64), p = 0; directions: unit max-margin directions for the
    selections "all_relevant", "keep_positive", "keep_negative"; bad_margin: margin of the
    keep-negative direction; violations: its local-optimality violations (0 = locally optimal).
    """

    model: CLSAttention
    directions: dict[str, torch.Tensor]
    bad_margin: float
    violations: int


def global_local_case(
    X: torch.Tensor, y: torch.Tensor, relevant: torch.Tensor, d: int, eta_ratio: float, seed: int
) -> GlobalLocalCase:
    """Build the case: E_0, v from ``seed``; one step of size ``eta_ratio * eta*`` (0 = no step)."""
    vocab = int(X.max()) + 1
    model = CLSAttention(vocab, d, seed=seed, dtype=torch.float64)
    if eta_ratio > 0:
        eta = eta_ratio * step_size_from_alpha(signed_frequency(X, y, vocab), d)
        model.E.data.copy_(one_step_embeddings(model, X, y, eta))
    E, values = model.E.detach(), model.token_values().detach()
    directions = {"all_relevant": solve_max_margin(E, X, relevant).direction}
    bad = None
    for keep, name in ((1, "keep_positive"), (-1, "keep_negative")):
        selected = one_sided_selection(X, y, relevant, values, keep)
        solution = solve_max_margin(E, X, selected)
        directions[name] = solution.direction
        if keep == -1:
            bad = (solution, selected)
    solution, selected = bad
    return GlobalLocalCase(model, directions, solution.margin, local_optimality_violations(solution, X, y, selected, values))


def start_point(case: GlobalLocalCase, kind: str, seed: int, start_norm: float = 2.0, noise: float = 0.3) -> torch.Tensor:
    """Initial p: (d,). "random"/"no_step": a random unit direction of norm 1e-2 / sqrt(d), a small random start;
    "near_bad": ``start_norm / margin`` along the keep-negative direction plus ``noise`` times a random unit vector."""
    if kind not in START_KINDS:
        raise ValueError(f"kind must be one of {START_KINDS}, got {kind!r}")
    gen = torch.Generator().manual_seed(10_000 + seed)
    direction = torch.randn(case.model.d, generator=gen, dtype=torch.float64)
    direction /= direction.norm()
    if kind != "near_bad":
        return 1e-2 * direction / case.model.d**0.5
    return start_norm / case.bad_margin * (case.directions["keep_negative"] + noise * direction)


def classify_endpoint(cosines: dict[str, float], threshold: float) -> str:
    """Endpoint label: "all_relevant" or "one_sided" when the cosine to that max-margin direction
    is >= threshold, else "other"."""
    if cosines["all_relevant"] >= threshold:
        return "all_relevant"
    if max(cosines["keep_positive"], cosines["keep_negative"]) >= threshold:
        return "one_sided"
    return "other"


def run_start(
    case: GlobalLocalCase, X: torch.Tensor, y: torch.Tensor, p0: torch.Tensor, *, steps: int, lr: float
) -> dict[str, float]:
    """Normalised GD on p from ``p0`` (E, v frozen); cosines of the end direction with the case's directions."""
    model = CLSAttention(case.model.vocab_size, case.model.d, dtype=torch.float64)
    model.load_state_dict(case.model.state_dict())
    model.p.data.copy_(p0)
    train_cls(model, X, y, steps=steps, lr=lr, method="normalized", log_points=2)
    p = model.p.detach()
    return {name: float(p @ direction / p.norm()) for name, direction in case.directions.items()}


def initial_lean(model: CLSAttention, X: torch.Tensor, y: torch.Tensor, p0: torch.Tensor | None = None) -> float:
    """cos(-grad_p L, v) at ``p0`` (default 0), E and v of ``model`` frozen: how far the first step of GD on p
    leans towards +v (positive) or -v (negative).

    By the identity -grad_p L . v = mean_j y_j g_j Var_j(E.v) at p = 0 (chapter 10), positive sequences
    pull towards +v and negative ones towards -v; the sign says which class wins at the start."""
    start = CLSAttention(model.vocab_size, model.d, dtype=torch.float64)
    start.load_state_dict(model.state_dict())
    start.p.data.copy_(torch.zeros(model.d, dtype=torch.float64) if p0 is None else p0)
    logistic_loss(start(X), y.double()).backward()
    pull, v = -start.p.grad, start.v.detach()
    return float(pull @ v / (pull.norm() * v.norm()))


def run_trajectory(
    case: GlobalLocalCase, X: torch.Tensor, y: torch.Tensor, p0: torch.Tensor, *, steps: int, lr: float, points: int = 30
) -> dict[str, np.ndarray]:
    """``run_start`` with the direction of p recorded on the way, at about ``points`` log-spaced steps.

    Returns (K,) float64 arrays: "step"; "v": cos(p, v); and one per direction of the case
    ("all_relevant", "keep_positive", "keep_negative"). Normalised GD has no state besides p, so running
    it in pieces gives the same end point as ``run_start``."""
    model = CLSAttention(case.model.vocab_size, case.model.d, dtype=torch.float64)
    model.load_state_dict(case.model.state_dict())
    model.p.data.copy_(p0)
    directions = {"v": model.v.detach() / model.v.detach().norm(), **case.directions}
    rows, done = [], 0
    for mark in sorted(log_spaced_steps(steps, points)):
        stopped = False
        if mark > done:
            history = train_cls(model, X, y, steps=mark - done, lr=lr, method="normalized", log_points=2)
            stopped, done = history.stop_reason.startswith("stopped"), done + history.step[-1]
        p = model.p.detach()
        rows.append([done] + [float(p @ direction / p.norm()) for direction in directions.values()])
        if stopped:  # at the float64 floor: run_start stops here too
            break
    table = np.asarray(rows, dtype=np.float64)
    return {"step": table[:, 0], **{name: table[:, k + 1] for k, name in enumerate(directions)}}
