"""Tests of ``explore``: the same numbers as the theory chapters' calls, and the edge cases it reports."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from token_selection.explorer import compute as compute_module
from token_selection.explorer.compute import STAGES, explore, selected_relevant_per_sequence, token_mass
from token_selection.explorer.config import ExplorerConfig
from token_selection.explorer.notice import what_to_notice
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
    E1 = one_step_embeddings(model, data.X, data.y, lr=14.3 * eta_star)
    values = (E1 @ model.v.detach()).numpy()
    alpha = signed_frequency(data.X, data.y, 50).numpy()
    model.E.data.copy_(E1)
    p_mm = solve_max_margin(E1, data.X, data.relevant).direction
    history = train_cls(model, data.X, data.y, steps=5000, lr=1.0, method="normalized", reference=p_mm,
                        relevant=data.relevant).as_arrays()  # fmt: skip

    assert reference.eta_star == eta_star and reference.step_size == 14.3 * eta_star
    np.testing.assert_array_equal(reference.alpha, alpha)
    np.testing.assert_array_equal(reference.values, values)
    np.testing.assert_array_equal(reference.history["cosine"], history["cosine"])
    p = model.p.detach()
    np.testing.assert_array_equal(reference.scores, (model.token_scores().detach() / p.norm()).numpy())
    assert reference.correlation == pytest.approx(np.corrcoef(values, alpha)[0, 1], abs=1e-12)


def test_reference_run_shows_what_the_theory_chapters_show(reference):
    # the default step is the reference case's: 14.3 eta* lies within 0.5 % of its eta = 200 (eta* is about 14 here)
    assert reference.step_size == pytest.approx(REFERENCE_CASE.eta, rel=0.005)
    # the law r / sqrt(1 + r^2) predicts the alignment to within 0.03 for r >= 1 (chapter 3)
    assert abs(reference.correlation - reference.predicted_correlation) < 0.03
    # the one-step formula: slope eta |v|^2 / 2, up to the spread of the weights g_j around 1/2 (a few %)
    assert reference.slope == pytest.approx(reference.predicted_slope, rel=0.05)
    assert reference.final_cosine >= 0.99 and reference.final_min_attention > 0.99
    assert reference.selection_cosine == reference.final_cosine  # p selects exactly the relevant tokens
    assert reference.selected_fraction == 1.0 and reference.lost_fraction == 0.0
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


def _replay(delta: float, d: int, T: int, n: int, steps: int, V: int, seed: int, zipf: float) -> dict:
    """What explore should report, from the theory chapters' calls and plain loops over sequences and tokens."""
    data = make_synthetic(n, T, V, delta, zipf=zipf, seed=seed)
    eta_star = step_size_threshold(data.X, data.y, V, d)
    model = CLSAttention(V, d, seed=seed, dtype=torch.float64)
    v = model.v.detach().clone()
    E1 = one_step_embeddings(model, data.X, data.y, lr=14.3 * eta_star)
    values, alpha = (E1 @ v).numpy(), signed_frequency(data.X, data.y, V).numpy()
    model.E.data.copy_(E1)
    p_mm = solve_max_margin(E1, data.X, selection=data.relevant).direction
    history = train_cls(model, data.X, data.y, steps=steps, lr=1.0, method="normalized", reference=p_mm,
                        relevant=data.relevant)  # fmt: skip
    attention = model.attention(data.X).detach()
    p = model.p.detach()
    pairs, chosen, selected_counts, lost = set(), set(), [], 0
    X, relevant, weights = data.X.tolist(), data.relevant.tolist(), attention.tolist()
    selected = []
    for j in range(n):
        mass: dict[int, float] = {}
        for token, weight in zip(X[j], weights[j], strict=True):
            mass[token] = mass.get(token, 0.0) + weight
        selected.append([mass[token] >= 0.01 for token in X[j]])
        relevant_tokens = {token for token, r in zip(X[j], relevant[j], strict=True) if r}
        pairs |= {(j, s) for s in relevant_tokens}
        chosen |= {(j, s) for s in relevant_tokens if mass[s] >= 0.01}
        selected_counts.append(sum(mass[s] >= 0.01 for s in relevant_tokens))
        lost += sum(w for w, r in zip(weights[j], relevant[j], strict=True) if r) < 0.5
    selected = torch.tensor(selected)
    try:
        own = float(p @ solve_max_margin(E1, data.X, selection=selected).direction) / float(p.norm())
    except ValueError:
        own = None
    return {
        "token_class": data.token_class.tolist(),
        "alpha": alpha,
        "scores": (model.token_scores().detach() / p.norm()).numpy(),
        "slope": np.polyfit(alpha, values, 1)[0],
        "predicted_slope": 14.3 * eta_star * float(v @ v) / 2,
        "predicted_correlation": 14.3 / (1 + 14.3**2) ** 0.5,
        "relevant_per_sequence": np.mean(
            [len({int(x) for x, r in zip(row, rel, strict=True) if r}) for row, rel in zip(data.X, data.relevant, strict=True)]
        ),  # fmt: skip
        "irrelevant_share": 1 - float(data.relevant.double().mean()),
        "selected_fraction": len(chosen) / len(pairs),
        "selected_per_sequence": np.mean(selected_counts),
        "lost_fraction": lost / n,
        "selection_cosine": own,
        "final_cosine": history.cosine[-1],
        "final_min_attention": history.min_relevant_attention[-1],
        "final_mean_attention": history.mean_relevant_attention[-1],
        "stop_reason": history.stop_reason,
    }


@pytest.mark.parametrize(
    ("delta", "d", "T", "zipf", "own_selection"),
    [
        (0.0, 64, 32, 1.0, "its own"),  # p selects an irrelevant token in half of the sequences; its own selection has a p_mm
        (0.2, 32, 16, 1.0, "none"),  # several relevant tokens, some lost; p's own selection has no p_mm
        (0.0, 128, 8, 0.5, "the same"),  # a flatter vocabulary; p selects exactly the relevant tokens
    ],
)
def test_every_number_of_a_small_run_from_the_chapters_calls_and_plain_loops(delta, d, T, zipf, own_selection):
    settings = dict(n=40, p_steps=100, vocab_size=20, seed=2, zipf=zipf)
    result = explore(delta, d, T, **settings)
    expected = _replay(delta, d, T, 40, 100, 20, 2, zipf)
    assert result.config == ExplorerConfig(delta=delta, d=d, T=T, **settings)
    assert result.token_class.tolist() == expected["token_class"] and result.token_class.dtype == np.int64
    np.testing.assert_allclose(result.alpha, expected["alpha"], rtol=1e-12)
    np.testing.assert_allclose(result.scores, expected["scores"], rtol=1e-12)
    for name in ("slope", "predicted_slope", "predicted_correlation", "relevant_per_sequence", "irrelevant_share"):
        assert getattr(result, name) == pytest.approx(expected[name], rel=1e-9), name
    for name in ("selected_fraction", "selected_per_sequence", "lost_fraction", "final_cosine", "final_min_attention",
                 "final_mean_attention"):  # fmt: skip
        assert getattr(result, name) == pytest.approx(expected[name], rel=1e-12, abs=1e-300), name
    assert result.stop_reason == expected["stop_reason"] == "ran all 100 steps"
    if own_selection == "the same":
        assert result.selected_fraction == 1 and result.lost_fraction == 0
        assert result.selection_cosine == result.final_cosine
    else:
        assert 0 < result.selected_fraction < 1 and 0 < result.lost_fraction < 1  # the uneven cases this test is for
        assert (result.selection_cosine is not None) is (own_selection == "its own")
    if own_selection == "its own":
        assert result.selection_cosine == pytest.approx(expected["selection_cosine"], rel=1e-12)
        assert result.selection_cosine != result.final_cosine
    assert result.max_margin_message == "" and result.notice == what_to_notice(result)


def test_explore_runs_torch_on_one_thread_and_restores_the_setting(monkeypatch):
    before = torch.get_num_threads()
    seen = []
    try:
        torch.set_num_threads(2)
        explore(0.0, 32, 4, n=10, p_steps=5, vocab_size=8, on_stage=lambda stage: seen.append(torch.get_num_threads()))
        assert seen == [1, 1, 1, 1] and torch.get_num_threads() == 2

        def broken(*args, **kwargs):
            raise RuntimeError("draw failed")

        monkeypatch.setattr(compute_module, "make_synthetic", broken)
        with pytest.raises(RuntimeError, match="draw failed"):
            explore(0.0, 32, 4, n=10, p_steps=5, vocab_size=8)
        assert torch.get_num_threads() == 2  # restored after a failure too
    finally:
        torch.set_num_threads(before)


def test_optimal_fraction_counts_the_sequences_whose_best_token_is_relevant():
    from token_selection.explorer.compute import optimal_fraction

    values = np.array([0.0, 2.0, -1.0, 0.5, 3.0])  # tokens 0..4
    X = torch.tensor([[1, 0, 3], [2, 0, 3], [1, 4, 0], [2, 1, 1]])
    relevant = torch.tensor([[True, False, False], [True, False, False], [True, False, False], [True, True, True]])
    y = torch.tensor([1, -1, 1, -1])
    # sequence 0: 2 > 0, 0.5; sequence 1 (label -1): 1 > 0, -0.5; sequence 2: 2 < 3 (token 4 beats it);
    # sequence 3: no irrelevant position, satisfied
    assert optimal_fraction(values, X, y, relevant) == 0.75
    tie = np.array([0.0, 0.5, -1.0, 0.5, 3.0])  # sequence 0: relevant 0.5 ties irrelevant 0.5: not strictly above
    assert optimal_fraction(tie, X[:1], y[:1], relevant[:1]) == 0.0


def test_stepped_case_is_the_explorers_setting_before_p_trains(reference):
    stages = []
    config = ExplorerConfig.from_settings(delta=0.0, d=512, T=8, p_steps=5000)
    data, model, eta_star = compute_module.stepped_case(config, stages.append)

    assert stages == list(STAGES[:2])
    assert eta_star == reference.eta_star
    assert model.E.dtype == torch.float64 and not model.p.detach().any()
    np.testing.assert_array_equal((model.E.detach() @ model.v.detach()).numpy(), reference.values)
    np.testing.assert_array_equal(data.token_class.numpy(), reference.token_class)


def test_stepped_case_reads_every_setting_of_its_config():
    base = ExplorerConfig.from_settings(delta=0.3, d=48, T=6, n=40, vocab_size=30, seed=3, step_factor=2.0, zipf=1.5)
    data, model, eta_star = compute_module.stepped_case(base)
    assert tuple(data.X.shape) == (40, 6) and tuple(model.E.shape) == (30, 48)
    assert eta_star == step_size_threshold(data.X, data.y, 30, 48)
    drawn = make_synthetic(40, 6, 30, 0.3, zipf=1.5, seed=3)
    assert torch.equal(data.X, drawn.X) and torch.equal(data.y, drawn.y)
    initial = CLSAttention(30, 48, seed=3, dtype=torch.float64)
    expected = one_step_embeddings(initial, drawn.X, drawn.y, lr=2.0 * eta_star)
    torch.testing.assert_close(model.E.detach(), expected, rtol=0, atol=0)
    for field, value in (("seed", 4), ("step_factor", 3.0), ("zipf", 1.0), ("delta", 0.5)):
        other = ExplorerConfig.from_settings(**{**base.__dict__, field: value})
        assert not torch.equal(compute_module.stepped_case(other)[1].E.detach(), model.E.detach()), field
