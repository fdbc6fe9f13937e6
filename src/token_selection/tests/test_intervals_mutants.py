"""Seed intervals in detail: defaults of show_interval, float values from integer input, and the refusal message."""

from __future__ import annotations

import pytest

from token_selection.intervals import as_interval, seed_interval, show_interval


def test_show_interval_defaults_three_significant_digits_no_scale_no_unit():
    assert show_interval({"value": 0.123456, "low": 0.1, "high": 0.15, "n": 2}) == "0.123 [0.1, 0.15] (2 seeds)"
    assert show_interval({"value": 1234.5, "low": 1234.5, "high": 1234.5, "n": 1}) == "1.23e+03 (one seed)"


def test_integer_values_give_float_values():
    interval = seed_interval([1, 2, 4])
    assert all(type(v) is float for v in interval["values"]) and type(interval["value"]) is float
    assert type(interval["n"]) is int


def test_a_value_of_another_type_is_named_in_the_refusal():
    with pytest.raises(TypeError, match=r"^value must be a number or a seed interval \(dict\), got str: '0\.5'$"):
        as_interval("0.5")
    with pytest.raises(TypeError, match=r"got list: \[1\]$"):
        as_interval([1])
