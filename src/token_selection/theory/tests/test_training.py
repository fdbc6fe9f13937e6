import numpy as np
import pytest
import torch

import token_selection as ts
from token_selection.theory import training


def trained_copy(reference_case, **kwargs):
    data, model = reference_case
    model = ts.CLSAttention(50, 512, seed=0, dtype=torch.float64)
    model.E.data.copy_(reference_case[1].E.detach())
    reference = ts.max_margin_direction(model.E.detach(), data.X, data.relevant)
    history = ts.train_cls(model, data.X, data.y, reference=reference, relevant=data.relevant, **kwargs)
    return model, history, reference


def test_normalized_gd_converges_to_max_margin_direction(reference_case):
    model, history, reference = trained_copy(reference_case, steps=5000, lr=1.0, method="normalized")
    assert history.cosine[-1] >= 0.99
    assert history.min_relevant_attention[-1] > 0.99
    assert float(model.p.detach() @ reference / model.p.detach().norm()) == pytest.approx(history.cosine[-1], abs=1e-12)
    assert history.stop_reason.startswith("stopped at step")
    assert history.step[-1] < 5000


def test_plain_gd_grows_norm_and_lowers_loss(reference_case):
    _, history, _ = trained_copy(reference_case, steps=300, lr=10.0, method="gd")
    arrays = history.as_arrays()
    assert arrays["step"][-1] == 300 and history.stop_reason == "ran all 300 steps"
    assert np.all(np.diff(arrays["p_norm"]) > 0)
    assert arrays["loss"][-1] < arrays["loss"][0]
    assert arrays["cosine"][-1] > 0.85
    assert np.all(np.isfinite(arrays["cosine"]))


def test_without_the_stop_the_direction_drifts(reference_case, monkeypatch):
    # past the float64 floor the gradient is rounding noise: the stop is what keeps p on p_mm
    monkeypatch.setattr(training, "ROUNDING_FACTOR", 0.0)
    _, history, _ = trained_copy(reference_case, steps=1500, lr=1.0, method="normalized")
    assert max(history.cosine) > 0.99
    assert history.cosine[-1] < 0.9


def test_history_is_log_spaced_and_bitwise_reproducible(reference_case):
    _, first, _ = trained_copy(reference_case, steps=200, lr=10.0, log_points=20)
    _, second, _ = trained_copy(reference_case, steps=200, lr=10.0, log_points=20)
    assert first.as_arrays().keys() == second.as_arrays().keys()
    for key, value in first.as_arrays().items():
        assert np.array_equal(value, second.as_arrays()[key]), key
    assert first.step[:4] == [0, 1, 2, 3] and first.step[-1] == 200 and len(first.step) <= 21


def test_e_and_v_stay_frozen(reference_case):
    model, _, _ = trained_copy(reference_case, steps=20, lr=1.0)
    assert torch.equal(model.E.detach(), reference_case[1].E.detach())
    assert torch.equal(model.v.detach(), reference_case[1].v.detach())


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "adam"}, "method must be"),
        ({"lr": -1.0}, "lr must be"),
        ({"lr": float("nan")}, "lr must be"),
        ({"steps": -1}, "steps must be"),
        ({"reference": torch.ones(3, dtype=torch.float64)}, "reference must have shape"),
        ({"relevant": torch.ones(200, 8)}, "relevant must be a bool"),
    ],
)
def test_bad_arguments(reference_case, kwargs, message):
    data, model = reference_case
    args = {"steps": 5, "lr": 1.0} | kwargs
    with pytest.raises(ValueError, match=message):
        ts.train_cls(model, data.X, data.y, **args)


def test_single_class_is_rejected(reference_case):
    data, model = reference_case
    with pytest.raises(ValueError, match="single class"):
        ts.train_cls(model, data.X, torch.ones(200), steps=1, lr=1.0)
