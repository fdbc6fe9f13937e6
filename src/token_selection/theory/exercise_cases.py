"""Reference functions and cases for the coding exercises of chapters 1-4 and appendix A1.

``EXERCISES[label]`` is ``(reference, cases)``, keyed by the exercise's label in its
chapter: a checker cell is one line, ``check(my_masked_softmax, "ch1-ex-masked-softmax")``,
and the cases the learner's function is compared on are seeded here, not built on the page.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from ..exercises import Cases, Registry, check_exercise, label_for, lookup_exercise
from .importance import posterior_gap, signed_frequency
from .max_margin import selection_pairs
from .model import CLSAttention, logistic_loss, masked_softmax
from .naive import gather_then_attend, loop_logits
from .one_step import predicted_one_step, step_size_threshold
from .synthetic import make_synthetic


def _normal(gen: torch.Generator, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=gen, dtype=torch.float64)


def _lengths_mask(gen: torch.Generator, n: int, T: int) -> torch.Tensor:
    """(n, T) bool: each sequence real up to a random length in 1..T."""
    return torch.arange(T)[None, :] < torch.randint(1, T + 1, (n, 1), generator=gen)


def _softmax_cases() -> Cases:
    gen = torch.Generator().manual_seed(0)
    cases = []
    for scale in (1.0, 1e4):  # ordinary scores, then scores that overflow a plain exp
        scores = scale * _normal(gen, 6, 5)
        mask = torch.rand(6, 5, generator=gen) < 0.7
        mask[:, 0] = True
        cases.append(((scores, mask), {}))
    return cases


def _logit_cases() -> Cases:
    gen = torch.Generator().manual_seed(1)
    cases = []
    for V, d, n, T in [(8, 4, 5, 6), (30, 16, 12, 9)]:
        E, p, v = _normal(gen, V, d), _normal(gen, d), _normal(gen, d)
        X = torch.randint(0, V, (n, T), generator=gen)
        cases.append(((E, p, v, X, _lengths_mask(gen, n, T)), {}))
    return cases


def _importance_cases() -> Cases:
    cases = []
    for seed, (V, n, T) in enumerate([(10, 8, 5), (60, 12, 4)]):  # the second leaves tokens unseen
        gen = torch.Generator().manual_seed(seed)
        X = torch.randint(0, V, (n, T), generator=gen)
        y = torch.where(torch.arange(n) % 2 == 0, 1, -1)
        cases.append(((X, y, V, _lengths_mask(gen, n, T)), {}))
    return cases


def _random_labels(gen: torch.Generator, n: int) -> torch.Tensor:
    return torch.where(torch.rand(n, generator=gen) < 0.5, 1.0, -1.0).double()


def _values_cases() -> Cases:
    cases = []
    for seed, (V, d, n, T) in enumerate([(12, 16, 30, 5), (30, 64, 80, 9)]):
        gen = torch.Generator().manual_seed(seed)
        X = torch.randint(0, V, (n, T), generator=gen)
        y = _random_labels(gen, n)
        E0, v = _normal(gen, V, d) / d**0.5, _normal(gen, d) / d**0.5
        cases.append(((E0, v, X, y, 25.0 * (seed + 1)), {}))
    return cases


def one_step_values(E0: torch.Tensor, v: torch.Tensor, X: torch.Tensor, y: torch.Tensor, eta: float) -> torch.Tensor:
    """(V,) the values E_1 v after one step of size ``eta`` on E from ``E0`` (chapter 3)."""
    return predicted_one_step(E0, v, signed_frequency(X, y, E0.shape[0]), eta) @ v


def _threshold_cases() -> Cases:
    cases = []
    for seed, (V, d, n, T) in enumerate([(20, 64, 40, 6), (50, 512, 200, 8)]):
        sample = make_synthetic(n, T, V, 0.1 * seed, seed=seed)
        cases.append(((sample.X, sample.y, V, d), {}))
    return cases


def distinct_pairs(X: torch.Tensor, relevant: torch.Tensor) -> torch.Tensor:
    """(K, 2) the distinct (relevant, irrelevant) token pairs that share a sequence (chapter 4)."""
    return selection_pairs(X, relevant, int(X.max()) + 1)


def _pair_cases() -> Cases:
    samples = (make_synthetic(12, 5, 20, delta, seed=seed) for seed, delta in enumerate([0.0, 0.3]))
    return [((sample.X, sample.relevant), {}) for sample in samples]


def selection_margin(E: torch.Tensor, p: torch.Tensor, X: torch.Tensor, relevant: torch.Tensor) -> float:
    """min over pairs of p.(E_r - E_s) / |p|: the selection margin of the direction p (chapter 4)."""
    pairs = selection_pairs(X, relevant, E.shape[0])
    return float(((E[pairs[:, 0]] - E[pairs[:, 1]]) @ p).min() / p.norm())


def _margin_cases() -> Cases:
    cases = []
    for seed in range(2):
        gen = torch.Generator().manual_seed(seed)
        sample = make_synthetic(16, 6, 24, 0.2 * seed, seed=seed)
        E = _normal(gen, 24, 10)
        cases.append(((E, _normal(gen, 10), sample.X, sample.relevant), {}))
    return cases


def autograd_grad_E(E: torch.Tensor, p: torch.Tensor, v: torch.Tensor, X: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """(V, d) gradient of the mean logistic loss in E, by automatic differentiation (appendix A1)."""
    model = CLSAttention(E.shape[0], E.shape[1], dtype=torch.float64)
    with torch.no_grad():
        model.E.copy_(E)
        model.p.copy_(p)
        model.v.copy_(v)
    logistic_loss(model(X), y).backward()
    return model.E.grad


def _gradient_cases() -> Cases:
    cases = []
    for seed, (V, d, n, T) in enumerate([(7, 4, 5, 6), (40, 16, 9, 4)]):  # the second leaves tokens unseen
        gen = torch.Generator().manual_seed(seed)
        E, p, v = _normal(gen, V, d), _normal(gen, d), _normal(gen, d)
        X = torch.randint(0, V, (n, T), generator=gen)
        cases.append(((E, p, v, X, _random_labels(gen, n)), {}))
    return cases


def unbatched_logits(E: torch.Tensor, p: torch.Tensor, v: torch.Tensor, X: torch.Tensor, batch_size: int) -> torch.Tensor:
    """(n,) logits gathered all at once: the batch size changes nothing (appendix A1)."""
    return gather_then_attend(E, p, v, X)[0]


def _batch_cases() -> Cases:
    cases = []
    for seed, (V, d, n, T, batch) in enumerate([(9, 4, 7, 5, 3), (30, 16, 25, 8, 25), (30, 16, 25, 8, 1)]):
        gen = torch.Generator().manual_seed(seed)
        E, p, v = _normal(gen, V, d), _normal(gen, d), _normal(gen, d)
        cases.append(((E, p, v, torch.randint(0, V, (n, T), generator=gen), batch), {}))
    return cases


EXERCISES: Registry = {
    "ch1-ex-masked-softmax": (masked_softmax, _softmax_cases),
    "ch1-ex-fast-logits": (loop_logits, _logit_cases),
    "ch2-ex-signed-frequency": (signed_frequency, _importance_cases),
    "ch2-ex-posterior-gap": (posterior_gap, _importance_cases),
    "ch3-ex-values": (one_step_values, _values_cases),
    "ch3-ex-eta-star": (step_size_threshold, _threshold_cases),
    "ch4-ex-pairs": (distinct_pairs, _pair_cases),
    "ch4-ex-margin": (selection_margin, _margin_cases),
    "a1-ex-accumulators": (autograd_grad_E, _gradient_cases),
    "a1-ex-batched": (unbatched_logits, _batch_cases),
}


def exercise(label: str) -> tuple[Callable[..., Any], Cases]:
    """``(reference, cases)`` of the exercise ``label`` (a key of ``EXERCISES``)."""
    return lookup_exercise(EXERCISES, label)


STUBS: dict[str, str] = {
    "my_masked_softmax": "ch1-ex-masked-softmax",
    "two_vector_logits": "ch1-ex-fast-logits",
    "my_signed_frequency": "ch2-ex-signed-frequency",
    "my_posterior_gap": "ch2-ex-posterior-gap",
    "one_step_values": "ch3-ex-values",
    "eta_threshold": "ch3-ex-eta-star",
    "distinct_pairs": "ch4-ex-pairs",
    "selection_margin": "ch4-ex-margin",
    "accumulator_grad_E": "a1-ex-accumulators",
    "batched_gather_logits": "a1-ex-batched",
}
"""The name of each exercise's stub in its chapter -> the exercise's label, so that a checker cell is ``check(stub)``."""


def check(candidate: Callable[..., Any], label: str | None = None) -> None:
    """Compare a learner's ``candidate`` with the reference of its exercise on the exercise's cases.

    The exercise is ``label`` when given, else the one whose stub bears ``candidate``'s name (``STUBS``). Prints one
    line: the cases it is correct on, or that the stub is not filled in yet. Raises AssertionError naming the first
    case that differs, ValueError naming the known labels for an unknown one, or the stubs and labels for a function
    whose name is not a stub's and no label. Returns None, so a checker cell shows nothing but that line.
    """
    check_exercise(candidate, *exercise(label_for(candidate, STUBS, label)))
