"""Shared fixtures of the explorer's tests."""

from __future__ import annotations

import numpy as np
import pytest

from token_selection.explorer.compute import explore
from token_selection.explorer.config import ExplorerConfig
from token_selection.explorer.grid import compute_grid
from token_selection.explorer.result import ExplorerResult

TINY_AXES = {"delta": (0.0,), "d": (64,), "T": (4, 8)}
"""Two grid points: enough to test the cache and the frames, fast to compute."""


@pytest.fixture(scope="session")
def reference():
    """The reference case (n=200, T=8, V=50, d=512, delta=0, one step of 14.3 eta*), by explore."""
    return explore(0.0, 512, 8, p_steps=5000)


@pytest.fixture(scope="session")
def tiny_grid():
    return compute_grid(TINY_AXES, progress=False)


def hand_made_result(**changes) -> ExplorerResult:
    """A result built by hand, no ``explore`` run: six tokens of uneven classes (two positive-relevant, one
    negative-relevant, three irrelevant) and four recorded training steps (0, 1, 10, 100); ``changes`` replace fields."""
    fields = dict(
        config=ExplorerConfig(delta=0.25, d=64, T=6, n=10, step_factor=2.5, p_steps=100, seed=3),
        token_class=np.array([1, -1, 0, 0, 1, 0]),
        alpha=np.array([0.5, -0.25, 0.0, 0.125, 0.75, -0.125]),
        values=np.array([1.0, -0.5, 0.25, 0.5, 2.0, -0.25]),
        scores=np.array([3.0, 2.0, -1.0, -1.5, 4.0, -0.5]),
        eta_star=4.0,
        step_size=10.0,
        correlation=0.9876,
        predicted_correlation=0.9287,
        slope=2.5,
        predicted_slope=3.0,
        history={
            "step": np.array([0, 1, 10, 100]),
            "cosine": np.array([0.0, 0.5, 0.9, 0.96]),
            "mean_relevant_attention": np.array([0.3, 0.4, 0.8, 0.99]),
            "min_relevant_attention": np.array([0.1, 0.2, 0.6, 0.95]),
            "p_norm": np.array([0.0, 1.0, 10.0, 100.0]),
            "loss": np.array([0.7, 0.6, 0.3, 0.1]),
        },
        final_cosine=0.96,
        max_margin_message="",
        stop_reason="steps",
        relevant_per_sequence=1.5,
        irrelevant_share=0.5,
        selected_fraction=1.0,
        selected_per_sequence=1.5,
        selection_cosine=0.96,
        lost_fraction=0.0,
        optimal_fraction=1.0,
        final_min_attention=0.95,
        final_mean_attention=0.99,
        notice="a <b>bold</b> & plain sentence",
    )
    return ExplorerResult(**(fields | changes))
