import copy

import pytest
import torch

import token_selection as ts
from token_selection.theory.full_batch import FullBatchGD, full_batch_gd_step_


def autograd_step(model: ts.CLSAttention, X, y, lr, mask=None) -> tuple[float, ts.CLSAttention]:
    """Loss and the model after one SGD step through autograd, on a copy."""
    stepped = copy.deepcopy(model)
    loss = ts.logistic_loss(stepped(X, mask), (2 * y - 1).to(stepped.E.dtype))
    loss.backward()
    with torch.no_grad():
        for parameter in stepped.parameters():
            parameter -= lr * parameter.grad
    return float(loss.detach()), stepped


def assert_same_step(model: ts.CLSAttention, X, y, lr, mask=None) -> None:
    before = copy.deepcopy(model)
    expected_loss, expected = autograd_step(model, X, y, lr, mask)
    loss = full_batch_gd_step_(model, X, y, lr, mask)
    assert float(loss) == pytest.approx(expected_loss, rel=1e-12)
    for name in ("E", "p", "v"):
        old, new, reference = (getattr(m, name).detach() for m in (before, model, expected))
        # relative to the update: 1e-10, plus rounding of the parameter itself where the update is below it
        tolerance = 1e-10 * float((reference - old).norm()) + 4 * torch.finfo(old.dtype).eps * float(old.norm())
        assert float((new - reference).norm()) <= tolerance, name


def small_case(seed: int = 0) -> tuple[ts.CLSAttention, torch.Tensor, torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    model = ts.CLSAttention(40, 16, seed=seed, dtype=torch.float64, p_init="random")
    X = torch.randint(0, 40, (30, 9), generator=gen)
    y = torch.randint(0, 2, (30,), generator=gen)
    mask = torch.rand(30, 9, generator=gen) > 0.3
    mask[:, 0] = True
    return model, X, y, mask


@pytest.mark.parametrize("scale", [0.0, 1.0, 100.0])
def test_step_matches_autograd(scale):
    model, X, y, mask = small_case()
    model.p.data.mul_(scale)
    assert_same_step(model, X, y, 0.5)
    assert_same_step(model, X, y, 0.5, mask)


def test_step_matches_autograd_where_sequences_need_their_own_maximum():
    model, X, y, mask = small_case(1)
    model.p.data.mul_(1e4 / model.p.norm())
    scores = model.token_scores().detach()
    # the fallback path runs: some sequence's best score is below the top score by more than float64's exp range
    assert float(scores[X].amax(1).min()) < float(scores[X].max()) - 800
    assert_same_step(model, X, y, 0.5, mask)


def test_repeated_steps_lower_the_loss_and_are_deterministic():
    def run() -> tuple[list[float], torch.Tensor]:
        model, X, y, mask = small_case(2)
        stepper = FullBatchGD(model, X, y, mask)
        return [float(stepper.step_(0.5)) for _ in range(20)], model.E.detach().clone()

    (losses, E), (again, E_again) = run(), run()
    assert losses[-1] < losses[0]
    assert losses == again and torch.equal(E, E_again)


def test_bad_inputs():
    model, X, y, _ = small_case()
    with pytest.raises(ValueError, match="CLSAttention"):
        FullBatchGD(torch.nn.Linear(2, 2), X, y)
    with pytest.raises(ValueError, match="float32 or float64"):
        FullBatchGD(ts.CLSAttention(40, 4, dtype=torch.float16), X, y)
    with pytest.raises(ValueError, match=r"\[0, 40\)"):
        FullBatchGD(model, X + 40, y)
    with pytest.raises(ValueError, match="y must have shape"):
        FullBatchGD(model, X, y[:-1])


def test_float32_step_matches_autograd_to_float32_rounding():
    model, X, y, mask = small_case(3)
    model = model.float()
    _, expected = autograd_step(model, X, y, 0.5, mask)
    before = model.E.detach().clone()
    full_batch_gd_step_(model, X, y, 0.5, mask)
    change, expected_change = model.E.detach() - before, expected.E.detach() - before
    # float32: the exp-table softmax and autograd's per-row softmax round differently, and E itself rounds
    tolerance = 1e-5 * float(expected_change.norm()) + 4 * torch.finfo(torch.float32).eps * float(before.norm())
    assert float((change - expected_change).norm()) <= tolerance
