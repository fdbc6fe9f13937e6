"""The registry of model kinds and training modes: what it builds, and what it refuses, in what words."""

import re

import pytest
import torch

from token_selection.real_data.attention_variants import AttentionMLP, KeyQueryTwoLayerAttention, MultiClassCLSAttention
from token_selection.real_data.registry import (
    MODEL_KINDS,
    ONE_STEP_KINDS,
    TRAINING_MODES,
    OneLayerAttention,
    build_model,
    check_kind_and_mode,
    revision_setting,
)
from token_selection.real_data.two_layer_model import TwoLayerCLSAttention

EXPECTED_CLASSES = {
    "one_layer": OneLayerAttention,
    "two_layer": TwoLayerCLSAttention,
    "key_query": KeyQueryTwoLayerAttention,
    "mlp": AttentionMLP,
    "multiclass": MultiClassCLSAttention,
}


def test_one_layer_logits_and_attention_follow_the_definition_and_ignore_padding():
    """Softmax over E_x . p on the real positions only, then the q-weighted sum of E_x . v, written out by hand."""
    model = OneLayerAttention(7, 3, seed=2)
    with torch.no_grad():
        model.p.copy_(torch.tensor([0.5, -1.0, 2.0]))  # p = 0 at the start would make every weight uniform
    X = torch.tensor([[1, 4, 4, 0], [6, 2, 0, 0]])
    mask = torch.tensor([[True, True, True, False], [True, True, False, False]])
    logits, weights = model.logits_and_attention(X, mask)
    E, p, v = model.E.detach().double(), model.p.detach().double(), model.v.detach().double()
    for row in range(2):
        real = X[row][mask[row]]
        q = torch.softmax(E[real] @ p, dim=0)
        assert torch.allclose(weights[row, : len(real)].double(), q, atol=1e-6)
        assert torch.all(weights[row, len(real) :] == 0)  # padding gets no weight at all
        assert logits[row].item() == pytest.approx((q * (E[real] @ v)).sum().item(), abs=1e-6)
    # without a mask the padding token 0 is attended like any other token: the logits change
    assert not torch.allclose(model.logits_and_attention(X, None)[0], logits)


@pytest.mark.parametrize("kind", sorted(EXPECTED_CLASSES))
def test_build_model_draws_each_kind_from_its_seed(kind):
    V, d = 9, 5
    model = build_model(kind, V, d, seed=3)
    assert type(model) is EXPECTED_CLASSES[kind]
    assert model.E.shape == (V, d) and model.E.dtype == torch.float32
    assert torch.equal(build_model(kind, V, d, seed=3).E, model.E)  # the same seed, the same draw
    assert not torch.equal(build_model(kind, V, d, seed=4).E, model.E)  # another seed, another draw
    assert torch.equal(build_model(kind, V, d).E, build_model(kind, V, d, seed=0).E)  # seed 0 by default
    X, mask = torch.tensor([[2, 3, 0], [8, 1, 1]]), torch.tensor([[True, True, False], [True, True, True]])
    logits = model.logits_and_attention(X, mask)[0]
    classes = MODEL_KINDS[kind].num_classes
    assert logits.shape == ((2,) if classes == 2 else (2, classes))


def test_the_multiclass_kind_has_four_classes_and_the_others_two():
    assert MODEL_KINDS["multiclass"].num_classes == 4
    assert build_model("multiclass", 6, 3).W.shape == (4, 3)
    assert {k.num_classes for name, k in MODEL_KINDS.items() if name != "multiclass"} == {2}


def test_every_kind_goes_with_joint_and_frozen_random_and_only_one_layer_with_the_one_step():
    for kind in MODEL_KINDS:
        for mode in TRAINING_MODES:
            if mode.startswith("one_step") and kind not in ONE_STEP_KINDS:
                continue
            check_kind_and_mode(kind, mode)  # no error
    assert ONE_STEP_KINDS == ("one_layer",)


def test_bad_kinds_and_modes_are_refused_with_what_is_allowed():
    kinds = "['key_query', 'mlp', 'multiclass', 'one_layer', 'two_layer']"
    with pytest.raises(ValueError, match=re.escape(f"kind must be one of {kinds}, got 'lstm'")):
        check_kind_and_mode("lstm", "joint")
    with pytest.raises(ValueError, match=re.escape(f"kind must be one of {kinds}, got 'lstm'")):
        build_model("lstm", 5, 3)
    modes = "['frozen_random', 'joint', 'joint_converged', 'one_step_converged', 'one_step_frozen']"
    with pytest.raises(ValueError, match=re.escape(f"mode must be one of {modes}, got 'two_steps'")):
        check_kind_and_mode("one_layer", "two_steps")
    for kind in ("two_layer", "key_query", "mlp", "multiclass"):
        message = f"mode 'one_step_frozen' is defined for kinds ('one_layer',), got {kind!r}"
        with pytest.raises(ValueError, match=re.escape(message)):
            check_kind_and_mode(kind, "one_step_frozen")


def test_only_a_changed_computation_has_a_revision_and_an_unknown_kind_is_named():
    assert revision_setting("two_layer") == {"model_revision": 2}
    assert [k for k in MODEL_KINDS if revision_setting(k)] == ["two_layer"]
    with pytest.raises(ValueError, match=r"kind must be one of .*'two_layer'.*, got 'three_layer'"):
        revision_setting("three_layer")
