"""Device placement of the theory functions: every tensor they make or move lands on the inputs' device.

A reader on a GPU passes CUDA tensors (or a model on the GPU); a tensor left on the CPU would
raise a device mismatch there. On a CPU-only machine the same mistakes are made visible with
the helpers of ``token_selection.tests.device_spy``: a ``meta`` model where the function
allows it, tensors that record where they are moved, and factory calls that land on ``meta``
unless they name a device. The ``cuda`` tests repeat the checks on a GPU when one is present.
"""

from __future__ import annotations

import torch

import token_selection as ts
from token_selection.tests.device_spy import cuda, factories_on_meta, moves, recorded_moves
from token_selection.theory import importance, multiclass, one_step, training
from token_selection.theory.full_batch import FullBatchGD

CPU = torch.device("cpu")


def _problem(n: int = 6, T: int = 5, V: int = 9, seed: int = 0) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    X = torch.randint(0, V, (n, T), generator=gen)
    y = torch.tensor([1.0, -1.0] * (n // 2))
    mask = torch.ones(n, T, dtype=torch.bool)
    mask[0, -2:] = False
    mask[3, -1] = False
    return X, y, mask


# ---- importance -------------------------------------------------------------------------------


def test_signed_frequency_makes_its_tensors_on_the_device_of_X():
    X, y, mask = _problem()
    for m in (None, mask):
        want = importance.signed_frequency(X, y, 9, mask=m)
        with factories_on_meta():
            got = importance.signed_frequency(X, y, 9, mask=m)
        assert got.device == CPU
        torch.testing.assert_close(got, want)


def test_signed_frequency_moves_labels_and_weights_to_the_device_of_X():
    X, y, mask = _problem()
    importance.signed_frequency(X, recorded_moves(y), 9, mask=mask)
    assert moves() == [X.device]
    importance.signed_frequency(X, y, 9, mask=mask, sample_weights=recorded_moves(torch.rand(6, dtype=torch.float64)))
    assert moves() == [X.device]


def test_token_counts_moves_labels_to_the_device_of_X_and_makes_rows_there():
    X, y, mask = _problem()
    positive, negative = importance.token_counts(X, recorded_moves(y), 9, mask=mask)
    assert moves() == [X.device]
    with factories_on_meta():
        got = importance.token_counts(X, y, 9, mask=mask)
    assert [t.device for t in got] == [CPU, CPU]
    assert torch.equal(got[0], positive) and torch.equal(got[1], negative)


@cuda
def test_importance_on_a_gpu_matches_the_cpu():
    X, y, mask = _problem()
    gpu = torch.device("cuda")
    for m in (None, mask):
        mg = None if m is None else m.to(gpu)
        got = importance.signed_frequency(X.to(gpu), y, 9, mask=mg, sample_weights=torch.rand(6, dtype=torch.float64))
        assert got.device.type == "cuda"
        counts = importance.token_counts(X.to(gpu), y, 9, mask=mg)
        want = importance.token_counts(X, y, 9, mask=m)
        assert all(torch.equal(a.cpu(), b) for a, b in zip(counts, want, strict=True))


# ---- models: a model on `meta` runs the forward there; a CPU mask or id left behind raises ----------


def _meta_model(V: int = 9, d: int = 4) -> ts.CLSAttention:
    model = ts.CLSAttention(V, d, seed=0, dtype=torch.float64, p_init="random")
    return model.to("meta")


def test_the_model_moves_ids_and_mask_to_its_own_device():
    X, _, mask = _problem()
    model = _meta_model()
    assert model(X, mask).device.type == "meta"
    assert model.attention(X, mask).device.type == "meta"


def test_gather_then_attend_moves_ids_and_mask_to_the_device_of_E():
    X, _, mask = _problem()
    model = _meta_model()
    logits, weights = ts.gather_then_attend(model.E, model.p, model.v, X, mask)
    assert logits.device.type == "meta" and weights.device.type == "meta"


def test_multiclass_logits_move_ids_and_mask_to_the_device_of_E():
    X, _, mask = _problem()
    E, p, W = torch.randn(9, 4, device="meta"), torch.randn(4, device="meta"), torch.randn(3, 4, device="meta")
    logits, weights = multiclass.multiclass_logits(E, p, W, X, mask)
    assert logits.device.type == "meta" and weights.device.type == "meta"


# ---- functions that train or differentiate: they cannot run on `meta`, so their moves are recorded ----


def test_one_step_embeddings_moves_ids_and_labels_to_the_model():
    X, y, mask = _problem()
    model = ts.CLSAttention(9, 4, seed=0, dtype=torch.float64)
    E = one_step.one_step_embeddings(model, recorded_moves(X), y, 1.0, mask)
    assert moves()[0] == model.E.device and E.device == model.E.device
    one_step.one_step_embeddings(model, X, recorded_moves(y), 1.0, mask)
    assert moves() == [model.E.device]


def test_one_step_sample_weights_move_ids_and_labels_to_the_model():
    X, y, mask = _problem()
    model = ts.CLSAttention(9, 4, seed=0, dtype=torch.float64)
    one_step.one_step_sample_weights(model, recorded_moves(X), y, mask)
    assert moves()[0] == model.E.device
    one_step.one_step_sample_weights(model, X, recorded_moves(y), mask)
    assert moves() == [model.E.device]


def test_train_cls_moves_every_input_to_the_model():
    X, y, mask = _problem()
    relevant = X == X[:, :1]
    reference = torch.randn(4, dtype=torch.float64)
    inputs = {"X": X, "y": y, "relevant": relevant, "reference": reference}
    for name in inputs:
        model = ts.CLSAttention(9, 4, seed=0, dtype=torch.float64)
        kwargs = dict(inputs)
        kwargs[name] = recorded_moves(inputs[name])
        X_, y_ = kwargs.pop("X"), kwargs.pop("y")
        training.train_cls(model, X_, y_, steps=1, lr=0.1, mask=mask, log_points=2, **kwargs)
        assert moves()[0] == model.E.device, name


def test_multiclass_one_step_moves_ids_and_labels_to_the_device_of_E():
    X, _, mask = _problem()
    y = torch.tensor([0, 1, 2, 0, 1, 2])
    E, p, W = torch.randn(9, 4), torch.randn(4), torch.randn(3, 4)
    multiclass.multiclass_one_step_embeddings(E, p, W, recorded_moves(X), y, 1.0, mask)
    assert moves()[0] == E.device
    multiclass.multiclass_one_step_embeddings(E, p, W, X, recorded_moves(y), 1.0, mask)
    assert moves()[0] == E.device


def test_class_signed_frequency_keeps_every_tensor_on_the_device_of_X():
    X, _, mask = _problem()
    y = torch.tensor([0, 1, 2, 0, 1, 2])
    probabilities = torch.softmax(torch.randn(6, 3), dim=1)
    for m in (None, mask):
        want = multiclass.class_signed_frequency(X, y, 3, 9, mask=m)
        with factories_on_meta():
            got = multiclass.class_signed_frequency(X, y, 3, 9, mask=m)
        assert got.device == CPU
        torch.testing.assert_close(got, want)
    multiclass.class_signed_frequency(X, recorded_moves(y), 3, 9, mask=mask)
    assert moves()[0] == X.device
    multiclass.class_signed_frequency(X, y, 3, 9, mask=mask, probabilities=recorded_moves(probabilities))
    assert moves()[0] == X.device


def test_full_batch_gd_moves_ids_and_labels_to_the_model():
    X, y, mask = _problem()
    model = ts.CLSAttention(9, 4, seed=0, dtype=torch.float64)
    FullBatchGD(model, recorded_moves(X), y, mask)
    assert moves()[0] == model.E.device
    FullBatchGD(model, X, recorded_moves(y), mask)
    assert moves() == [model.E.device]


@cuda
def test_theory_functions_on_a_gpu_match_the_cpu():
    X, y, mask = _problem()
    gpu = torch.device("cuda")
    cpu_model = ts.CLSAttention(9, 4, seed=0, dtype=torch.float64, p_init="random")
    model = ts.CLSAttention(9, 4, seed=0, dtype=torch.float64, p_init="random").to(gpu)
    torch.testing.assert_close(model(X, mask).cpu(), cpu_model(X, mask))
    logits = ts.gather_then_attend(model.E, model.p, model.v, X, mask)[0]
    torch.testing.assert_close(logits.cpu(), cpu_model(X, mask))
    E = one_step.one_step_embeddings(model, X, y, 1.0, mask)
    torch.testing.assert_close(E.cpu(), one_step.one_step_embeddings(cpu_model, X, y, 1.0, mask))
    assert one_step.one_step_sample_weights(model, X, y, mask).device.type == "cuda"
    relevant = X == X[:, :1]
    training.train_cls(model, X, y, steps=2, lr=0.1, mask=mask, relevant=relevant, reference=torch.randn(4).double())
    step = FullBatchGD(model, X, y, mask)
    step.step_(0.1)
    labels = torch.tensor([0, 1, 2, 0, 1, 2])
    E3, p3, W3 = (torch.randn(9, 4, device=gpu), torch.randn(4, device=gpu), torch.randn(3, 4, device=gpu))
    assert multiclass.multiclass_logits(E3, p3, W3, X, mask)[0].device.type == "cuda"
    assert multiclass.multiclass_one_step_embeddings(E3, p3, W3, X, labels, 1.0, mask).device.type == "cuda"
    beta = multiclass.class_signed_frequency(X.to(gpu), labels, 3, 9, mask=mask.to(gpu), probabilities=torch.full((6, 3), 1 / 3))
    torch.testing.assert_close(beta.cpu(), multiclass.class_signed_frequency(X, labels, 3, 9, mask=mask))
