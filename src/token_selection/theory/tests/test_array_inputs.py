"""One convention for array inputs: every public theory function takes numpy arrays and tensors alike.

Each function is called twice on the same uneven inputs (padding, unbalanced labels, unequal lengths), once with
tensors and once with the numpy arrays of the same values; the results must be identical. A Python list, which is
neither, is refused with a message that names the argument and says what is allowed.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

import token_selection as ts

V, D, N, T, K = 12, 16, 9, 6, 3


def _inputs() -> dict[str, torch.Tensor]:
    gen = torch.Generator().manual_seed(3)
    X = torch.randint(0, V, (N, T), generator=gen)
    X[:, 0] = torch.arange(N) % 2  # every sequence starts with a relevant token (0 or 1)
    lengths = torch.tensor([6, 3, 5, 6, 2, 4, 6, 1, 5])  # uneven, with padding
    mask = torch.arange(T)[None, :] < lengths[:, None]
    y = torch.tensor([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, -1.0, -1.0, 1.0])  # 7 against 2
    classes = torch.tensor([0, 2, 2, 1, 2, 2, 0, 2, 1])
    relevant = (X < 2) & mask
    selection = relevant.clone()
    return {
        "X": X,
        "mask": mask,
        "y": y,
        "classes": classes,
        "relevant": relevant,
        "selection": selection,
        "E": torch.randn(V, D, generator=gen, dtype=torch.float64),
        "p": torch.randn(D, generator=gen, dtype=torch.float64) / 4,
        "v": torch.randn(D, generator=gen, dtype=torch.float64),
        "W": torch.randn(K, D, generator=gen, dtype=torch.float64),
        "alpha": torch.randn(V, generator=gen, dtype=torch.float64),
        "beta": torch.randn(V, K, generator=gen, dtype=torch.float64),
        "weights": torch.rand(N, generator=gen, dtype=torch.float64) + 0.5,
        "probabilities": torch.softmax(torch.randn(N, K, generator=gen, dtype=torch.float64), -1),
        "x": torch.linspace(-0.9, 0.9, 40, dtype=torch.float64),
        "positive": torch.linspace(0.5, 4.0, 40, dtype=torch.float64),
        "power": torch.linspace(0.5, 4.0, 40, dtype=torch.float64) ** 1.5,
        "score": torch.linspace(-0.9, 0.9, 40, dtype=torch.float64) ** 2
        + 0.01 * torch.randn(40, generator=gen, dtype=torch.float64),
    }


def _model(a: dict) -> ts.CLSAttention:
    model = ts.CLSAttention(V, D, seed=1)
    with torch.no_grad():
        model.E.copy_(torch.as_tensor(a["E"]))
        model.v.copy_(torch.as_tensor(a["v"]))
    return model


def _stepped(a: dict) -> tuple:
    """Loss before one full-batch step, and the parameters after it."""
    model = _model(a)
    loss = ts.full_batch_gd_step_(model, a["X"], a["y"], 0.5, a["mask"])
    return loss, model.E.detach(), model.p.detach(), model.v.detach()


def _plotted(draw) -> tuple:
    """What a plotting function returns, and the data it drew (every line's and collection's points)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    try:
        returned = draw(ax)
        drawn = [np.asarray(line.get_xydata()) for line in ax.get_lines()]
        drawn += [np.asarray(c.get_offsets()) for c in ax.collections]
        return returned, drawn
    finally:
        plt.close(fig)


# name -> the call, on a dict of inputs (all tensors, or all numpy arrays)
CALLS = {
    "signed_frequency": lambda a: ts.signed_frequency(a["X"], a["y"], V, a["mask"], a["weights"]),
    "token_counts": lambda a: ts.token_counts(a["X"], a["y"], V, a["mask"]),
    "posterior_gap": lambda a: ts.posterior_gap(a["X"], a["y"], V, a["mask"]),
    "class_signed_frequency": lambda a: ts.class_signed_frequency(a["X"], a["classes"], K, V, a["mask"], a["probabilities"]),
    "selection_pairs": lambda a: ts.selection_pairs(a["X"], a["relevant"], V, a["mask"]),
    "tie_pairs": lambda a: ts.tie_pairs(a["X"], a["selection"], V, a["mask"]),
    "solve_max_margin": lambda a: ts.solve_max_margin(a["E"], a["X"], a["relevant"], a["mask"]),
    "max_margin_direction": lambda a: ts.max_margin_direction(a["E"], a["X"], mask=a["mask"], selection=a["selection"]),
    "predicted_one_step": lambda a: ts.predicted_one_step(a["E"], a["v"], a["alpha"], 0.3),
    "predicted_multiclass_one_step": lambda a: ts.predicted_multiclass_one_step(a["E"], a["W"], a["beta"], 0.3),
    "step_size_threshold": lambda a: ts.step_size_threshold(a["X"], a["y"], V, D, a["mask"]),
    "step_size_from_alpha": lambda a: ts.step_size_from_alpha(a["alpha"], D),
    "multiclass_logits": lambda a: ts.multiclass_logits(a["E"], a["p"], a["W"], a["X"], a["mask"]),
    "class_probabilities": lambda a: ts.class_probabilities(a["E"], a["p"], a["W"], a["X"], a["mask"]),
    "multiclass_one_step_embeddings": lambda a: ts.multiclass_one_step_embeddings(
        a["E"], a["p"], a["W"], a["X"], a["classes"], 0.5, a["mask"]
    ),
    "one_step_embeddings": lambda a: ts.one_step_embeddings(_model(a), a["X"], a["y"], 0.5, a["mask"]),
    "one_step_sample_weights": lambda a: ts.one_step_sample_weights(_model(a), a["X"], a["y"], a["mask"]),
    "train_cls": lambda a: ts.train_cls(
        _model(a), a["X"], a["y"], steps=3, lr=0.5, mask=a["mask"], relevant=a["relevant"], log_points=3
    ),
    "full_batch_gd_step_": lambda a: _stepped(a),
    "gather_then_attend": lambda a: ts.gather_then_attend(a["E"], a["p"], a["v"], a["X"], a["mask"]),
    "loop_logits": lambda a: ts.loop_logits(a["E"], a["p"], a["v"], a["X"], a["mask"]),
    "plot_against_importance": lambda a: _plotted(
        lambda ax: ts.plot_against_importance(ax, a["x"], a["score"], a["x"] > 0, sizes=a["positive"], fit=True)
    ),
    "plot_loglog_fit": lambda a: _plotted(lambda ax: ts.plot_loglog_fit(ax, a["positive"], a["power"], label="power")),
    "bin_by_importance": lambda a: ts.bin_by_importance(a["x"], a["score"], bins=4),
    "fit_line": lambda a: ts.fit_line(a["x"], a["score"]),
    "loglog_slope": lambda a: ts.loglog_slope(a["positive"], a["power"]),
    "classify_shape": lambda a: ts.classify_shape(a["x"], a["score"], n_boot=40),
    "compare_spread": lambda a: ts.compare_spread(a["x"], a["score"], a["power"], bins=4),
}


def _plain(value):
    """A result as nested plain values: tensors and arrays to numpy, dataclasses to dicts."""
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().numpy()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _assert_same(a, b, where: str = "result") -> None:
    if isinstance(a, dict):
        assert a.keys() == b.keys(), where
        for key in a:
            _assert_same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (u, w) in enumerate(zip(a, b, strict=True)):
            _assert_same(u, w, f"{where}[{i}]")
    elif isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert np.array_equal(np.asarray(a), np.asarray(b), equal_nan=np.asarray(a).dtype.kind == "f"), where
    elif isinstance(a, float) and np.isnan(a):
        assert isinstance(b, float) and np.isnan(b), where
    else:
        assert a == b, where


@pytest.mark.parametrize("name", sorted(CALLS))
def test_numpy_arrays_give_what_tensors_give(name):
    tensors = _inputs()
    arrays = {key: value.numpy() for key, value in tensors.items()}
    torch.manual_seed(0)
    from_tensors = _plain(CALLS[name](tensors))
    torch.manual_seed(0)
    from_arrays = _plain(CALLS[name](arrays))
    _assert_same(from_tensors, from_arrays, name)


def test_every_public_theory_function_with_array_arguments_is_covered():
    """A new public function that takes an array must join CALLS (or be one of the low-level autograd helpers)."""
    low_level = {"gather_tokens", "gathered_logits", "masked_softmax", "token_table", "logistic_loss"}
    array_names = {"X", "y", "E", "E0", "mask", "x", "alpha", "beta", "W", "p", "v", "importance", "values", "relevant"}
    import inspect

    taking_arrays = set()
    for name in ts.__all__:
        obj = getattr(ts, name)
        if inspect.isfunction(obj) and obj.__module__.startswith("token_selection.theory"):
            if array_names & set(inspect.signature(obj).parameters):
                taking_arrays.add(name)
    missing = taking_arrays - set(CALLS) - low_level
    assert not missing, f"public theory functions with array arguments and no numpy-versus-tensor test: {sorted(missing)}"


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda a: ts.max_margin_direction(a["E"].tolist(), a["X"], a["relevant"]), "E"),
        (lambda a: ts.predicted_one_step(a["E"].tolist(), a["v"], a["alpha"], 0.3), "E0"),
        (lambda a: ts.predicted_multiclass_one_step(a["E"], a["W"].tolist(), a["beta"], 0.3), "W"),
        (lambda a: ts.multiclass_logits(a["E"], a["p"], a["W"].tolist(), a["X"]), "W"),
        (lambda a: ts.signed_frequency(a["X"].tolist(), a["y"], V), "X"),
        (lambda a: ts.posterior_gap(a["X"], a["y"], V, a["mask"].tolist()), "mask"),
    ],
)
def test_a_list_is_refused_naming_the_argument_and_what_is_allowed(call, argument):
    with pytest.raises(ValueError, match=rf"^{argument} must be a torch.Tensor or numpy array, got list$"):
        call(_inputs())


def test_an_integer_or_non_finite_embedding_matrix_is_refused_by_max_margin():
    a = _inputs()
    with pytest.raises(ValueError, match=r"^E must be a floating-point matrix, got dtype torch.int64$"):
        ts.max_margin_direction(a["E"].long(), a["X"], a["relevant"])
    E = a["E"].clone()
    E[3, 2] = float("nan")
    with pytest.raises(ValueError, match=r"^E contains NaN or inf$"):
        ts.max_margin_direction(E, a["X"], a["relevant"])
    with pytest.raises(ValueError, match=r"^E must have shape \(V, d\), got \(12, 16, 1\)$"):
        ts.max_margin_direction(a["E"][:, :, None], a["X"], a["relevant"])
