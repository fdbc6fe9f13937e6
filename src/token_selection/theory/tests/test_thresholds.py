"""The two thresholds sit in the gaps the course's runs leave: a threshold inside a cluster would split it."""

from __future__ import annotations

import pytest

from token_selection.results import read_record
from token_selection.theory.thresholds import DIRECTION_COSINE, JUDGED_WORDS, SELECTED_ATTENTION


@pytest.mark.parametrize("scale", ["fast", "full"])
def test_direction_threshold_separates_reached_from_missed_directions(scale):
    record = read_record("report-theory", scale)
    assert record is not None, f"no {scale} report-theory record"
    cosines = [c for key, sweep in record["metrics"].items() if key.startswith("seed_sweep") for c in sweep["cos"]]
    assert cosines, "the record holds no seed sweep"
    reached = [c for c in cosines if c >= DIRECTION_COSINE]
    missed = [c for c in cosines if c < DIRECTION_COSINE]
    assert reached, "no run reaches the direction"
    # the gap around the threshold: every run ends either close to 1 or far below the threshold
    assert min(reached) >= 0.98, min(reached)
    assert all(c < DIRECTION_COSINE - 0.3 for c in missed), missed


def test_thresholds_are_fractions_in_their_documented_order():
    assert 0.5 < DIRECTION_COSINE < 1 and 0.5 < SELECTED_ATTENTION < 1
    assert DIRECTION_COSINE == 0.95 and SELECTED_ATTENTION == 0.99  # the values the chapters print and explain


def test_the_judgement_words_quote_both_bars():
    assert f"more than {SELECTED_ATTENTION:g} of its attention" in JUDGED_WORDS
    assert f"cos(p, p_mm) >= {DIRECTION_COSINE:g}" in JUDGED_WORDS
