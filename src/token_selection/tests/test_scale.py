"""The compute-scale setting: default, spelling variants, refusal of unknown scales, and by_scale's pick."""

from __future__ import annotations

import pytest

from token_selection.scale import SCALE_VARIABLE, SCALES, by_scale, compute_scale, is_full


def test_the_variable_is_named_and_the_scales_are_fast_and_full():
    assert SCALE_VARIABLE == "TOKEN_SELECTION_SCALE"
    assert SCALES == ("fast", "full")


def test_unset_or_blank_means_fast(monkeypatch):
    monkeypatch.delenv(SCALE_VARIABLE, raising=False)
    assert compute_scale() == "fast"
    for blank in ("", "   ", "\t"):
        monkeypatch.setenv(SCALE_VARIABLE, blank)
        assert compute_scale() == "fast"


@pytest.mark.parametrize(("value", "scale"), [("fast", "fast"), ("full", "full"), (" FULL ", "full"), ("Fast\n", "fast")])
def test_case_and_surrounding_space_do_not_matter(monkeypatch, value, scale):
    monkeypatch.setenv(SCALE_VARIABLE, value)
    assert compute_scale() == scale


@pytest.mark.parametrize("value", ["medium", "fulll", "f", "fast full"])
def test_an_unknown_scale_is_refused_with_its_name(monkeypatch, value):
    monkeypatch.setenv(SCALE_VARIABLE, value)
    with pytest.raises(ValueError, match=rf"TOKEN_SELECTION_SCALE must be one of \('fast', 'full'\), got '{value.lower()}'"):
        compute_scale()


def test_by_scale_picks_the_value_of_the_current_scale(monkeypatch):
    monkeypatch.setenv(SCALE_VARIABLE, "full")
    assert by_scale(1, 2) == 2
    monkeypatch.setenv(SCALE_VARIABLE, "fast")
    assert by_scale(1, 2) == 1
    monkeypatch.delenv(SCALE_VARIABLE)
    assert by_scale("small", "large") == "small"


def test_is_full_names_the_two_scales_and_refuses_others():
    assert is_full("full") is True and is_full("fast") is False
    for other in ("Full", "half", ""):
        with pytest.raises(ValueError, match=rf"scale must be 'fast' or 'full', got '{other}'"):
            is_full(other)
