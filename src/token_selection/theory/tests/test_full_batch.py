import copy

import pytest
import torch

import token_selection as ts
from token_selection.theory.full_batch import FullBatchGD, full_batch_gd_step_, id_dtype


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


def test_a_model_that_is_not_clsattention_is_named_in_the_error():
    model, X, y, _ = small_case()
    with pytest.raises(ValueError) as error:
        FullBatchGD(torch.nn.Linear(2, 2), X, y)
    assert str(error.value) == "model must be a CLSAttention, got Linear"


def test_ids_are_stored_by_position_as_int32_while_every_id_fits():
    model, X, y, mask = small_case()
    stepper = FullBatchGD(model, X, y, mask)
    assert stepper.ids.dtype == torch.int32 and stepper.ids.shape == (9, 30) and stepper.ids.is_contiguous()
    # padded positions hold the extra id V = 40
    assert torch.equal(stepper.ids.T.long(), X.masked_fill(~mask, 40))
    int32_max = 2**31 - 1
    assert id_dtype(int32_max) == torch.int32  # the padding id V = 2^31 - 1 still fits
    assert id_dtype(int32_max + 1) == torch.int64


def _hand_model(rows: list[tuple[float, float]]) -> ts.CLSAttention:
    """A float64 model with p = (1, 0) and v = (0, 1): token s has score rows[s][0] and value rows[s][1]."""
    model = ts.CLSAttention(len(rows), 2, dtype=torch.float64)
    model.E.data.copy_(torch.tensor(rows, dtype=torch.float64))
    model.p.data.copy_(torch.tensor([1.0, 0.0], dtype=torch.float64))
    model.v.data.copy_(torch.tensor([0.0, 1.0], dtype=torch.float64))
    return model


def test_a_token_seen_once_with_the_top_score_sets_the_scale_and_an_unseen_last_id_is_fine():
    # token 0 occurs once, with a score 800 above every other: exp of the others underflows, never exp(800);
    # token 4, the last id, never occurs (no mask), so the table of seen tokens must still cover all V = 5 ids
    model = _hand_model([(800.0, 1.0), (0.0, 0.5), (0.0, -0.5), (1.0, 0.0), (2000.0, 3.0)])
    X = torch.tensor([[0, 1, 2], [1, 2, 3], [3, 3, 1]])
    y = torch.tensor([1, 0, 1])
    assert_same_step(model, X, y, 0.5)
    assert all(torch.isfinite(getattr(model, name)).all() for name in ("E", "p", "v"))


def test_rows_recomputed_with_their_own_maximum_keep_their_padding_out_and_add_to_the_others():
    # tokens 4 and 5 score 999.5 and 1000; tokens 0 to 3 score 0, so rows 1 and 2 hold only tokens whose exp
    # underflows against 1000 and are recomputed alone. Row 1 is padded (its padding would take token 0's score 0,
    # as high as its real tokens); tokens 1 and 2 tie in score with other values, so their score gradients are
    # not zero; row 0 and row 3 keep tokens 4 and 5, whose gradients come from the exp table
    model = _hand_model([(0.0, 0.75), (0.0, 1.0), (0.0, -1.0), (0.0, 0.25), (999.5, 0.3), (1000.0, -0.2)])
    X = torch.tensor([[5, 4, 3], [1, 2, 0], [1, 2, 2], [4, 5, 3]])
    mask = torch.tensor([[True, True, True], [True, True, False], [True, True, True], [True, True, True]])
    y = torch.tensor([1, 0, 1, 1])
    stepper = FullBatchGD(copy.deepcopy(model), X, y, mask)
    scores = stepper.model.token_scores().detach()
    assert (scores[X[1:3]].amax(1) < scores.max() - 800).all()  # rows 1 and 2 take the recomputation
    assert_same_step(model, X, y, 0.5, mask)


def test_only_the_rows_that_need_their_own_maximum_are_recomputed(monkeypatch):
    recomputed = []
    original = FullBatchGD._stable_logits

    def spy(self, scores, values, rows):
        recomputed.append(rows.tolist())
        return original(self, scores, values, rows)

    monkeypatch.setattr(FullBatchGD, "_stable_logits", spy)
    model, X, y, mask = small_case()
    full_batch_gd_step_(model, X, y, 0.5, mask)
    assert recomputed == []  # ordinary scores: every row from the one exp table
    model = _hand_model([(0.0, 0.75), (0.0, 1.0), (0.0, -1.0), (0.0, 0.25), (999.5, 0.3), (1000.0, -0.2)])
    X = torch.tensor([[5, 4, 3], [1, 2, 0], [1, 2, 2], [4, 5, 3]])
    full_batch_gd_step_(model, X, torch.tensor([1, 0, 1, 1]), 0.5)
    assert recomputed == [[1, 2]]  # the two rows without token 4 or 5
