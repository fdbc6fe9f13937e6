"""The chapter-5 checkers accept the package's answer and reject a plausible wrong one."""

from __future__ import annotations

import pytest
import torch

from token_selection.explorer import exercises
from token_selection.explorer.compute import SELECTED_MASS, selected_relevant_per_sequence, token_mass
from token_selection.explorer.config import factor_for_alignment
from token_selection.explorer.exercises import ALIGNMENTS, check_factor_for_alignment, check_selected_per_sequence


def test_checkers_accept_the_reference_and_report_a_stub():
    assert check_factor_for_alignment(factor_for_alignment) is True
    assert check_selected_per_sequence(selected_relevant_per_sequence) is True

    def stub(*args):
        raise NotImplementedError

    assert check_factor_for_alignment(stub) is None and check_selected_per_sequence(stub) is None


def test_factor_checker_rejects_the_squared_law():
    # a classic slip: inverting r^2 / (1 + r^2) instead of r / sqrt(1 + r^2)
    def factor(target):
        return (target / (1 - target)) ** 0.5

    with pytest.raises(AssertionError, match="factor, case 2"):  # named as the learner named it
        check_factor_for_alignment(factor)


def test_selection_checker_rejects_counting_positions():
    def positions(attention, X, relevant, vocab_size):
        return float(((attention >= 0.01) & relevant).sum(1).double().mean())

    with pytest.raises(AssertionError, match="positions, case 1"):
        check_selected_per_sequence(positions)


def test_selection_checker_rejects_judging_each_repeat_alone():
    def per_position(attention, X, relevant, vocab_size):
        counts = [len({int(x) for x, r, a in zip(row, rel, att, strict=True) if r and a >= 0.01})
                  for row, rel, att in zip(X, relevant, attention, strict=True)]  # fmt: skip
        return float(torch.tensor(counts, dtype=torch.float64).mean())

    with pytest.raises(AssertionError, match="per_position, case 2"):
        check_selected_per_sequence(per_position)


@pytest.fixture
def handed(monkeypatch):
    """What each checker hands to ``check_exercise``: the reference's name -> (reference, cases, tolerances); the
    message names the candidate, as ``check_exercise`` does by default."""
    seen = {}

    def spy(candidate, reference, cases, **tolerances):
        assert "name" not in tolerances, "the checker's messages name the learner's function, not the reference"
        seen[reference.__name__] = (reference, cases, tolerances)
        return True

    monkeypatch.setattr(exercises, "check_exercise", spy)
    assert check_factor_for_alignment(None) is True and check_selected_per_sequence(None) is True
    return seen


def test_each_checker_compares_with_its_reference_at_its_documented_tolerance(handed):
    assert handed["factor_for_alignment"][0] is factor_for_alignment
    assert handed["factor_for_alignment"][2] == {"rtol": 1e-9, "atol": 1e-12}
    assert handed["selected_relevant_per_sequence"][0] is selected_relevant_per_sequence
    assert handed["selected_relevant_per_sequence"][2] == {"rtol": 0.0, "atol": 1e-12}
    assert [args for args, _ in handed["factor_for_alignment"][1]] == [(target,) for target in ALIGNMENTS]


def test_the_factor_checker_rejects_an_answer_off_by_a_relative_1e_8_or_by_1e_10_at_zero():
    assert check_factor_for_alignment(lambda target: factor_for_alignment(target) * (1 + 1e-11)) is True  # float64 noise
    with pytest.raises(AssertionError, match="case 2"):  # the first case with a non-zero answer
        check_factor_for_alignment(lambda target: factor_for_alignment(target) * (1 + 1e-8))
    with pytest.raises(AssertionError, match="case 1"):  # target 0: the answer is exactly 0
        check_factor_for_alignment(lambda target: factor_for_alignment(target) + 1e-10)


def test_the_selection_checker_takes_no_relative_slack():
    # a mean of integer counts has no rounding to forgive: 1e-10 off is wrong (and so is a relative 1e-7)
    with pytest.raises(AssertionError, match="case 1"):
        check_selected_per_sequence(lambda *args: selected_relevant_per_sequence(*args) + 1e-10)
    with pytest.raises(AssertionError, match="case 1"):
        check_selected_per_sequence(lambda *args: selected_relevant_per_sequence(*args) * (1 + 1e-7))


def test_the_selection_cases_are_uneven_valid_and_put_tokens_around_the_threshold(handed):
    _, cases, _ = handed["selected_relevant_per_sequence"]
    assert [tuple(args[1].shape) for args, _ in cases] == [(40, 8), (40, 32), (40, 64)]  # three sequence lengths
    largest = 0
    for (attention, X, relevant, V), kwargs in cases:
        assert kwargs == {} and attention.shape == X.shape == relevant.shape
        assert torch.allclose(attention.sum(1), torch.ones(40, dtype=torch.float64))
        assert X.min() >= 0 and X.max() < V  # ids the vocabulary holds
        largest = max(largest, int(X.max()))
        mass = token_mass(attention, X, V)[relevant]
        # relevant tokens whose summed mass lies within a factor 2 of the threshold: where counting goes wrong
        assert int(((mass > SELECTED_MASS / 2) & (mass < 2 * SELECTED_MASS)).sum()) >= 10
        repeated = [len(set(row[rel].tolist())) < int(rel.sum()) for row, rel in zip(X, relevant, strict=True)]
        assert sum(repeated) >= 10  # sequences where a relevant token repeats
    assert largest == V - 1  # every id of the vocabulary can occur


def test_the_selection_cases_are_the_same_on_every_call(monkeypatch):
    """Seeded: a reader who fails a case sees the same case when trying again."""
    runs = []
    for _ in range(2):
        monkeypatch.setattr(exercises, "check_exercise", lambda candidate, reference, cases, **kw: runs.append(cases) or True)
        check_selected_per_sequence(None)
    (first, second) = runs
    for (args, _), (again, _) in zip(first, second, strict=True):
        assert all(torch.equal(a, b) for a, b in zip(args[:3], again[:3], strict=True)) and args[3] == again[3]


def test_check_runs_the_checker_of_its_label_and_prints_one_line(capsys):
    from token_selection.explorer.exercises import check

    assert check(factor_for_alignment, "ch5-ex-factor") is None
    assert check(selected_relevant_per_sequence, "ch5-ex-selected") is None
    out = capsys.readouterr().out.splitlines()
    assert out == [  # each line names the function checked, as the learner's stub would be named
        "factor_for_alignment: correct on all 7 cases",
        "selected_relevant_per_sequence: correct on all 3 cases",
    ]
    with pytest.raises(AssertionError, match="your function, case 2"):  # a lambda has no name to show
        check(lambda target: (target / (1 - target)) ** 0.5, "ch5-ex-factor")
    with pytest.raises(ValueError, match=r"unknown exercise 'ch5-ex-length'.*'ch5-ex-factor', 'ch5-ex-selected'"):
        check(factor_for_alignment, "ch5-ex-length")


def test_check_knows_chapter_5_s_exercises_by_their_stubs_names(capsys):
    from token_selection.explorer.exercises import CHECKERS, STUBS, check

    def selected_per_sequence(attention, X, relevant, vocab_size):
        return selected_relevant_per_sequence(attention, X, relevant, vocab_size)

    def factor(target):
        raise NotImplementedError

    assert check(selected_per_sequence) is None and check(factor) is None
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "selected_per_sequence: correct on all 3 cases" and "fill in factor" in out[1]
    assert set(STUBS.values()) == set(CHECKERS)
    with pytest.raises(ValueError, match=r"'factor_for_alignment'.*'factor', 'selected_per_sequence'"):
        check(factor_for_alignment)
