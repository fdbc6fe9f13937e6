"""Tests of the explorer's settings: validation messages and the step-size rule's inverse."""

from __future__ import annotations

import math

import pytest

from token_selection.explorer.config import DEFAULT_CONFIG, ExplorerConfig, factor_for_alignment
from token_selection.theory.one_step import predicted_correlation
from token_selection.theory.synthetic import REFERENCE_CASE


def test_defaults_are_the_reference_case():
    case = REFERENCE_CASE
    assert (DEFAULT_CONFIG.delta, DEFAULT_CONFIG.d, DEFAULT_CONFIG.T, DEFAULT_CONFIG.n) == (case.delta, case.d, case.T, case.n)
    assert (DEFAULT_CONFIG.vocab_size, DEFAULT_CONFIG.seed) == (case.vocab_size, case.seed)


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        (dict(delta=1.5), "delta must be a probability in [0, 1]"),
        (dict(delta=float("nan")), "delta must be a probability"),
        (dict(delta="a lot"), "delta must be a number"),
        (dict(d=0), "d must be an embedding dimension >= 1"),
        (dict(d=2.5), "d must be an integer"),
        (dict(T=1), "T=1 leaves no room for selection"),
        (dict(T=0), "T must be a sequence length >= 2"),
        (dict(n=7), "n=7 is odd"),
        (dict(step_factor=-1.0), "step_factor must be a finite multiple of eta* > 0"),
        (dict(step_factor=0.0), "step_factor must be a finite multiple of eta* > 0"),
        (dict(step_factor=float("inf")), "step_factor must be a finite multiple"),
        (dict(p_steps=0), "p_steps must be a number of steps >= 1"),
        (dict(p_lr=0.0), "p_lr must be a finite learning rate > 0"),
        (dict(seed=-1), "seed must be an integer >= 0"),
        (dict(zipf=-0.5), "zipf must be a finite Zipf exponent >= 0"),
        (dict(vocab_size=2), "vocab_size must be a vocabulary size >= 3"),
        (dict(lr=200.0), "unknown explorer setting(s) ['lr']"),
    ],
)
def test_bad_settings_raise_a_readable_value_error(kwargs, fragment):
    with pytest.raises(ValueError) as info:
        ExplorerConfig.from_settings(**(dict(delta=0.0, d=32, T=4) | kwargs))
    assert fragment in str(info.value)


def test_integer_valued_floats_are_stored_as_int():
    config = ExplorerConfig(d=64.0, T=4.0)
    assert type(config.d) is int and type(config.T) is int


@pytest.mark.parametrize("target", [0.0, 0.2, 2**-0.5, 0.95, 0.998])
def test_factor_for_alignment_inverts_the_predicted_correlation(target):
    # exact inverse up to float64 rounding (both sides are closed forms)
    assert predicted_correlation(factor_for_alignment(target)) == pytest.approx(target, abs=1e-12)


def test_factor_for_alignment_at_one_over_root_two_is_one_and_rejects_one():
    assert factor_for_alignment(2**-0.5) == pytest.approx(1.0, rel=1e-12)  # eta = eta*: signal spread = noise spread
    with pytest.raises(ValueError, match="alignment 1 needs an infinite step"):
        factor_for_alignment(1.0)
    with pytest.raises(ValueError, match=r"target must be an alignment in \[0, 1\)"):
        factor_for_alignment(math.nan)
