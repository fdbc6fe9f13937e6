"""The studies' exercise cases: each case plays the role its exercise needs."""

from __future__ import annotations

import pytest
import torch

from token_selection.studies.exercise_cases import EXERCISES, exercise
from token_selection.theory.importance import signed_frequency


def test_selection_cases_keep_each_class_once_with_every_value_level():
    _, cases = exercise("one_sided_selection")
    assert [args[4] for args, _ in cases] == [1, -1]
    X, y, relevant, values, _ = cases[0][0]
    assert tuple(X.shape) == (40, 6) and tuple(relevant.shape) == (40, 6) and set(y.tolist()) == {-1, 1}
    assert torch.equal(values.sort().values, torch.linspace(-1.0, 1.0, 20, dtype=torch.float64))
    assert not torch.equal(values, values.sort().values), "the values are shuffled over the tokens"


def test_signed_frequency_cases_are_negation_labels_sentiment_labels_and_unbalanced_data():
    reference, cases = exercise("signed_frequency")
    negation, sentiment, plain = (reference(*args) for args, _ in cases)
    assert float(negation.abs().max()) < 1e-15, "the negation labels hide every signed frequency"
    assert float(sentiment.abs().max()) > 0.01
    X, y, V = cases[2][0]
    assert (tuple(X.shape), V) == ((30, 5), 15) and set(y.tolist()) == {-1, 1}
    assert torch.equal(plain, signed_frequency(X, y, V))
    assert cases[0][0][0].shape == (40, 6) and cases[0][0][2] == 20


def test_arm_cases_pair_random_scores_with_an_asymmetric_vocabulary():
    _, cases = exercise("arm_heights")
    (scores, classes), kwargs = cases[0]
    assert kwargs == {} and scores.shape == (30,) and classes.tolist() == [1, 1] + [-1] * 5 + [0] * 23
    assert 0.5 < scores.std() < 1.5


def test_closed_form_cases_cover_the_edges():
    assert exercise("wilson_interval")[1] == [((0, 20), {}), ((3, 20), {}), ((10, 20), {}), ((20, 20), {}),
                                              ((7, 9), {"confidence": 0.9})]  # fmt: skip
    dimension = [((V, 0.5, 5, 200, 8), {}) for V in (20, 80, 640)] + [((40, 0.3, 2, 50, 4), {"failure": 0.1})]
    assert exercise("predicted_dimension")[1] == dimension
    cases = exercise("eta_star")[1]
    assert [args[1] for args, _ in cases] == [16, 512]
    assert torch.equal(cases[0][0][0], torch.linspace(-0.1, 0.2, 30, dtype=torch.float64))


def test_every_exercise_has_its_reference_and_an_unknown_one_is_named():
    assert sorted(EXERCISES) == ["arm_heights", "eta_star", "one_sided_selection", "predicted_dimension",
                                 "signed_frequency", "wilson_interval"]  # fmt: skip
    for name in EXERCISES:
        reference, cases = exercise(name)
        assert reference is EXERCISES[name][0] and cases
    with pytest.raises(ValueError, match="unknown exercise 'nope'; known: \\['arm_heights'"):
        exercise("nope")


def _flat(value):
    """The tensors and arrays of a case, flattened, for an exact comparison of two calls."""
    if isinstance(value, (tuple, list)):
        return [item for part in value for item in _flat(part)]
    if isinstance(value, dict):
        return [item for key in sorted(value) for item in (key, *_flat(value[key]))]
    return [value]


def _same(a, b) -> bool:
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.dtype == b.dtype and torch.equal(a, b)
    if hasattr(a, "dtype") and hasattr(a, "shape"):  # numpy
        return a.dtype == b.dtype and a.shape == b.shape and bool((a == b).all())
    return a == b


@pytest.mark.parametrize("name", ["one_sided_selection", "signed_frequency", "arm_heights"])
def test_drawn_cases_are_the_same_on_every_call(name):
    first, second = _flat(exercise(name)[1]), _flat(exercise(name)[1])
    assert len(first) == len(second) and all(_same(a, b) for a, b in zip(first, second, strict=True))


def test_selection_case_holds_exactly_one_relevant_token_per_sequence():
    X, y, relevant, _, _ = exercise("one_sided_selection")[1][0][0]
    assert relevant.sum(dim=1).tolist() == [1] * 40, "delta = 0: only the one forced relevant position"
    assert set(X[relevant].tolist()) <= set(range(4)) and int(X[~relevant].min()) >= 4


def test_unbalanced_signed_frequency_case_has_no_twin_sequences():
    X, y, _ = exercise("signed_frequency")[1][2][0]
    rows = {tuple(row) for row in X.tolist()}
    assert len(rows) == 30
    # balanced twins share their irrelevant tokens and differ only in the relevant one: with 15 tokens and m = 1,
    # id 2.. are irrelevant; unbalanced data draw every sequence's irrelevant tokens on their own
    irrelevant = {tuple(t if t >= 2 else -1 for t in row) for row in X.tolist()}
    assert len(irrelevant) > 15


def test_negation_cases_share_their_vocabulary():
    cases = exercise("signed_frequency")[1]
    assert cases[0][0][2] == cases[1][0][2] == 20 and cases[0][0][0] is cases[1][0][0]
    reference = EXERCISES["signed_frequency"][0]
    assert reference(*cases[1][0]).shape == (20,)


def test_arm_scores_are_float64():
    (scores, classes), _ = exercise("arm_heights")[1][0]
    assert scores.dtype == "float64" and classes.dtype == "int64"
