"""Local optima of the max-margin program: one-sided selections, Definition 2 by hand, starts and endpoints."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch

from token_selection.studies import local_optima as lo
from token_selection.theory.importance import signed_frequency
from token_selection.theory.max_margin import solve_max_margin
from token_selection.theory.model import CLSAttention
from token_selection.theory.one_step import one_step_embeddings, step_size_from_alpha
from token_selection.theory.synthetic import make_synthetic
from token_selection.theory.training import log_spaced_steps

X = torch.tensor([[0, 2, 3], [1, 3, 4], [0, 4, 2]])
Y = torch.tensor([1, -1, -1])
RELEVANT = torch.tensor([[True, False, False], [True, False, False], [True, False, False]])
VALUES = torch.tensor([1.0, -1.0, 0.5, -0.25, 2.0], dtype=torch.float64)


def test_one_sided_selection_by_hand():
    # keep +1: sequence 0 keeps its relevant token 0; sequences 1 and 2 (label -1) take the irrelevant token with the
    # largest -value: among 3 (-0.25 -> 0.25) and 4 (2 -> -2) that is 3; among 4 (-2) and 2 (-0.5) that is 2
    keep_positive = lo.one_sided_selection(X, Y, RELEVANT, VALUES, keep=1)
    assert keep_positive.tolist() == [[True, False, False], [False, True, False], [False, False, True]]
    # keep -1: sequence 0 takes the irrelevant token with the largest +value: 3 (-0.25) against 2 (0.5): token 2
    keep_negative = lo.one_sided_selection(X, Y, RELEVANT, VALUES, keep=-1)
    assert keep_negative.tolist() == [[False, True, False], [True, False, False], [True, False, False]]
    with pytest.raises(ValueError, match="keep must be the label \\+1 or -1 whose relevant tokens stay selected, got 2"):
        lo.one_sided_selection(X, Y, RELEVANT, VALUES, keep=2)


def test_local_optimality_violations_by_hand():
    selected = lo.one_sided_selection(X, Y, RELEVANT, VALUES, keep=1)
    # support pairs (selected token, other token); a pair breaks Definition 2 when the other token's signed value is
    # not below the selected one's. Sequence 0: token 0 (1.0) against 2 (0.5) and 3 (-0.25): no break.
    # Sequence 1: token 3 (0.25) against 1 (1.0): breaks; against 4 (-2): no. Sequence 2: 2 (-0.5) against 0 (-1): no.
    pairs = torch.tensor([[0, 2], [3, 1], [3, 4], [2, 0], [2, 4]])
    every = SimpleNamespace(pairs=pairs, active=torch.tensor([True] * 5))
    assert lo.local_optimality_violations(every, X, Y, selected, VALUES) == 1
    loose = SimpleNamespace(pairs=pairs, active=torch.tensor([True, False, True, True, True]))
    assert lo.local_optimality_violations(loose, X, Y, selected, VALUES) == 0, "a pair that is not tight cannot break"
    tie = VALUES.clone()
    tie[1] = 0.25  # sequence 1: token 1's signed value -0.25 against token 3's 0.25: below, no break
    assert lo.local_optimality_violations(every, X, Y, selected, tie) == 0
    tie[1] = -0.25  # now equal (0.25 and 0.25): "not below" counts
    assert lo.local_optimality_violations(every, X, Y, selected, tie) == 1


DATA = make_synthetic(40, 6, 20, 0.0, seed=0)


@pytest.fixture(scope="module")
def case():
    return lo.global_local_case(DATA.X, DATA.y, DATA.relevant, 32, 8.0, seed=1)


def test_a_case_holds_unit_directions_and_its_bad_margin(case):
    assert set(case.directions) == {"all_relevant", "keep_positive", "keep_negative"}
    for direction in case.directions.values():
        assert float(direction.norm()) == pytest.approx(1.0, abs=1e-9)
    assert case.bad_margin > 0 and isinstance(case.violations, int) and case.violations >= 0
    untouched = lo.global_local_case(DATA.X, DATA.y, DATA.relevant, 32, 0.0, seed=1)
    initial = CLSAttention(20, 32, seed=1, dtype=torch.float64)
    assert torch.equal(untouched.model.E.detach(), initial.E.detach()), "ratio 0: no step on E"
    assert not torch.equal(case.model.E.detach(), initial.E.detach())
    assert float(case.model.p.detach().abs().max()) == 0.0


def test_start_points(case):
    small = lo.start_point(case, "random", 3)
    assert float(small.norm()) == pytest.approx(1e-2 / 32**0.5)
    assert torch.equal(small, lo.start_point(case, "no_step", 3)) and not torch.equal(small, lo.start_point(case, "random", 4))
    near = lo.start_point(case, "near_bad", 3, start_norm=1.5, noise=0.0)
    assert torch.allclose(near, 1.5 / case.bad_margin * case.directions["keep_negative"])
    noisy = lo.start_point(case, "near_bad", 3, start_norm=1.5, noise=0.3)
    assert float((noisy - near).norm()) == pytest.approx(0.3 * 1.5 / case.bad_margin)
    assert torch.allclose((noisy - near) / (noisy - near).norm(), small / small.norm())
    with pytest.raises(ValueError, match="kind must be one of \\('random', 'near_bad', 'no_step'\\), got 'far'"):
        lo.start_point(case, "far", 0)


def test_classify_endpoint_on_its_threshold():
    at = {"all_relevant": 0.9, "keep_positive": 0.0, "keep_negative": 0.0}
    assert lo.classify_endpoint(at, 0.9) == "all_relevant" and lo.classify_endpoint(at, 0.9000001) == "other"
    assert lo.classify_endpoint({"all_relevant": 0.0, "keep_positive": 0.9, "keep_negative": 0.0}, 0.9) == "one_sided"
    assert lo.classify_endpoint({"all_relevant": 0.0, "keep_positive": 0.0, "keep_negative": 0.9}, 0.9) == "one_sided"


def test_a_run_starts_where_it_is_told_and_leaves_the_case_untouched(case):
    before = case.model.E.detach().clone()
    p0 = lo.start_point(case, "near_bad", 1)
    stay = lo.run_start(case, DATA.X, DATA.y, p0, steps=0, lr=0.3)
    direction = p0 / p0.norm()
    for name, cosine in stay.items():
        assert cosine == pytest.approx(float(direction @ case.directions[name]), abs=1e-12)
    moved = lo.run_start(case, DATA.X, DATA.y, p0, steps=40, lr=0.3)
    assert moved != stay and torch.equal(case.model.E.detach(), before)
    assert float(case.model.p.detach().abs().max()) == 0.0


def test_initial_lean_defaults_to_p_zero(case):
    zero = lo.initial_lean(case.model, DATA.X, DATA.y)
    assert zero == lo.initial_lean(case.model, DATA.X, DATA.y, torch.zeros(32, dtype=torch.float64))
    assert -1.0 <= zero <= 1.0
    assert lo.initial_lean(case.model, DATA.X, DATA.y, lo.start_point(case, "near_bad", 1)) != zero


def test_a_trajectory_is_recorded_at_increasing_steps(case):
    path = lo.run_trajectory(case, DATA.X, DATA.y, lo.start_point(case, "random", 2), steps=30, lr=0.3, points=5)
    assert set(path) == {"step", "v", "all_relevant", "keep_positive", "keep_negative"}
    # about five log-spaced points and the start: steps 0, 1, 2, 5, 13, 30
    assert path["step"][0] == 0 and path["step"][-1] == 30 and len(path["step"]) <= 6
    assert (path["step"][1:] > path["step"][:-1]).all()
    for name in ("v", "all_relevant"):
        assert path[name].shape == path["step"].shape and (abs(path[name]) <= 1 + 1e-12).all()


def test_violations_are_counted_over_sequences_not_positions():
    # two sequences of three tokens (n != T): sequence 1's tight pair (3, 1) breaks Definition 2, as above
    selected = lo.one_sided_selection(X[:2], Y[:2], RELEVANT[:2], VALUES, keep=1)
    every = SimpleNamespace(pairs=torch.tensor([[0, 2], [3, 1], [3, 4]]), active=torch.tensor([True] * 3))
    assert lo.local_optimality_violations(every, X[:2], Y[:2], selected, VALUES) == 1


def test_a_case_steps_by_its_ratio_times_eta_star_and_keeps_the_keep_negative_solution():
    half = lo.global_local_case(DATA.X, DATA.y, DATA.relevant, 32, 0.5, seed=1)
    initial = CLSAttention(20, 32, seed=1, dtype=torch.float64)
    eta = 0.5 * step_size_from_alpha(signed_frequency(DATA.X, DATA.y, 20), 32)
    assert torch.allclose(half.model.E.detach(), one_step_embeddings(initial, DATA.X, DATA.y, eta), rtol=0, atol=1e-12)
    E, values = half.model.E.detach(), half.model.token_values().detach()
    solutions = {
        keep: solve_max_margin(E, DATA.X, lo.one_sided_selection(DATA.X, DATA.y, DATA.relevant, values, keep)) for keep in (1, -1)
    }
    assert abs(solutions[1].margin - solutions[-1].margin) > 1e-6, "the fixture must tell the two one-sided margins apart"
    assert half.bad_margin == pytest.approx(solutions[-1].margin, rel=1e-12)
    negative = lo.one_sided_selection(DATA.X, DATA.y, DATA.relevant, values, -1)
    assert half.violations == lo.local_optimality_violations(solutions[-1], DATA.X, DATA.y, negative, values)


def test_start_points_follow_their_seed_and_defaults(case):
    gen = torch.Generator().manual_seed(10_000 + 3)
    direction = torch.randn(32, generator=gen, dtype=torch.float64)
    assert torch.allclose(lo.start_point(case, "random", 3), 1e-2 * direction / direction.norm() / 32**0.5, rtol=0, atol=1e-15)
    assert torch.equal(lo.start_point(case, "near_bad", 3), lo.start_point(case, "near_bad", 3, start_norm=2.0, noise=0.3))


def test_a_trajectory_records_cos_p_v_and_about_thirty_points_by_default(case):
    p0 = lo.start_point(case, "near_bad", 2)
    path = lo.run_trajectory(case, DATA.X, DATA.y, p0, steps=60, lr=0.3)
    v = case.model.v.detach()
    assert path["v"][0] == pytest.approx(float(p0 @ v / (p0.norm() * v.norm())), abs=1e-12)
    assert path["step"].tolist() == sorted(log_spaced_steps(60, 30))


def test_a_trajectory_ends_where_training_stops_at_the_float64_floor(case, monkeypatch):
    calls = []

    def stopping(model, X, y, **options):  # the second piece stops after one of its steps
        calls.append(options["steps"])
        model.p.data.add_(0.1 * model.v.detach())
        if len(calls) == 2:
            return SimpleNamespace(stop_reason="stopped at step 1: |grad| is below its rounding error", step=[0, 1])
        return SimpleNamespace(stop_reason=f"ran all {options['steps']} steps", step=[0, options["steps"]])

    monkeypatch.setattr(lo, "train_cls", stopping)
    path = lo.run_trajectory(case, DATA.X, DATA.y, lo.start_point(case, "random", 2), steps=30, lr=0.3, points=5)
    assert calls == [1, 1] and path["step"].tolist() == [0, 1, 2]
    assert set(path) == {"step", "v", "all_relevant", "keep_positive", "keep_negative"}
