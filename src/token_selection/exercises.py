"""Checkers for the chapters' coding exercises: compare a reader's function with the package's.

An exercise cell holds a stub the reader fills in; ``check_exercise`` calls it and the
reference on the same inputs and reports the first disagreement. A stub that still
raises ``NotImplementedError`` is reported as not attempted in one plain sentence and the
checker returns None, so a notebook shows no bare True or False under it (nbval and
Jupyter Book alike); any other difference raises ``AssertionError`` saying which case and
by how much. The chapters' references and cases live in the package
(``theory.exercise_cases``, ``studies.exercise_cases``), so a checker cell is one line:
``check(my_masked_softmax)`` in chapters 1-4 (``theory.exercise_cases.check``, which knows each exercise by the name of
its stub), or
``check_exercise(my_wilson, *exercise("wilson_interval"))`` with the studies' registry.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np
import torch

Cases = list[tuple[tuple[Any, ...], dict[str, Any]]]
"""An exercise's test cases: (positional arguments, keyword arguments) per call."""
Registry = dict[str, tuple[Callable[..., Any], Callable[[], Cases]]]
"""Exercise name -> (reference function, builder of its cases)."""
T = TypeVar("T")


def registered(registry: Mapping[str, T], name: str) -> T:
    """``registry[name]``, for a registry keyed by exercise name; ValueError naming the known exercises for any other
    name."""
    if name not in registry:
        raise ValueError(f"unknown exercise {name!r}; known: {sorted(registry)}")
    return registry[name]


def label_for(candidate: Callable[..., Any], stubs: Mapping[str, str], label: str | None = None) -> str:
    """The exercise a checker call answers: ``label`` when given, else the exercise whose stub bears ``candidate``'s
    name (``stubs``: stub name -> exercise label). ValueError naming the stubs and the labels when neither says."""
    if label is not None:
        return label
    name = getattr(candidate, "__name__", "")
    if name in stubs:
        return stubs[name]
    raise ValueError(
        f"cannot tell which exercise {name or 'this function'!r} answers: keep the stub's name (one of "
        f"{sorted(stubs)}) or name the exercise, check(function, label), with a label among {sorted(stubs.values())}"
    )


def lookup_exercise(registry: Registry, name: str) -> tuple[Callable[..., Any], Cases]:
    """``(reference, cases)`` of the exercise ``name`` in ``registry``, the cases built now; ValueError naming the
    known exercises for any other name."""
    reference, cases = registered(registry, name)
    return reference, cases()


def _as_array(value: Any) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().double().numpy()
    return np.asarray(value, dtype=np.float64)


def not_attempted(candidate: Callable[..., Any], name: str = "your function") -> None:
    """Print the one line a learner sees under a checker whose stub is not filled in yet."""
    own = getattr(candidate, "__name__", "")
    shown = own if own.isidentifier() else name
    print(f"Your turn: fill in {shown} above and run this cell; it then checks your answer on the course's cases.")


def check_exercise(
    candidate: Callable[..., Any],
    reference: Callable[..., Any],
    cases: Sequence[tuple[tuple[Any, ...], dict[str, Any]]],
    *,
    rtol: float = 1e-6,
    atol: float = 1e-9,
    name: str = "your function",
) -> bool | None:
    """True when ``candidate`` matches ``reference`` on every case; None when it is not attempted.

    cases: ``(args, kwargs)`` pairs. ``name`` (in messages) defaults to the candidate's own
    name. Outputs are compared as float64 arrays (shapes must be
    equal) with ``np.allclose(rtol, atol)``. Raises AssertionError on the first mismatch.
    """
    if name == "your function" and getattr(candidate, "__name__", "").isidentifier():
        name = candidate.__name__
    if not cases:
        raise ValueError("cases must hold at least one (args, kwargs) pair")
    for number, (args, kwargs) in enumerate(cases, start=1):
        try:
            got = candidate(*args, **kwargs)
        except NotImplementedError:
            not_attempted(candidate, name)
            return None
        want = _as_array(reference(*args, **kwargs))
        got = _as_array(got)
        if got.shape != want.shape:
            raise AssertionError(f"{name}, case {number}: shape {got.shape}, expected {want.shape}")
        if not np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
            worst = float(np.nanmax(np.abs(got - want)))
            raise AssertionError(f"{name}, case {number}: differs from the reference by up to {worst:.3g}")
    count = {1: "the one case", 2: "both cases"}.get(len(cases), f"all {len(cases)} cases")
    print(f"{name}: correct on {count}")
    return True
