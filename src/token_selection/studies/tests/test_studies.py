"""Tests of the studies' building blocks (the experiments themselves run in the chapters and scripts/run_records.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from token_selection.exercises import check_exercise
from token_selection.studies.asymmetric import make_asymmetric
from token_selection.studies.capacity import predicted_dimension
from token_selection.studies.exercise_cases import EXERCISES, exercise
from token_selection.studies.interactions import make_negation_data
from token_selection.studies.intervals import bootstrap_interval, wilson_interval
from token_selection.studies.local_optima import classify_endpoint, one_sided_selection
from token_selection.studies.registry import STUDIES
from token_selection.theory.importance import signed_frequency
from token_selection.theory.one_step import step_size_from_alpha
from token_selection.theory.synthetic import make_synthetic


def test_wilson_interval_known_value_and_edges():
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert wilson_interval(0, 8)[0] == 0.0 and wilson_interval(8, 8)[1] == 1.0
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(3, 2)


def test_bootstrap_interval_brackets_the_mean():
    samples = np.random.default_rng(0).normal(1.0, 0.1, size=200)
    low, high = bootstrap_interval(samples, np.mean, seed=0)
    assert low < 1.0 < high and high - low < 0.05
    with pytest.raises(ValueError, match="n_boot"):
        bootstrap_interval(samples, np.mean, n_boot=10)


def test_step_size_from_alpha_formula_and_zero_spread():
    alpha = torch.tensor([0.1, -0.1, 0.0, 0.0], dtype=torch.float64)
    assert step_size_from_alpha(alpha, 100) == pytest.approx(2 / (10 * float(alpha.std(unbiased=False))))
    with pytest.raises(ValueError, match="same signed frequency"):
        step_size_from_alpha(torch.zeros(5), 16)


def test_one_sided_selection_picks_one_token_kind_per_sequence():
    data = make_synthetic(40, 6, 20, 0.0, seed=0)
    values = torch.arange(20, dtype=torch.float64)
    chosen = one_sided_selection(data.X, data.y, data.relevant, values, keep=-1)
    negative = data.y < 0
    assert torch.equal(chosen[negative], data.relevant[negative])
    assert not (chosen[~negative] & data.relevant[~negative]).any()
    assert chosen[~negative].any(dim=1).all()
    with pytest.raises(ValueError, match="keep"):
        one_sided_selection(data.X, data.y, data.relevant, values, keep=0)


def test_classify_endpoint():
    assert classify_endpoint({"all_relevant": 0.99, "keep_positive": 0.1, "keep_negative": 0.0}, 0.95) == "all_relevant"
    assert classify_endpoint({"all_relevant": 0.1, "keep_positive": 0.2, "keep_negative": 0.97}, 0.95) == "one_sided"
    assert classify_endpoint({"all_relevant": 0.5, "keep_positive": 0.5, "keep_negative": 0.5}, 0.95) == "other"


def test_make_asymmetric_satisfies_assumption_1_with_unbalanced_labels():
    data = make_asymmetric(100, 6, 40, m_pos=2, m_neg=6, positive_share=0.7, seed=0)
    assert data.satisfies_assumption_1()
    assert int((data.y > 0).sum()) == 70
    cls = data.token_class[data.X[data.relevant]]
    assert torch.equal(cls, data.y)
    with pytest.raises(ValueError, match="positive_share"):
        make_asymmetric(100, 6, 40, m_pos=2, m_neg=6, positive_share=1.0)


def test_negation_data_has_zero_signed_frequency_and_flipped_labels():
    data = make_negation_data(25, 6, 30, seed=0)
    assert float(signed_frequency(data.X, data.y, 30).abs().max()) < 1e-15
    assert torch.equal(data.y, data.sentiment * torch.where(data.negated, -1, 1))
    assert torch.equal((data.X == data.not_token).any(dim=1), data.negated)
    with pytest.raises(ValueError, match="vocab_size"):
        make_negation_data(5, 6, 5)


def test_predicted_dimension_grows_like_log_of_pairs():
    small, large = predicted_dimension(20, 0.5, 5, 200, 8), predicted_dimension(40, 0.5, 5, 200, 8)
    assert large - small == pytest.approx(4 * math.log(3) / 0.25)
    assert predicted_dimension(10_000, 0.5, 5, 200, 8) == predicted_dimension(20_000, 0.5, 5, 200, 8)


def test_every_study_has_settings_for_both_scales():
    for study in STUDIES.values():
        assert study.settings("fast")["seeds"] and study.settings("full")["seeds"]
        with pytest.raises(ValueError, match="scale"):
            study.settings("medium")


def _wrong(reference):
    """A plausible wrong solution: the reference's output, perturbed."""

    def candidate(*args, **kwargs):
        out = reference(*args, **kwargs)
        if isinstance(out, torch.Tensor) and out.dtype == torch.bool:
            return ~out
        return np.asarray(out if not isinstance(out, torch.Tensor) else out.numpy(), dtype=np.float64) * 1.1 + 0.01

    return candidate


@pytest.mark.parametrize("name", sorted(EXERCISES))
def test_checker_accepts_reference_and_rejects_wrong_solution(name, capsys):
    reference, cases = exercise(name)
    assert check_exercise(reference, reference, cases)
    with pytest.raises(AssertionError, match="differs|shape"):
        check_exercise(_wrong(reference), reference, cases)


def test_unknown_exercise_raises():
    with pytest.raises(ValueError, match="unknown exercise"):
        exercise("nope")


def test_load_or_run_reads_a_current_record(tmp_path, monkeypatch):
    from token_selection.results import write_record
    from token_selection.studies.registry import load_or_run

    monkeypatch.setenv("TOKEN_SELECTION_RECORDS", str(tmp_path))
    settings = STUDIES["negation"].settings("fast")
    write_record("negation", "fast", protocol="test", settings=settings, metrics={"marker": 1})
    assert load_or_run("negation", "fast") == {"marker": 1}
    with pytest.raises(ValueError, match="unknown study"):
        load_or_run("nope", "fast")


def test_trajectory_ends_where_run_start_ends_and_lean_follows_the_identity():
    from token_selection.studies.local_optima import global_local_case, initial_lean, run_start, run_trajectory, start_point
    from token_selection.theory.model import logistic_loss

    data = make_synthetic(40, 6, 20, 0.0, seed=0)
    case = global_local_case(data.X, data.y, data.relevant, 32, 8.0, seed=1)
    p0 = start_point(case, "random", 1)
    end = run_start(case, data.X, data.y, p0, steps=60, lr=0.3)
    path = run_trajectory(case, data.X, data.y, p0, steps=60, lr=0.3, points=8)
    assert path["step"][-1] == 60 and np.all(np.diff(path["step"]) > 0)
    for name, cosine in end.items():
        assert path[name][-1] == pytest.approx(cosine, abs=1e-12)
    # -grad_p L . v = mean_j y_j g_j Var_j(E.v) at p = 0 (the identity of chapter 10)
    model = case.model
    values = model.token_values().detach()[data.X]
    g = torch.sigmoid(-data.y * values.mean(1))
    pull_along_v = float((data.y * g * values.var(1, unbiased=False)).mean())
    logistic_loss(model(data.X), data.y.double()).backward()
    pull = -model.p.grad
    assert float(pull @ model.v.detach()) == pytest.approx(pull_along_v, rel=1e-10)
    lean = initial_lean(case.model, data.X, data.y)
    assert lean == pytest.approx(pull_along_v / float(pull.norm() * model.v.detach().norm()), rel=1e-10)
