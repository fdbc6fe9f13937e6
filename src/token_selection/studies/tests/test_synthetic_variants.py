import pytest
import torch

from token_selection.real_data.attention_variants import MultiClassCLSAttention
from token_selection.studies.synthetic_variants import (
    class_importance,
    make_multiclass_synthetic,
    make_shielding_data,
    train_full_batch,
)
from token_selection.theory.importance import posterior_gap, signed_frequency
from token_selection.theory.model import CLSAttention
from token_selection.theory.synthetic import make_synthetic


def test_shielding_data_hides_C_from_first_order_statistics():
    data = make_shielding_data(400, 6, 40, seed=0)
    alpha = signed_frequency(data.X, data.y, 40)
    gap = posterior_gap(data.X, data.y, 40)
    assert abs(float(alpha[data.C])) < 1e-12 and abs(float(gap[data.C])) < 1e-12
    assert float(alpha[data.A]) > 0 > float(alpha[data.N]) and float(gap[data.N]) == -1.0
    holds_N = (data.X == data.N).any(1)
    assert (data.y[holds_N] < 0).all() and ((data.X == data.C) & holds_N[:, None]).any(1).sum() == 100
    with pytest.raises(ValueError, match="multiple of 4"):
        make_shielding_data(10)
    with pytest.raises(ValueError, match="T must be at least 3"):
        make_shielding_data(8, T=2)


def test_multiclass_synthetic_and_importance():
    data = make_multiclass_synthetic(200, 6, 40, 4, n_relevant=3, seed=0)
    assert (data.relevant.sum(1) == 1).all()
    assert torch.equal(data.token_class[data.X[data.relevant]], data.y)
    importance = class_importance(data.X, data.y, 4, 40)
    seen = torch.isfinite(importance[:, 0])
    assert torch.allclose(importance[seen].sum(1), torch.zeros(int(seen.sum()), dtype=torch.float64), atol=1e-12)
    relevant = data.token_class >= 0
    assert torch.allclose(importance[relevant & seen, :].max(1).values, torch.tensor(0.75, dtype=torch.float64))
    with pytest.raises(ValueError, match="leaves no irrelevant token"):
        make_multiclass_synthetic(10, 4, 12, 4, n_relevant=3)


def test_train_full_batch_only_moves_the_named_parameters():
    data = make_synthetic(100, 6, 30, 0.0, seed=0)
    model = CLSAttention(30, 16, seed=0)
    E0, v0 = model.E.detach().clone(), model.v.detach().clone()
    losses = train_full_batch(model, data.X, data.y, steps=30, lr=0.05, parameters=("p",))
    assert losses[-1] < losses[0] and len(losses) == 31
    assert torch.equal(model.E, E0) and torch.equal(model.v, v0) and model.p.norm() > 0
    with pytest.raises(ValueError, match="parameters must name"):
        train_full_batch(model, data.X, data.y, steps=1, lr=0.1, parameters=("W",))
    with pytest.raises(ValueError, match="lr must be"):
        train_full_batch(model, data.X, data.y, steps=1, lr=0.0)


def test_multiclass_full_batch_training_reduces_the_loss():
    data = make_multiclass_synthetic(200, 6, 40, 4, n_relevant=3, seed=1)
    model = MultiClassCLSAttention(40, 16, 4, seed=0)
    losses = train_full_batch(model, data.X, data.y, steps=40, lr=0.05)
    assert losses[-1] < 0.5 * losses[0]


def test_multiclass_synthetic_layout_defaults_and_refusals():
    data = make_multiclass_synthetic(300, 5, 20, 3, n_relevant=2, zipf=0.0, seed=4)
    assert tuple(data.X.shape) == (300, 5) and data.token_class.tolist() == [0, 0, 1, 1, 2, 2] + [-1] * 14
    assert bool((data.X[~data.relevant] >= 6).all()) and bool((data.X[data.relevant] < 6).all())
    counts = torch.bincount(data.y, minlength=3)
    assert int(counts.min()) > 70, "labels uniform over the K classes"
    first = data.X[data.relevant][data.y == 0]
    assert abs(float((first == 0).double().mean()) - 0.5) < 0.1, "zipf 0: both class-0 tokens equally often"
    default = make_multiclass_synthetic(50, 4, 20, 3)
    assert torch.equal(default.X, make_multiclass_synthetic(50, 4, 20, 3, n_relevant=5, zipf=1.0, seed=0).X)
    assert default.token_class.tolist()[:16] == [0] * 5 + [1] * 5 + [2] * 5 + [-1]
    assert make_multiclass_synthetic(10, 4, 7, 2, n_relevant=3).token_class.tolist()[-1] == -1, "K m = V - 1 is allowed"
    with pytest.raises(ValueError, match="num_classes \\* n_relevant = 6 leaves no irrelevant token in vocab_size = 6"):
        make_multiclass_synthetic(10, 4, 6, 2, n_relevant=3)
    with pytest.raises(ValueError, match="num_classes"):
        make_multiclass_synthetic(10, 4, 20, 1)
    with pytest.raises(ValueError, match="n_relevant"):
        make_multiclass_synthetic(10, 4, 20, 2, n_relevant=0)


def test_train_full_batch_losses_start_from_the_models_loss_and_zero_steps_change_nothing():
    from token_selection.theory.model import logistic_loss

    data = make_synthetic(60, 5, 20, 0.0, seed=2)
    model = CLSAttention(20, 8, seed=1, dtype=torch.float64)
    start = float(logistic_loss(model(data.X), data.y.double()).detach())
    before = {name: p.detach().clone() for name, p in model.named_parameters()}
    assert train_full_batch(model, data.X, data.y, steps=0, lr=0.1) == [pytest.approx(start, abs=1e-12)]
    assert all(torch.equal(p, before[name]) for name, p in model.named_parameters())
    losses = train_full_batch(model, data.X, (data.y + 1) // 2, steps=3, lr=0.05)
    assert losses[0] == pytest.approx(start, abs=1e-12), "labels in {0, 1} are the same labels"
    assert len(losses) == 4 and all(p.grad is None for p in model.parameters()), "no gradient left behind"
    for lr in (-0.1, float("inf"), float("nan")):
        with pytest.raises(ValueError, match=f"lr must be a finite number > 0, got {lr}"):
            train_full_batch(model, data.X, data.y, steps=1, lr=lr)
    with pytest.raises(ValueError, match="parameters must name some of \\['E', 'p', 'v'\\], got \\[\\]"):
        train_full_batch(model, data.X, data.y, steps=1, lr=0.1, parameters=())
    with pytest.raises(ValueError, match="steps"):
        train_full_batch(model, data.X, data.y, steps=-1, lr=0.1)


def test_train_full_batch_respects_the_padding_mask():
    data = make_synthetic(40, 6, 20, 0.0, seed=3)
    mask = torch.ones(40, 6, dtype=torch.bool)
    mask[:, 4:] = False
    padded = data.X.clone()
    padded[:, 4:] = 19
    runs = []
    for X in (data.X, padded):
        model = CLSAttention(20, 8, seed=0, dtype=torch.float64)
        runs.append(train_full_batch(model, X, data.y, steps=5, lr=0.05, mask=mask))
    assert runs[0] == pytest.approx(runs[1], abs=1e-12), "what sits under the mask does not count"
    plain = train_full_batch(CLSAttention(20, 8, seed=0, dtype=torch.float64), padded, data.y, steps=5, lr=0.05)
    assert plain != pytest.approx(runs[1], abs=1e-9)


def test_shielding_data_groups_defaults_and_refusals():
    data = make_shielding_data(8 * 4, 4, 6, seed=1)
    X, y = data.X, data.y
    assert int((y == 1).sum()) == 16 and int(X.max()) <= 5
    holds = {token: (X == token).any(1) for token in (0, 1, 2, 3)}
    assert int(holds[0].sum()) == 8 and int(holds[3].sum()) == 8 and int(holds[2].sum()) == 8 and int(holds[1].sum()) == 16
    assert (
        bool((y[holds[0]] == 1).all())
        and bool((y[holds[3]] == -1).all())
        and bool((holds[1] == (holds[2] | (y == 1) & ~holds[0])).all())
    )
    assert torch.equal(make_shielding_data().X, make_shielding_data(400, 6, 40, seed=0).X)
    with pytest.raises(ValueError, match="vocab_size must be at least 6 \\(4 marked tokens and irrelevant ones\\), got 5"):
        make_shielding_data(8, 4, 5)
    with pytest.raises(ValueError, match="n must be a multiple of 4 \\(four equal groups\\), got 10"):
        make_shielding_data(10)
    with pytest.raises(ValueError, match="got 2"):
        make_shielding_data(8, T=2)
    assert make_shielding_data(8, T=3).X.shape == (8, 3)


def test_multiclass_synthetic_draws_zipf_tokens_at_every_position():
    data = make_multiclass_synthetic(600, 5, 30, 3, n_relevant=4, zipf=1.0, seed=2)
    positions = data.relevant.int().argmax(dim=1)
    assert set(positions.tolist()) == set(range(5)), "the relevant token sits at any position, the first included"
    irrelevant = torch.bincount(data.X[~data.relevant] - 12, minlength=18)
    assert int(irrelevant[0]) > 3 * int(irrelevant[-1]), "Zipf within the irrelevant tokens: rank 1 ~ 18 x rank 18"
    relevant = data.X[data.relevant] - 4 * data.y  # the token's rank within its class
    counts = torch.bincount(relevant, minlength=4)
    assert int(counts[0]) > 2 * int(counts[3]), "Zipf within each class's relevant tokens: rank 1 ~ 4 x rank 4"
    assert data.token_class.dtype == torch.int64 and data.X.dtype == torch.int64


def test_size_checks_name_the_argument_they_refuse():
    with pytest.raises(ValueError, match=r"^n must be an integer >= 1, got 0$"):
        make_multiclass_synthetic(0, 4, 20, 2)
    with pytest.raises(ValueError, match=r"^num_classes must be an integer >= 2, got 1$"):
        make_multiclass_synthetic(10, 4, 20, 1)
    with pytest.raises(ValueError, match=r"^T must be an integer >= 1, got 0$"):
        make_multiclass_synthetic(10, 0, 20, 2)
    with pytest.raises(ValueError, match=r"^n_relevant must be an integer >= 1, got 0$"):
        make_multiclass_synthetic(10, 4, 20, 2, n_relevant=0)
    with pytest.raises(ValueError, match=r"^n must be an integer >= 1, got 0$"):
        make_shielding_data(0)
    with pytest.raises(ValueError, match=r"^T must be an integer >= 1, got 0$"):
        make_shielding_data(8, T=0)
    with pytest.raises(ValueError, match=r"^vocab_size must be an integer >= 1, got 0$"):
        make_shielding_data(8, 4, 0)
    data = make_synthetic(20, 4, 10, 0.0, seed=0)
    with pytest.raises(ValueError, match=r"^steps must be an integer >= 0, got -1$"):
        train_full_batch(CLSAttention(10, 4, seed=0), data.X, data.y, steps=-1, lr=0.1)


def test_shielding_data_draws_every_irrelevant_token():
    X = make_shielding_data(40, 5, 6, seed=2).X
    assert set(X.flatten().tolist()) == {0, 1, 2, 3, 4, 5}, "ids 4 and 5 are both irrelevant fillers"


def test_train_full_batch_computes_the_loss_in_the_models_dtype():
    data = make_synthetic(30, 5, 12, 0.0, seed=4)
    model = CLSAttention(12, 8, seed=2, dtype=torch.float32)
    with torch.no_grad():
        model.p.copy_(torch.linspace(-1.0, 1.0, 8))
    from token_selection.theory.model import logistic_loss

    expected = float(logistic_loss(model(data.X), data.y.float()).detach())
    assert train_full_batch(model, data.X, data.y, steps=0, lr=0.1) == [expected], "float32 labels for a float32 model"


def test_multiclass_training_respects_the_padding_mask():
    data = make_multiclass_synthetic(40, 6, 20, 3, n_relevant=2, seed=5)
    mask = torch.ones(40, 6, dtype=torch.bool)
    mask[:, 4:] = False
    padded = torch.where(mask, data.X, torch.full_like(data.X, 19))
    runs = []
    for X in (data.X, padded):
        model = MultiClassCLSAttention(20, 8, 3, seed=0, dtype=torch.float64)
        runs.append(train_full_batch(model, X, data.y, steps=3, lr=0.05, mask=mask))
    assert runs[0] == pytest.approx(runs[1], abs=1e-12), "what sits under the mask does not count"
    plain = train_full_batch(MultiClassCLSAttention(20, 8, 3, seed=0, dtype=torch.float64), padded, data.y, steps=3, lr=0.05)
    assert plain != pytest.approx(runs[1], abs=1e-9)
