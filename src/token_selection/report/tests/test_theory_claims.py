"""The report's synthetic numbers (``report-theory``): each on small cases, the sweep's rule on its boundary."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from token_selection.report import theory_claims as tc
from token_selection.results import RECORDS_VARIABLE, read_record
from token_selection.theory.importance import signed_frequency
from token_selection.theory.one_step import predicted_correlation, step_size_threshold
from token_selection.theory.synthetic import ReferenceCase

SMALL = ReferenceCase(n=40, T=5, vocab_size=16, d=32, eta=60.0, seed=1)
"""A reference case small enough to train in a tenth of a second (r = eta / eta* = 6 here)."""
SMALL_MULTICLASS = {"K": 3, "vocab_size": 20, "n": 60, "T": 5, "d": 32, "n_relevant": 3, "eta": 60.0}


@pytest.fixture
def quick(monkeypatch):
    """The module's training and K-class settings shrunk (fewer steps, smaller data), as copies."""
    monkeypatch.setattr(tc, "TRAINING", {**tc.TRAINING, "steps": 150})
    monkeypatch.setattr(tc, "MULTICLASS", dict(SMALL_MULTICLASS))


def test_corr_is_pearsons_on_a_hand_worked_case():
    # x = (1, 2, 3), y = (1, 3, 2): deviations (-1, 0, 1) and (-1, 1, 0); covariance 1, variances 2 and 2: r = 1/2
    assert tc._corr(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 3.0, 2.0])) == pytest.approx(0.5, abs=1e-12)
    assert tc._corr(torch.tensor([1.0, 2.0, 4.0]), torch.tensor([-2.0, -4.0, -8.0])) == pytest.approx(-1.0, abs=1e-12)
    grad = torch.tensor([0.0, 1.0, 5.0], requires_grad=True)
    assert tc._corr(grad * 2, torch.tensor([0.0, 1.0, 5.0], dtype=torch.float64)) == pytest.approx(1.0, abs=1e-12)


def test_one_step_alignment_reports_the_cases_correlation_step_ratio_and_prediction():
    out = tc.one_step_alignment(SMALL)
    data, model = SMALL.build()
    alpha = signed_frequency(data.X, data.y, SMALL.vocab_size).numpy()
    scores = (model.E @ model.v).detach().numpy()
    assert out["corr"] == pytest.approx(float(np.corrcoef(scores, alpha)[0, 1]), abs=1e-12)
    assert out["r"] == pytest.approx(60.0 / float(step_size_threshold(data.X, data.y, 16, 32)), rel=1e-12)
    assert out["r"] == pytest.approx(6.0, rel=1e-9)
    assert out["predicted"] == pytest.approx(float(predicted_correlation(out["r"])), abs=1e-12)
    # a step of 6 eta* aligns the scores with alpha almost perfectly, and the law predicts it within 0.02
    assert 0.95 < out["corr"] <= 1.0 and abs(out["corr"] - out["predicted"]) < 0.02
    smaller = tc.one_step_alignment(ReferenceCase(n=40, T=5, vocab_size=16, d=32, eta=5.0, seed=1))
    assert smaller["r"] == pytest.approx(0.5, rel=1e-9) and smaller["predicted"] < out["predicted"]


def test_selection_after_training_selects_and_reaches_p_mm(quick):
    out = tc.selection_after_training(SMALL)
    assert set(out) == {"min_attention", "cos", "steps"}
    assert out["min_attention"] > 0.999 and 0.99 < out["cos"] <= 1.0 + 1e-12
    assert 1 <= out["steps"] <= 150


def test_selection_without_a_feasible_program_trains_anyway_and_reports_no_cosine(quick, monkeypatch):
    def infeasible(*args, **kwargs):
        raise ValueError("infeasible")

    monkeypatch.setattr(tc, "solve_max_margin", infeasible)
    out = tc.selection_after_training(SMALL)
    assert math.isnan(out["cos"])
    assert out["min_attention"] > 0.999 and out["steps"] >= 1


def test_multiclass_alignment_is_the_worst_class(quick):
    worst = tc.multiclass_alignment()
    assert -1.0 <= worst <= 1.0
    # larger steps align every class better: the worst class too
    tc.MULTICLASS["eta"] = 600.0
    assert tc.multiclass_alignment() > worst > 0.3


def test_multiclass_alignment_takes_the_minimum_over_classes(quick, monkeypatch):
    values = iter([0.9, 0.7, 0.4])
    monkeypatch.setattr(tc, "_corr", lambda a, b: next(values))
    assert tc.multiclass_alignment() == 0.4


@pytest.mark.parametrize(
    ("runs", "passed"),
    [
        # (worst-sequence attention, cos): attention must exceed 0.99, cos reach 0.95
        ([(0.99, 0.95), (0.99, 0.95), (0.99, 0.95)], (0, 3, 0)),  # on both boundaries: reaches, does not select
        ([(0.990001, 0.95), (0.999, 0.949999), (1.0, 0.987)], (3, 2, 2)),  # just past / just short; 0.987 reaches
        ([(1.0, float("nan")), (0.5, 1.0), (1.0, 1.0)], (2, 2, 1)),  # no p_mm (NaN cosine) never reaches
    ],
)
def test_seed_sweep_counts_each_test_by_the_course_thresholds(monkeypatch, runs, passed):
    seen = []

    def fake(case):
        seen.append((case.seed, case.d, case.n))
        attention, cosine = runs[case.seed]
        return {"min_attention": attention, "cos": cosine, "steps": 1}

    monkeypatch.setattr(tc, "selection_after_training", fake)
    out = tc.seed_sweep(d=96, seeds=3)
    assert seen == [(0, 96, ReferenceCase().n), (1, 96, ReferenceCase().n), (2, 96, ReferenceCase().n)]
    assert out["passed"] == dict(zip(("selects", "reaches", "both"), passed, strict=True))
    assert out["share_selected"] == pytest.approx(passed[2] / 3)
    assert out["d"] == 96 and out["seeds"] == 3
    assert out["min_attention"] == [r[0] for r in runs]
    assert out["cos"][:2] == [r[1] for r in runs][:2]


def test_seed_sweep_uses_the_thresholds_of_the_package(monkeypatch):
    monkeypatch.setattr(tc, "selection_after_training", lambda case: {"min_attention": 0.7, "cos": 0.8, "steps": 1})
    assert tc.seed_sweep(d=8, seeds=2)["passed"] == {"selects": 0, "reaches": 0, "both": 0}
    monkeypatch.setattr(tc, "SELECTED_ATTENTION", 0.6)
    monkeypatch.setattr(tc, "DIRECTION_COSINE", 0.8)
    assert tc.seed_sweep(d=8, seeds=2)["passed"] == {"selects": 2, "reaches": 2, "both": 2}


@pytest.mark.parametrize(("scale", "seeds"), [("fast", 5), ("full", 20)])
def test_theory_metrics_covers_every_claim_at_the_scales_seed_count(monkeypatch, scale, seeds):
    monkeypatch.setenv("TOKEN_SELECTION_SCALE", "full" if scale == "fast" else "fast")  # not read
    monkeypatch.setattr(tc, "one_step_alignment", lambda case: ("one", case.delta))
    monkeypatch.setattr(tc, "selection_after_training", lambda case: ("sel", case.delta))
    monkeypatch.setattr(tc, "seed_sweep", lambda d, n: ("sweep", d, n))
    monkeypatch.setattr(tc, "multiclass_alignment", lambda: "multi")
    assert tc.theory_metrics(scale) == {
        "one_step": ("one", 0.0),
        "one_step_several": ("one", 0.3),
        "selection": ("sel", 0.0),
        "selection_several": ("sel", 0.3),
        "seed_sweep_d512": ("sweep", 512, seeds),
        "seed_sweep_d2048": ("sweep", 2048, seeds),
        "multiclass_corr": "multi",
    }


@pytest.mark.parametrize(("scale", "last_seed"), [("fast", 4), ("full", 19)])
def test_protocol_names_the_settings_the_numbers_come_from(monkeypatch, scale, last_seed):
    text = tc.protocol(scale)
    for part in (
        "n=200 sequences, T=8, V=50, d=512",
        "eta=200",
        "lr 1",
        "at most 5000 steps",
        "delta=0.3",
        f"seeds 0..{last_seed} at d = 512 and 2048",
        "more than 0.99 of its attention",
        "cos(p, p_mm) >= 0.95 (the course's thresholds)",
        "K=4 classes",
        "one step of size 200.",
    ):
        assert part in text, f"{part!r} missing from the protocol: {text}"


def test_record_settings_follow_every_setting_and_the_scale(monkeypatch):
    monkeypatch.setenv("TOKEN_SELECTION_SCALE", "full")  # the scale is the argument: the environment is not read
    base = tc.record_settings("fast")
    assert base["reference"]["d"] == 512 and base["training"] == tc.TRAINING and base["multiclass"] == tc.MULTICLASS
    assert base["sweep_dimensions"] == [512, 2048] and base["seeds"] == 5
    assert base["selected_attention"] == 0.99 and base["direction_cosine"] == 0.95
    changes = {
        "TRAINING": {**tc.TRAINING, "lr": 0.5},
        "MULTICLASS": {**tc.MULTICLASS, "eta": 100.0},
        "SWEEP_DIMENSIONS": (512,),
        "SELECTED_ATTENTION": 0.95,
        "DIRECTION_COSINE": 0.99,
    }
    for name, value in changes.items():
        with monkeypatch.context() as patch:
            patch.setattr(tc, name, value)
            assert tc.record_settings("fast") != base, f"{name} left the record's settings unchanged"
    assert tc.record_settings("full")["seeds"] == 20
    with pytest.raises(ValueError, match=r"scale must be one of \['fast', 'full'\], got 'medium'"):
        tc.record_settings("medium")


def test_the_record_is_written_at_its_scale_and_is_stale_once_a_setting_changes(monkeypatch, tmp_path):
    from token_selection.report.catalogue import catalogue, record_state

    monkeypatch.setenv(RECORDS_VARIABLE, str(tmp_path))
    calls = []
    monkeypatch.setattr(tc, "theory_metrics", lambda scale: calls.append(scale) or {"multiclass_corr": 0.5})
    (entry,) = [e for e in catalogue(("fast",)) if e.name == tc.RECORD]
    assert record_state(entry) == "missing"
    assert tc.write_theory_record("fast") == tmp_path / "report-theory.fast.json" and calls == ["fast"]
    record = read_record(tc.RECORD, "fast", settings=tc.record_settings("fast"))
    assert record is not None and record["metrics"] == {"multiclass_corr": 0.5}
    assert record["seeds"] == [0, 1, 2, 3, 4] and record["protocol"] == tc.protocol("fast")
    assert record_state(entry) == "current", "the one runner skips it"
    monkeypatch.setattr(tc, "DIRECTION_COSINE", 0.99)
    assert record_state(entry) == "stale", "a record under other settings was taken as current"
    entry.write(False, None)
    stored = json.loads((tmp_path / "report-theory.fast.json").read_text())
    assert stored["settings"]["direction_cosine"] == 0.99 and stored["scale"] == "fast" and calls == ["fast", "fast"]
    assert not (tmp_path / "report-theory.full.json").exists()


def test_selection_reads_the_end_of_training(quick, monkeypatch):
    class History:
        cosine = [0.1, 0.5, 0.97]
        min_relevant_attention = [0.2, 0.6, 0.999]
        step = [0, 10, 37]

    monkeypatch.setattr(tc, "train_cls", lambda *args, **kwargs: History())
    assert tc.selection_after_training(SMALL) == {"min_attention": 0.999, "cos": 0.97, "steps": 37}


def test_multiclass_alignment_is_seeded_and_draws_at_the_documented_scale(quick, monkeypatch):
    assert tc.multiclass_alignment() == tc.multiclass_alignment(), "the K-class number must not depend on the run"
    seen = {}
    real_data, real_step = tc.make_multiclass_synthetic, tc.multiclass_one_step_embeddings

    def data(*args, **kwargs):
        seen["data"] = (args, kwargs)
        return real_data(*args, **kwargs)

    def step(E0, v, W, X, y, lr):
        seen.update(E0=E0, W=W, lr=lr)
        return real_step(E0, v, W, X, y, lr=lr)

    monkeypatch.setattr(tc, "make_multiclass_synthetic", data)
    monkeypatch.setattr(tc, "multiclass_one_step_embeddings", step)
    tc.multiclass_alignment()
    c = SMALL_MULTICLASS
    assert seen["data"] == ((c["n"], c["T"], c["vocab_size"], c["K"]), {"n_relevant": c["n_relevant"], "seed": 0})
    assert tuple(seen["E0"].shape) == (c["vocab_size"], c["d"]) and tuple(seen["W"].shape) == (c["K"], c["d"])
    # E0, W ~ N(0, I/d): entries of std 1/sqrt(32) = 0.177
    assert float(seen["E0"].std()) == pytest.approx(c["d"] ** -0.5, rel=0.1)
    assert float(seen["W"].std()) == pytest.approx(c["d"] ** -0.5, rel=0.25)
    assert seen["lr"] == c["eta"]


def test_the_full_record_lists_twenty_seeds_and_its_own_time(monkeypatch, tmp_path):
    monkeypatch.setenv(RECORDS_VARIABLE, str(tmp_path))
    monkeypatch.setattr(tc, "theory_metrics", lambda scale: {})
    tc.write_theory_record("full")
    record = read_record(tc.RECORD, "full")
    assert record["seeds"] == list(range(20))
    assert 0 <= record["seconds"] < 60
