"""The global-versus-local study: its settings per scale, and how a run is put together and counted."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from token_selection.studies import global_local as gl
from token_selection.studies.intervals import wilson_interval
from token_selection.theory.thresholds import DIRECTION_COSINE


def test_settings_per_scale():
    fast, full = gl.global_local_settings("fast"), gl.global_local_settings("full")
    assert fast == {
        "n": 200, "T": 8, "vocab_size": 50, "delta": 0.0, "data_seed": 0, "d": 256, "eta_ratios": [8.0, 32.0],
        "seeds": list(range(8)), "steps": 2000, "lr": 0.3, "start_norm": 2.0, "start_noise": 0.3,
        "cosine_threshold": DIRECTION_COSINE,
    }  # fmt: skip
    assert full == dict(fast, eta_ratios=[4.0, 8.0, 16.0, 32.0, 64.0], seeds=list(range(24)), steps=3000, lr=0.2)
    with pytest.raises(ValueError, match="scale must be 'fast' or 'full', got 'Full'"):
        gl.global_local_settings("Full")


def test_protocol_states_the_steps_the_starts_and_the_threshold():
    text = gl.GLOBAL_LOCAL_PROTOCOL
    for part in ("n=200, T=8, V=50", "d=256", "fast: 2000 steps of length 0.3, full: 3000 of 0.2", "2/margin",
                 f">= {DIRECTION_COSINE:g}. Wilson 95% intervals."):  # fmt: skip
        assert part in text


@pytest.fixture
def scripted(monkeypatch):
    """The study's building blocks replaced by scripted ones that record how they were called.

    Seed s: its bad direction is locally optimal when s is even. End cosines: random start 0.9 + 0.01 s,
    near-bad start 0.1 s, no step 0.5; an end counts as all-relevant from 0.9, one-sided below 0.15.
    """
    calls = {"case": [], "start": [], "run": [], "classify": []}

    def case(X, y, relevant, d, ratio, seed):
        calls["case"].append((tuple(X.shape), d, ratio, seed))
        return SimpleNamespace(violations=seed % 2, ratio=ratio)

    def start(case, kind, seed, norm, noise):
        calls["start"].append((case.ratio, kind, seed, norm, noise))
        return (kind, seed)

    def run(case, X, y, p0, steps, lr):
        calls["run"].append((steps, lr))
        kind, seed = p0
        return {"all_relevant": {"random": 0.9 + 0.01 * seed, "near_bad": 0.1 * seed, "no_step": 0.5}[kind]}

    def classify(cosines, threshold):
        calls["classify"].append(threshold)
        c = cosines["all_relevant"]
        return "all_relevant" if c >= 0.9 else "one_sided" if c < 0.15 else "other"

    for name, fake in (("global_local_case", case), ("start_point", start), ("run_start", run), ("classify_endpoint", classify)):
        monkeypatch.setattr(gl, name, fake)
    return calls


TINY = dict(gl.global_local_settings("fast"), n=12, T=3, vocab_size=6, d=16, eta_ratios=[8.0, 32.5], seeds=[0, 1, 2],
            steps=7, lr=0.25, start_norm=1.5, start_noise=0.2, cosine_threshold=0.97)  # fmt: skip


def test_a_run_visits_every_ratio_seed_and_start_with_the_settings(scripted):
    gl.run_global_local(TINY)
    ratios = [8.0] * 3 + [32.5] * 3 + [0.0] * 3
    assert scripted["case"] == [((12, 3), 16, r, s) for r, s in zip(ratios, [0, 1, 2] * 3, strict=True)]
    stepped = [(r, k, s, 1.5, 0.2) for r in (8.0, 32.5) for s in (0, 1, 2) for k in ("random", "near_bad")]
    assert scripted["start"] == stepped + [(0.0, "no_step", s, 1.5, 0.2) for s in (0, 1, 2)]
    assert set(scripted["run"]) == {(7, 0.25)} and len(scripted["run"]) == 15
    assert set(scripted["classify"]) == {0.97}


def test_a_run_counts_each_end_with_its_wilson_interval(scripted):
    metrics = gl.run_global_local(TINY)
    assert metrics["start_kinds"] == ["random", "near_bad", "no_step"]
    assert list(metrics["by_ratio"]) == ["8", "32.5"]
    for summary in (*metrics["by_ratio"].values(), metrics["no_step"]):
        # seeds 0 and 2 are even: 2 of 3 bad directions locally optimal
        assert summary["bad_direction_locally_optimal"] == {"count": 2, "fraction": 2 / 3, "ci95": list(wilson_interval(2, 3))}
    random = metrics["by_ratio"]["8"]["random"]  # cosines 0.90, 0.91, 0.92: all three all-relevant
    assert random["trials"] == 3 and random["mean_cosine_all_relevant"] == pytest.approx(0.91)
    assert random["all_relevant"] == {"count": 3, "fraction": 1.0, "ci95": list(wilson_interval(3, 3))}
    assert random["one_sided"]["count"] == random["other"]["count"] == 0
    near = metrics["by_ratio"]["32.5"]["near_bad"]  # cosines 0, 0.1, 0.2: one-sided, one-sided, other
    assert (near["all_relevant"]["count"], near["one_sided"]["count"], near["other"]["count"]) == (0, 2, 1)
    assert near["one_sided"]["fraction"] == pytest.approx(2 / 3) and near["mean_cosine_all_relevant"] == pytest.approx(0.1)
    assert set(metrics["no_step"]) == {"no_step", "bad_direction_locally_optimal"}
    assert metrics["no_step"]["no_step"]["other"] == {"count": 3, "fraction": 1.0, "ci95": list(wilson_interval(3, 3))}
    assert "0" not in metrics["by_ratio"]


def test_the_progress_tracker_sees_every_job(scripted):
    seen = []

    def track(items, total):
        seen.append(total)
        return list(items)

    gl.run_global_local(TINY, track=track)
    assert seen == [9]


def test_a_tiny_real_run_ends_somewhere_for_every_start():
    settings = dict(TINY, eta_ratios=[8.0], seeds=[0, 1], steps=40)
    metrics = gl.run_global_local(settings)
    for kind in ("random", "near_bad"):
        summary = metrics["by_ratio"]["8"][kind]
        assert sum(summary[end]["count"] for end in ("all_relevant", "one_sided", "other")) == summary["trials"] == 2
        assert -1.0 <= summary["mean_cosine_all_relevant"] <= 1.0
