"""Shared fixtures: the reference Assumption-1 case of the course."""

from __future__ import annotations

import pytest

from token_selection.theory.synthetic import REFERENCE_CASE


@pytest.fixture(scope="session")
def reference_case():
    """``REFERENCE_CASE.build()``: the data and the float64 model after one step of size eta = 200."""
    return REFERENCE_CASE.build()
