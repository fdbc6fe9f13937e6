"""Shared fixtures: the reference Assumption-1 case of the course."""

from __future__ import annotations

import pytest
import torch

import token_selection as ts


@pytest.fixture(scope="session")
def reference_case():
    """n=200, T=8, V=50, d=512, delta=0; E after one step of lr=200 (float64)."""
    data = ts.make_synthetic(200, 8, 50, 0.0, seed=0)
    model = ts.CLSAttention(50, 512, seed=0, dtype=torch.float64)
    model.E.data.copy_(ts.one_step_embeddings(model, data.X, data.y, 200.0))
    return data, model
