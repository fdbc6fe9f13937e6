"""check_exercise: accepts a match, reports a stub as not attempted, and names the first case that differs and how."""

from __future__ import annotations

import functools
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
import torch

from token_selection.exercises import check_exercise, label_for, lookup_exercise, not_attempted


def reference(x, scale=1.0):
    return scale * np.asarray(x, dtype=np.float64) ** 2


CASES = [(([1.0, 2.0],), {}), (([3.0, -1.0, 0.5],), {"scale": 2.0})]


def test_a_matching_function_passes_and_says_on_how_many_cases(capsys):
    assert check_exercise(lambda x, scale=1.0: scale * np.square(x), reference, CASES, name="square") is True
    assert capsys.readouterr().out == "square: correct on both cases\n"


@pytest.mark.parametrize(("cases", "said"), [(1, "the one case"), (2, "both cases"), (3, "all 3 cases")])
def test_the_count_of_cases_is_said_in_words(capsys, cases, said):
    square = lambda x, scale=1.0: scale * np.square(x)  # noqa: E731 - the candidate
    assert check_exercise(square, reference, (CASES * 2)[:cases], name="square") is True
    assert capsys.readouterr().out == f"square: correct on {said}\n"


def test_tensors_and_lists_are_compared_as_float64_arrays(capsys):
    def as_tensor(x, scale=1.0):
        return torch.tensor(x, dtype=torch.float32, requires_grad=True) ** 2 * scale

    assert check_exercise(as_tensor, reference, CASES, rtol=1e-6, atol=1e-6)
    assert check_exercise(lambda x, scale=1.0: [scale * v * v for v in x], reference, CASES)
    assert "your function: correct on both cases" in capsys.readouterr().out


def test_a_stub_is_not_attempted_and_nothing_is_asserted(capsys):
    def stub(x, scale=1.0):
        raise NotImplementedError

    assert check_exercise(stub, reference, CASES, name="square") is None  # a notebook displays nothing for None
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and "stub" in out and "True" not in out and "False" not in out


def test_a_stub_after_a_correct_case_is_still_not_attempted(capsys):
    calls = []

    def half_done(x, scale=1.0):
        calls.append(scale)
        if scale != 1.0:
            raise NotImplementedError
        return np.square(x)

    assert check_exercise(half_done, reference, CASES) is None
    assert calls == [1.0, 2.0]


def test_the_first_differing_case_is_named_with_the_largest_difference():
    def wrong_on_second(x, scale=1.0):
        return np.square(x) if scale == 1.0 else np.square(x) * scale + np.array([0.0, 0.25, -0.5])

    with pytest.raises(AssertionError, match=r"^square, case 2: differs from the reference by up to 0\.5$"):
        check_exercise(wrong_on_second, reference, CASES, name="square")


def test_a_wrong_shape_is_named_with_both_shapes():
    with pytest.raises(AssertionError, match=r"^your function, case 1: shape \(1, 2\), expected \(2,\)$"):
        check_exercise(lambda x, scale=1.0: np.square([x]), reference, CASES)


def test_tolerances_are_relative_and_absolute_and_used_as_given():
    cases = [(([10.0],), {})]
    off = 1e-6  # relative 1e-8 of the reference value 100
    assert check_exercise(lambda x: reference(x) + off, reference, cases, rtol=1e-7, atol=0.0)
    with pytest.raises(AssertionError, match="case 1"):
        check_exercise(lambda x: reference(x) + off, reference, cases, rtol=1e-9, atol=0.0)
    assert check_exercise(lambda x: reference(x) + off, reference, cases, rtol=0.0, atol=2e-6)
    with pytest.raises(AssertionError, match="case 1"):
        check_exercise(lambda x: reference(x) + off, reference, cases, rtol=0.0, atol=5e-7)


def test_default_tolerances_are_tight():
    cases = [(([1000.0],), {})]
    assert check_exercise(lambda x: reference(x) * (1 + 5e-7), reference, cases)
    with pytest.raises(AssertionError):
        check_exercise(lambda x: reference(x) * (1 + 5e-6), reference, cases)
    assert check_exercise(lambda x: np.zeros(1) + 5e-10, lambda x: np.zeros(1), cases)
    with pytest.raises(AssertionError):
        check_exercise(lambda x: np.zeros(1) + 5e-9, lambda x: np.zeros(1), cases)


def test_nan_matches_nan_only():
    nan = lambda x: np.array([np.nan, 1.0])  # noqa: E731
    assert check_exercise(nan, nan, [((0,), {})])
    with pytest.raises(AssertionError):
        check_exercise(lambda x: np.array([0.0, 1.0]), nan, [((0,), {})])


def test_no_cases_is_refused():
    with pytest.raises(ValueError, match=r"^cases must hold at least one \(args, kwargs\) pair$"):
        check_exercise(reference, reference, [])


def test_numbers_of_other_types_are_compared_as_float64():
    third = [((None,), {})]
    assert check_exercise(lambda _: [Fraction(1, 3), Decimal("0.5")], lambda _: np.array([1 / 3, 0.5]), third)
    assert check_exercise(lambda _: ["0.25"], lambda _: [0.25], third)


def test_a_named_function_is_called_by_its_own_name_unless_one_is_given(capsys):
    def my_square(x, scale=1.0):
        return scale * np.square(x)

    check_exercise(my_square, reference, CASES)
    check_exercise(my_square, reference, CASES, name="square")
    assert capsys.readouterr().out == "my_square: correct on both cases\nsquare: correct on both cases\n"


@pytest.mark.parametrize(
    ("make_stub", "given", "shown"),
    [
        ("def", None, "stub"),  # its own name
        ("lambda", None, "your function"),  # '<lambda>' is no name to show
        ("lambda", "square", "square"),  # the name given
        ("partial", None, "your function"),  # no __name__ at all
    ],
)
def test_a_stub_is_named_by_its_own_name_or_the_one_given(capsys, make_stub, given, shown):
    def stub(x, scale=1.0):
        raise NotImplementedError

    candidate = {"def": stub, "lambda": lambda x, scale=1.0: stub(x), "partial": functools.partial(stub)}[make_stub]
    kwargs = {} if given is None else {"name": given}
    assert check_exercise(candidate, reference, CASES, **kwargs) is None
    assert (
        capsys.readouterr().out
        == f"Your turn: fill in {shown} above and run this cell; it then checks your answer on the course's cases.\n"
    )


def test_not_attempted_names_what_it_is_given(capsys):
    not_attempted(functools.partial(reference))
    not_attempted(functools.partial(reference), "square")
    assert capsys.readouterr().out.splitlines() == [
        "Your turn: fill in your function above and run this cell; it then checks your answer on the course's cases.",
        "Your turn: fill in square above and run this cell; it then checks your answer on the course's cases.",
    ]


def test_an_exercise_is_looked_up_with_its_cases_built_and_an_unknown_one_is_named():
    built = []
    registry = {"ch9-ex-square": (reference, lambda: built.append(1) or CASES)}
    assert lookup_exercise(registry, "ch9-ex-square") == (reference, CASES) and built == [1]
    with pytest.raises(ValueError, match=r"^unknown exercise 'ch9-ex-cube'; known: \['ch9-ex-square'\]$"):
        lookup_exercise(registry, "ch9-ex-cube")


STUBS = {"my_square": "ex-square", "my_cube": "ex-cube"}


def test_the_exercise_is_the_label_given_or_the_one_whose_stub_bears_the_name():
    def my_cube(x):
        return x**3

    assert label_for(my_cube, STUBS) == "ex-cube"
    assert label_for(my_cube, STUBS, "ex-square") == "ex-square", "a label wins over the name"
    assert label_for(my_cube, STUBS, "") == "", "an empty label is still a label: the registry names it unknown"


@pytest.mark.parametrize(
    ("candidate", "named"),
    [(lambda x: x, "'<lambda>'"), (functools.partial(reference), "'this function'"), (reference, "'reference'")],
)
def test_a_function_whose_name_is_no_stub_s_is_told_the_stubs_and_the_labels(candidate, named):
    with pytest.raises(ValueError) as raised:
        label_for(candidate, STUBS)
    message = str(raised.value)
    assert message.startswith(f"cannot tell which exercise {named} answers"), "the function it could not place"
    assert "stub's name (one of ['my_cube', 'my_square'])" in message, "the stubs it knows, sorted"
    assert message.endswith("check(function, label), with a label among ['ex-cube', 'ex-square']"), "the labels"
