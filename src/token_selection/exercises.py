"""Checkers for the chapters' coding exercises: compare a reader's function with the package's.

An exercise cell holds a stub the reader fills in; ``check_exercise`` calls it and the
reference on the same inputs and reports the first disagreement. A stub that still
raises ``NotImplementedError`` is reported as not attempted (nothing is asserted about
it); any other difference raises ``AssertionError`` saying which case and by how much.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import torch


def _as_array(value: Any) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().double().numpy()
    return np.asarray(value, dtype=np.float64)


def check_exercise(
    candidate: Callable[..., Any],
    reference: Callable[..., Any],
    cases: Sequence[tuple[tuple[Any, ...], dict[str, Any]]],
    *,
    rtol: float = 1e-6,
    atol: float = 1e-9,
    name: str = "your function",
) -> bool:
    """True when ``candidate`` matches ``reference`` on every case; False when it is not attempted.

    cases: ``(args, kwargs)`` pairs. Outputs are compared as float64 arrays (shapes must be
    equal) with ``np.allclose(rtol, atol)``. Raises AssertionError on the first mismatch.
    """
    if not cases:
        raise ValueError("cases must hold at least one (args, kwargs) pair")
    for number, (args, kwargs) in enumerate(cases, start=1):
        try:
            got = candidate(*args, **kwargs)
        except NotImplementedError:
            print(f"{name}: not attempted yet (it raises NotImplementedError)")
            return False
        want = _as_array(reference(*args, **kwargs))
        got = _as_array(got)
        if got.shape != want.shape:
            raise AssertionError(f"{name}, case {number}: shape {got.shape}, expected {want.shape}")
        if not np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
            worst = float(np.nanmax(np.abs(got - want)))
            raise AssertionError(f"{name}, case {number}: differs from the reference by up to {worst:.3g}")
    print(f"{name}: correct on all {len(cases)} cases")
    return True
