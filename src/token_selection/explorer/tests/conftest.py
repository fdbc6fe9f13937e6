"""Shared fixtures of the explorer's tests."""

from __future__ import annotations

import pytest

from token_selection.explorer.compute import explore
from token_selection.explorer.grid import compute_grid

TINY_AXES = {"delta": (0.0,), "d": (64,), "T": (4, 8)}
"""Two grid points: enough to test the cache and the frames, fast to compute."""


@pytest.fixture(scope="session")
def reference():
    """The reference case (n=200, T=8, V=50, d=512, delta=0, one step of 15 eta*), by explore."""
    return explore(0.0, 512, 8, p_steps=5000)


@pytest.fixture(scope="session")
def tiny_grid():
    return compute_grid(TINY_AXES, progress=False)
