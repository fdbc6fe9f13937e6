"""Study records are used only under the settings they were computed with: any single changed setting, or the
other scale, makes ``load_or_run`` compute the study again instead of showing old numbers."""

from __future__ import annotations

import dataclasses

import pytest

from token_selection.results import RECORDS_VARIABLE, write_record
from token_selection.studies import registry
from token_selection.studies.registry import STUDIES, load_or_run


def _changed(value):
    """Another value of the same kind: one edited setting."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value * 1.5 if value else 0.5
    if isinstance(value, list):
        return value[:-1] if len(value) > 1 else value + value
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, dict):  # a group of settings: one of them edited
        key = sorted(value)[0]
        return {**value, key: _changed(value[key])}
    raise AssertionError(f"no other value for {value!r}")


@pytest.fixture
def computed(tmp_path, monkeypatch):
    """Records in an empty folder; every study's run replaced by one that says it ran and with what."""
    monkeypatch.setenv(RECORDS_VARIABLE, str(tmp_path))
    calls = []

    def fake_run(settings, track):
        calls.append(settings)
        assert list(track(iter([1, 2]), 2)) == [1, 2]  # a silent pass-through
        return {"computed": True}

    for name, study in STUDIES.items():
        monkeypatch.setitem(registry.STUDIES, name, dataclasses.replace(study, run=fake_run))
    return calls


@pytest.mark.parametrize("name", sorted(STUDIES))
@pytest.mark.parametrize("scale", ["fast", "full"])
def test_a_study_record_under_any_other_single_setting_is_computed_again(computed, name, scale):
    settings = STUDIES[name].settings(scale)
    write_record(name, scale, protocol="test", settings=settings, metrics={"stored": True})
    assert load_or_run(name, scale) == {"stored": True} and computed == []
    for key, value in settings.items():
        write_record(name, scale, protocol="test", settings={**settings, key: _changed(value)}, metrics={"stored": True})
        assert load_or_run(name, scale) == {"computed": True}, key
        assert computed[-1] == settings  # run with the current settings, not the record's
    assert len(computed) == len(settings)


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_a_fast_record_is_never_shown_at_the_full_scale(computed, name):
    write_record(name, "fast", protocol="test", settings=STUDIES[name].settings("fast"), metrics={"stored": True})
    assert load_or_run(name, "full") == {"computed": True}
    assert computed == [STUDIES[name].settings("full")]


@pytest.mark.parametrize("name", sorted(STUDIES))
def test_the_scales_differ_in_their_settings_so_a_copied_record_is_stale(name):
    assert STUDIES[name].settings("fast") != STUDIES[name].settings("full")


def test_no_record_means_computing_and_writing_nothing(computed, tmp_path):
    assert load_or_run("negation", "fast") == {"computed": True}
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(ValueError, match=r"unknown study 'nope'; known: \['asymmetric_u', 'capacity_phase'"):
        load_or_run("nope", "fast")


@pytest.mark.parametrize("page_scale", ["fast", "full"])
def test_a_page_shows_the_full_record_when_current_else_its_own_scale(computed, monkeypatch, page_scale):
    monkeypatch.setenv("TOKEN_SELECTION_SCALE", page_scale)
    assert registry.shown_scale("negation") == page_scale
    settings = STUDIES["negation"].settings("full")
    write_record("negation", "full", protocol="test", settings={**settings, "seeds": [0]}, metrics={})
    assert registry.shown_scale("negation") == page_scale, "a stale full record is not shown"
    write_record("negation", "full", protocol="test", settings=settings, metrics={})
    assert registry.shown_scale("negation") == "full"
    write_record("negation", "fast", protocol="test", settings=STUDIES["negation"].settings("fast"), metrics={})
    assert registry.shown_scale("negation") == "full"
    with pytest.raises(ValueError, match=r"unknown study 'nope'"):
        registry.shown_scale("nope")
