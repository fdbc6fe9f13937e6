"""Every explorer setting on the boundary of what it allows: the boundary itself accepted, the nearest value beyond refused."""

from __future__ import annotations

import math

import numpy as np
import pytest

from token_selection.explorer.config import FIELD_NAMES, ExplorerConfig, factor_for_alignment

BASE = {"delta": 0.0, "d": 8, "T": 4}


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("delta", 0.0),
        ("delta", 1.0),
        ("d", 1),
        ("T", 2),
        ("n", 2),
        ("step_factor", 5e-324),
        ("p_steps", 1),
        ("seed", 0),
        ("vocab_size", 3),
        ("p_lr", 5e-324),
        ("zipf", 0.0),
        ("d", np.int64(3)),
        ("seed", 2.0),
    ],
)
def test_each_boundary_is_allowed(name, value):
    config = ExplorerConfig.from_settings(**(BASE | {name: value}))
    integer = name in ("d", "T", "n", "p_steps", "seed", "vocab_size")
    assert getattr(config, name) == value and type(getattr(config, name)) is (int if integer else float)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("delta", -5e-324, "delta must be a probability in [0, 1], got -5e-324"),
        ("delta", math.nextafter(1.0, 2.0), "delta must be a probability in [0, 1], got 1.0000000000000002"),
        ("d", 0, "d must be an embedding dimension >= 1, got 0"),
        ("T", 1, "T=1 leaves no room for selection"),
        ("n", 0, "n must be an even number of sequences >= 2, got 0"),
        ("n", 3, "n=3 is odd: sequences come in label-swapped twins, so n must be even"),
        ("step_factor", 0.0, "step_factor must be a finite multiple of eta* > 0, got 0.0"),
        ("p_steps", 0, "p_steps must be a number of steps >= 1, got 0"),
        ("seed", -1, "seed must be an integer >= 0, got -1"),
        ("vocab_size", 2, "vocab_size must be a vocabulary size >= 3, got 2"),
        ("p_lr", 0.0, "p_lr must be a finite learning rate > 0 for p, got 0.0"),
        ("zipf", -5e-324, "zipf must be a finite Zipf exponent >= 0, got -5e-324"),
        ("d", True, "d must be an integer (an embedding dimension >= 1), got True"),
        ("d", "8", "d must be an integer (an embedding dimension >= 1), got '8'"),
        ("zipf", float("inf"), "zipf must be a finite Zipf exponent >= 0, got inf"),
        ("delta", None, "delta must be a number (a probability in [0, 1]), got None"),
    ],
)
def test_the_nearest_value_beyond_each_boundary_is_refused_with_its_message(name, value, message):
    with pytest.raises(ValueError) as info:
        ExplorerConfig.from_settings(**(BASE | {name: value}))
    assert str(info.value).startswith(message)


def test_unknown_settings_are_named_sorted_with_the_known_ones():
    with pytest.raises(ValueError) as info:
        ExplorerConfig.from_settings(zeta=1, alpha=2)
    assert str(info.value) == f"unknown explorer setting(s) ['alpha', 'zeta']; the settings are {FIELD_NAMES}"
    assert FIELD_NAMES == ("delta", "d", "T", "n", "step_factor", "p_steps", "seed", "vocab_size", "p_lr", "zipf")


def test_label_names_every_setting_a_figure_needs():
    config = ExplorerConfig(delta=0.25, d=64, T=8, n=100, step_factor=2.5, p_steps=300, seed=3)
    assert config.label() == "delta=0.25, d=64, T=8, n=100, one step eta=2.5 eta*, p-steps=300, seed=3"


@pytest.mark.parametrize(("target", "factor"), [(0.0, 0.0), (0.6, 0.75), (0.8, 4 / 3)])
def test_factor_for_alignment_from_zero_on(target, factor):
    assert factor_for_alignment(target) == pytest.approx(factor)


@pytest.mark.parametrize("target", [1.0, -1e-12, float("nan")])
def test_factor_for_alignment_refuses_one_and_beyond(target):
    with pytest.raises(ValueError, match="target must be"):
        factor_for_alignment(target)


def test_every_setting_is_stored_as_its_own_type_whatever_type_it_came_in():
    config = ExplorerConfig(delta=0, d=8.0, T=np.int32(4), n=20.0, step_factor=3, p_steps=300.0, seed=np.int64(1),
                            vocab_size=12.0, p_lr=1, zipf=np.float32(0.5))  # fmt: skip
    floats = {"delta", "step_factor", "p_lr", "zipf"}
    for name in FIELD_NAMES:
        assert type(getattr(config, name)) is (float if name in floats else int), name
    assert (config.step_factor, config.p_steps, config.vocab_size, config.p_lr, config.zipf) == (3.0, 300, 12, 1.0, 0.5)


def test_the_length_one_refusal_says_why_in_full():
    with pytest.raises(ValueError) as info:
        ExplorerConfig(T=1)
    assert str(info.value) == (
        "T=1 leaves no room for selection: the generator forces at least one relevant token into every sequence, so with "
        "T=1 there is no irrelevant token for attention to choose against; use T >= 2"
    )
