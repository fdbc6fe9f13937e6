"""The cases the chapter 1-4 and appendix A1 checkers compare a learner's function on: seeded (the same every time),
the documented shapes, and uneven where the exercise needs it (padding, unseen tokens, overflowing scores, batches
that do not divide the data)."""

from __future__ import annotations

import functools

import pytest
import torch

from token_selection.theory import exercise_cases as ec


def _tensors(cases):
    return [a for args, _ in cases for a in args if isinstance(a, torch.Tensor)]


def test_every_exercise_builds_the_same_cases_every_time():
    for label, (_, build) in ec.EXERCISES.items():
        first, second = _tensors(build()), _tensors(build())
        assert first and len(first) == len(second), label
        assert all(torch.equal(a, b) for a, b in zip(first, second, strict=True)), f"{label}: cases not seeded"


def _shapes(cases, index):
    return [tuple(args[index].shape) for args, _ in cases]


def test_softmax_cases_pad_and_overflow():
    cases = ec._softmax_cases()
    assert _shapes(cases, 0) == [(6, 5), (6, 5)]
    (small, mask_a), (large, mask_b) = (args for args, _ in cases)
    assert small.abs().max() < 10 < 1000 < large.abs().max()  # the second overflows a plain exp
    for mask in (mask_a, mask_b):
        assert mask[:, 0].all() and not mask.all()  # every row has a real entry, and some are padded


def test_logit_cases_have_the_documented_shapes_and_padded_rows():
    cases = ec._logit_cases()
    assert _shapes(cases, 0) == [(8, 4), (30, 16)] and _shapes(cases, 3) == [(5, 6), (12, 9)]
    for (E, _, _, X, mask), _ in cases:
        assert int(X.max()) < E.shape[0] and int(X.min()) >= 0
        assert mask.any(1).all() and not mask.all() and mask.shape == X.shape


def test_importance_cases_leave_tokens_unseen_in_the_second():
    cases = ec._importance_cases()
    assert [args[2] for args, _ in cases] == [10, 60] and _shapes(cases, 0) == [(8, 5), (12, 4)]
    (X1, y1, V1, m1), (X2, y2, V2, m2) = (args for args, _ in cases)
    assert len(torch.unique(X2[m2])) < V2  # unseen tokens
    assert int(X1.min()) == 0 or int(X2.min()) == 0  # ids start at 0
    for y in (y1, y2):
        assert set(y.tolist()) == {1, -1} and int((y == 1).sum()) == len(y) - int((y == 1).sum())
    assert not m1.all() and not m2.all()


def test_values_cases_scale_e_and_v_by_the_root_of_d_and_step_differently():
    cases = ec._values_cases()
    assert [args[4] for args, _ in cases] == [25.0, 50.0]
    assert _shapes(cases, 0) == [(12, 16), (30, 64)] and _shapes(cases, 2) == [(30, 5), (80, 9)]
    for (E0, v, X, y, _), _ in cases:
        d = E0.shape[1]
        assert 0.5 < float(E0.std()) * d**0.5 < 1.5 and 0.3 < float(v.std()) * d**0.5 < 1.7
        assert set(y.tolist()) == {1.0, -1.0} and int(X.min()) == 0


def test_threshold_pair_and_margin_cases_cover_delta_zero_and_above():
    threshold = ec._threshold_cases()
    assert [(args[2], args[3]) for args, _ in threshold] == [(20, 64), (50, 512)]
    assert _shapes(threshold, 0) == [(40, 6), (200, 8)]
    pairs = ec._pair_cases()
    assert _shapes(pairs, 0) == [(12, 5), (12, 5)]
    counts = [int(args[1].sum(1).max()) for args, _ in pairs]
    assert counts[0] == 1 and counts[1] > 1  # delta 0: one relevant token a sequence; 0.3: several
    margin = ec._margin_cases()
    assert _shapes(margin, 0) == [(24, 10), (24, 10)] and _shapes(margin, 2) == [(16, 6), (16, 6)]
    assert [int(args[3].sum(1).max()) for args, _ in margin][0] == 1


def test_gradient_and_batch_cases_are_uneven():
    gradient = ec._gradient_cases()
    assert _shapes(gradient, 0) == [(7, 4), (40, 16)] and _shapes(gradient, 3) == [(5, 6), (9, 4)]
    E, _, _, X, y = gradient[1][0]
    assert len(torch.unique(X)) < E.shape[0]  # tokens left unseen
    assert set(y.tolist()) == {1.0, -1.0}
    batch = ec._batch_cases()
    assert [args[4] for args, _ in batch] == [3, 25, 1]
    assert _shapes(batch, 0) == [(9, 4), (30, 16), (30, 16)] and _shapes(batch, 3) == [(7, 5), (25, 8), (25, 8)]
    assert [int(args[3].min()) for args, _ in batch] == [0, 0, 0]


def test_check_prints_one_line_and_returns_nothing(capsys):
    assert ec.check(ec.masked_softmax, "ch1-ex-masked-softmax") is None
    assert capsys.readouterr().out == "masked_softmax: correct on both cases\n"


def test_check_says_a_stub_is_not_filled_in(capsys):
    def my_masked_softmax(scores, mask):
        raise NotImplementedError

    assert ec.check(my_masked_softmax, "ch1-ex-masked-softmax") is None
    assert "fill in my_masked_softmax" in capsys.readouterr().out


def test_check_names_the_first_case_that_differs():
    def off_by_a_little(scores, mask):
        return ec.masked_softmax(scores, mask) + 1e-3

    with pytest.raises(AssertionError, match=r"off_by_a_little, case 1: .* up to 0\.001"):
        ec.check(off_by_a_little, "ch1-ex-masked-softmax")


def test_check_knows_the_exercise_by_its_stub_s_name(capsys):
    def one_step_values(*args, **kwargs):
        raise NotImplementedError

    def eta_threshold(X, y, vocab_size, d):  # a second stub: the right exercise, not the first in the table
        return ec.step_size_threshold(X, y, vocab_size, d)

    assert ec.check(one_step_values) is None and ec.check(eta_threshold) is None
    out = capsys.readouterr().out.splitlines()
    assert "fill in one_step_values" in out[0] and out[1].startswith("eta_threshold: correct on")
    assert set(ec.STUBS.values()) == set(ec.EXERCISES), "every exercise has its stub, and only those"


def test_a_function_that_is_not_a_stub_needs_its_label():
    def renamed(scores, mask):
        return ec.masked_softmax(scores, mask)

    with pytest.raises(ValueError, match=r"'renamed'.*'my_masked_softmax'.*'ch1-ex-masked-softmax'"):
        ec.check(renamed)
    with pytest.raises(ValueError, match=r"'<lambda>'"):
        ec.check(lambda scores, mask: scores)
    with pytest.raises(ValueError, match=r"'this function'"):  # a callable without a name
        ec.check(functools.partial(ec.masked_softmax))
    assert ec.check(renamed, "ch1-ex-masked-softmax") is None, "a label names the exercise whatever the name"


def test_check_names_the_known_labels_for_an_unknown_one():
    with pytest.raises(ValueError, match=r"unknown exercise 'ch1-ex-softmax'.*'ch1-ex-masked-softmax'"):
        ec.check(ec.masked_softmax, "ch1-ex-softmax")
