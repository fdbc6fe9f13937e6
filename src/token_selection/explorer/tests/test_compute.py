"""Tests of ``explore``: the same numbers as the theory chapters' calls, and the edge cases it reports."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from token_selection.explorer.compute import STAGES, explore, selected_relevant_per_sequence, token_mass
from token_selection.theory.importance import signed_frequency
from token_selection.theory.max_margin import solve_max_margin
from token_selection.theory.model import CLSAttention
from token_selection.theory.one_step import one_step_embeddings, step_size_threshold
from token_selection.theory.synthetic import REFERENCE_CASE, make_synthetic
from token_selection.theory.training import train_cls


def test_reference_run_makes_the_theory_chapters_calls(reference):
    data = make_synthetic(200, 8, 50, 0.0, seed=0)
    eta_star = step_size_threshold(data.X, data.y, 50, 512)
    model = CLSAttention(50, 512, seed=0, dtype=torch.float64)
    E1 = one_step_embeddings(model, data.X, data.y, lr=15 * eta_star)
    values = (E1 @ model.v.detach()).numpy()
    alpha = signed_frequency(data.X, data.y, 50).numpy()
    model.E.data.copy_(E1)
    p_mm = solve_max_margin(E1, data.X, data.relevant).direction
    history = train_cls(model, data.X, data.y, steps=5000, lr=1.0, method="normalized", reference=p_mm,
                        relevant=data.relevant).as_arrays()  # fmt: skip

    assert reference.eta_star == eta_star and reference.step_size == 15 * eta_star
    np.testing.assert_array_equal(reference.alpha, alpha)
    np.testing.assert_array_equal(reference.values, values)
    np.testing.assert_array_equal(reference.history["cosine"], history["cosine"])
    p = model.p.detach()
    np.testing.assert_array_equal(reference.scores, (model.token_scores().detach() / p.norm()).numpy())
    assert reference.correlation == pytest.approx(np.corrcoef(values, alpha)[0, 1], abs=1e-12)


def test_reference_run_shows_what_the_theory_chapters_show(reference):
    # the default step is the reference case's: 15 eta* lies within 5% of its eta = 200 (eta* is about 14 here)
    assert reference.step_size == pytest.approx(REFERENCE_CASE.eta, rel=0.05)
    # the law r / sqrt(1 + r^2) predicts the alignment to within 0.03 for r >= 1 (chapter 3)
    assert abs(reference.correlation - reference.predicted_correlation) < 0.03
    # the one-step formula: slope eta |v|^2 / 2, up to the spread of the weights g_j around 1/2 (a few %)
    assert reference.slope == pytest.approx(reference.predicted_slope, rel=0.05)
    assert reference.final_cosine >= 0.99 and reference.final_min_attention > 0.99
    assert reference.selection_cosine == reference.final_cosine  # p selects exactly the relevant tokens
    assert reference.selected_fraction == 1.0 and reference.missed_fraction == 0.0
    assert "converges to p_mm" in reference.notice


def test_no_max_margin_direction_is_reported_not_raised():
    result = explore(0.0, 16, 8, p_steps=300)
    assert result.final_cosine is None and result.selection_cosine is None
    assert "no solution" in result.max_margin_message
    assert np.isnan(result.history["cosine"]).all()
    assert np.isfinite(result.values).all() and np.isfinite(result.scores).all()
    assert "no max-margin direction" in result.notice


def test_all_relevant_positions_leave_nothing_to_select():
    result = explore(1.0, 32, 4, p_steps=20)
    assert result.irrelevant_share == 0.0 and result.final_cosine is None
    assert "nothing to select against" in result.notice


def test_a_step_below_eta_star_lets_the_noise_beat_the_signal():
    result = explore(0.0, 512, 8, step_factor=0.3, p_steps=200)
    # predicted 0.29; one draw over V = 50 tokens scatters by about 1/sqrt(50) = 0.14 around it: allow 3 of those
    assert abs(result.correlation - result.predicted_correlation) < 3 * 50**-0.5
    assert result.correlation < 2**-0.5
    assert result.notice.startswith("delta=0, d=512, T=8: with a step of 0.3 eta* the noise beats the signal")


def test_several_relevant_tokens_p_selects_one_per_sequence():
    result = explore(0.5, 256, 8)
    assert result.relevant_per_sequence > 2
    assert result.selected_per_sequence == pytest.approx(1.0, abs=0.05)
    assert result.selection_cosine is not None and result.selection_cosine > 0.98
    assert result.final_cosine < 0.9
    assert "converges to the max-margin direction of its own selection" in result.notice


def test_on_stage_reports_the_stages_in_order():
    seen = []
    explore(0.0, 32, 4, p_steps=10, on_stage=seen.append)
    assert seen == list(STAGES[:4])


def test_token_mass_sums_the_repeats_of_a_token():
    X = torch.tensor([[3, 3, 1]])
    attention = torch.tensor([[0.006, 0.006, 0.988]], dtype=torch.float64)
    assert token_mass(attention, X, 5).tolist() == [[0.012, 0.012, 0.988]]
    relevant = torch.tensor([[True, True, False]])
    # token 3 holds 1.2% in total although each of its positions holds 0.6%: one selected token
    assert selected_relevant_per_sequence(attention, X, relevant, 5) == 1.0
