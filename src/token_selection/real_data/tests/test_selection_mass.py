"""Attention mass on important tokens: the baseline, a model that selects, reviews left out, the record's layout."""

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from token_selection.real_data import diagnoses as dg
from token_selection.real_data import selection_mass as sm
from token_selection.real_data.encoding import PAD_ID, UNK_ID, EncodedSplit, build_tokenizer, encode_texts, vocabulary
from token_selection.real_data.measurements import token_importance
from token_selection.real_data.pipeline import _checkpoint
from token_selection.real_data.reviews import make_toy_reviews
from token_selection.real_data.settings import real_data_settings


def toy_split(n: int = 60, positives: int = 45, seed: int = 0) -> tuple[EncodedSplit, list[str]]:
    """Toy reviews of uneven lengths (the shorter ones padded), labels unbalanced (``positives`` of n are 1)."""
    texts, _ = make_toy_reviews(n, length=10, seed=seed)
    rng = np.random.default_rng(seed)
    texts = [" ".join(t.split()[: int(rng.integers(4, 11))]) for t in texts]
    tokenizer = build_tokenizer(texts, min_count=1)
    X, mask = encode_texts(tokenizer, texts, T=10)
    y = torch.from_numpy((rng.permutation(n) < positives).astype(np.int64))
    return EncodedSplit(X, mask, y, "toy"), vocabulary(tokenizer)


def test_the_toy_split_has_padding_and_unbalanced_labels():
    split, _ = toy_split()
    assert bool((~split.mask).any()) and int(split.y.sum()) == 45


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_uniform_attention_gives_lift_one_and_the_uniform_share(seed):
    split, vocab = toy_split(seed=seed)
    omega, _ = token_importance(split, len(vocab), min_count=1)
    important = sm.important_tokens(omega, 0.2)
    constant = torch.full((len(vocab),), 3.7, dtype=torch.float64)  # equal scores: attention uniform over real positions
    shares = sm.review_shares(constant, split, important, omega)
    assert torch.allclose(shares.share, shares.uniform, rtol=0, atol=1e-12)
    assert torch.allclose(shares.top_share, shares.top_uniform, rtol=0, atol=1e-12)
    summary = sm.summarise(shares)
    assert summary["lift"] == pytest.approx(1.0, abs=1e-12) and summary["top_lift"] == pytest.approx(1.0, abs=1e-12)
    assert summary["median_ratio"] == pytest.approx(1.0, abs=1e-12)
    # the uniform share is the share of a review's real positions that hold an important token, written out
    counted = shares.counted
    by_hand = [float(important[x[m]].double().mean()) for x, m in zip(split.X[counted], split.mask[counted], strict=True)]
    assert torch.allclose(shares.uniform[counted], torch.tensor(by_hand, dtype=torch.float64), atol=1e-12)


def test_a_model_whose_p_points_at_an_important_embedding_puts_nearly_all_attention_there():
    split, vocab = toy_split()
    V, d = len(vocab), 16
    omega, _ = token_importance(split, V, min_count=1)
    important = sm.important_tokens(omega, 0.2)
    target = int(torch.argmax(torch.nan_to_num(omega.abs(), nan=-1.0)))
    E = torch.randn(V, d, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    E = E / E.norm(dim=1, keepdim=True)
    p = 60.0 * E[target]  # scores E_s . p: 60 on the target, at most 60 cos(angle) < 60 elsewhere
    shares = sm.review_shares(E @ p, split, important, omega)
    holds = (split.X == target).any(1)
    assert bool(important[target]) and int(holds.sum()) >= 3
    assert float(shares.share[holds].min()) > 0.95  # every review holding the target word attends to it
    assert float(shares.top_share[holds].min()) > 0.95  # the target is each such review's top word
    assert float(shares.share[holds].mean()) > float(shares.uniform[holds].mean()) + 0.5
    assert sm.summarise(shares)["lift"] > 1.5


def test_reviews_without_an_important_token_are_left_out_and_counted():
    omega = torch.tensor([float("nan"), float("nan"), 0.9, -0.8, 0.1, 0.0, float("nan"), 0.05], dtype=torch.float64)
    important = sm.important_tokens(omega, 0.4)  # 5 measured tokens: the top 2 by |omega| (2 and 3)
    assert important.tolist() == [False, False, True, True, False, False, False, False]
    X = torch.tensor([[2, 4, 5, PAD_ID], [4, 5, 6, PAD_ID], [6, UNK_ID, PAD_ID, PAD_ID], [3, 3, 7, 4]])
    mask = X != PAD_ID
    split = EncodedSplit(X, mask, torch.tensor([1, 1, 0, 1]), "toy")
    scores = torch.tensor([0.0, 0.0, 1.0, 2.0, 0.0, -1.0, 5.0, 0.0], dtype=torch.float64)
    shares = sm.review_shares(scores, split, important, omega, chunk=3)  # two blocks
    assert shares.counted.tolist() == [True, False, False, True]
    assert shares.top_counted.tolist() == [True, True, False, True]  # review 2 holds no measured word
    summary = sm.summarise(shares)
    assert (summary["reviews"], summary["counted"], summary["left_out"], summary["top_counted"]) == (4, 2, 2, 3)
    first = np.exp([1.0, 0.0, -1.0]) / np.exp([1.0, 0.0, -1.0]).sum()
    last = np.exp([2.0, 2.0, 0.0, 0.0]) / np.exp([2.0, 2.0, 0.0, 0.0]).sum()
    assert summary["share"] == pytest.approx((first[0] + last[:2].sum()) / 2, abs=1e-12)
    assert summary["uniform"] == pytest.approx((1 / 3 + 2 / 4) / 2, abs=1e-12)
    ratios = sorted([first[0] / (1 / 3), last[:2].sum() / (2 / 4)])
    assert summary["median_ratio"] == pytest.approx(ratios[0], abs=1e-12)  # torch's median of two: the lower
    assert summary["above_uniform"] == 1.0
    # review 1's top word is 4 (|omega| 0.1 beats 0.0; 6 is not measured)
    assert float(shares.top_uniform[1]) == pytest.approx(1 / 3) and float(shares.top_share[3]) == pytest.approx(last[:2].sum())


def test_ties_at_the_threshold_are_kept():
    omega = torch.tensor([float("nan"), 0.5, -0.5, 0.2, 0.1], dtype=torch.float64)
    assert sm.important_tokens(omega, 0.25).tolist() == [False, True, True, False, False]
    assert int(sm.important_tokens(omega, 1.0).sum()) == 4


def test_bad_arguments_are_named():
    split, vocab = toy_split()
    V = len(vocab)
    omega, _ = token_importance(split, V, min_count=1)
    important = sm.important_tokens(omega)
    scores = torch.zeros(V, dtype=torch.float64)
    with pytest.raises(ValueError, match="top_fraction"):
        sm.important_tokens(omega, 0.0)
    with pytest.raises(ValueError, match="omega"):
        sm.important_tokens(torch.full((V,), float("nan")))
    with pytest.raises(ValueError, match="scores, important and omega"):
        sm.review_shares(scores[:-1], split, important, omega)
    with pytest.raises(ValueError, match="important must be a bool"):
        sm.review_shares(scores, split, important.double(), omega)
    with pytest.raises(ValueError, match="token ids"):
        sm.review_shares(scores[:5], split, important[:5], omega[:5])
    with pytest.raises(ValueError, match="chunk"):
        sm.review_shares(scores, split, important, omega, chunk=0)
    with pytest.raises(ValueError, match="not measured"):
        sm.review_shares(scores, split, torch.ones(V, dtype=torch.bool), omega)
    empty = EncodedSplit(split.X[:0], split.mask[:0], split.y[:0], "none")
    with pytest.raises(ValueError, match="no review"):
        sm.review_shares(scores, empty, important, omega)
    nothing = sm.review_shares(scores, split, torch.zeros(V, dtype=torch.bool), omega)
    with pytest.raises(ValueError, match="important token"):
        sm.summarise(nothing)
    with pytest.raises(ValueError, match="scale"):
        sm.selection_mass_settings("medium")
    with pytest.raises(ValueError, match="dataset"):
        sm.page_numbers({"datasets": ["imdb"]}, "yelp_polarity")


def test_settings_at_both_scales_take_the_preset_seeds_at_least_three_and_are_registered():
    fast, full = sm.selection_mass_settings("fast"), sm.selection_mass_settings("full")
    assert fast != full and fast["seeds"][0] == 0 and len(fast["seeds"]) >= sm.MIN_SEEDS
    assert len(full["seeds"]) >= len(fast["seeds"]) and full["arms"] == ["joint", "one_step_frozen", "frozen_random"]
    assert fast["importance_min_count"] == real_data_settings("fast", "imdb").importance_min_count
    diagnosis = dg.DIAGNOSES[sm.RECORD]
    assert diagnosis.runner is sm.run_selection_mass and "Grids" in diagnosis.protocol(fast)


def run_toy(monkeypatch) -> tuple[dict, list, list, EncodedSplit, list[str]]:
    """The runner on toy reviews, with stand-ins for the pipeline: joint attends to large |omega|, one step attends
    uniformly, frozen avoids large |omega|; returns (metrics, data loads, runs, split, vocabulary)."""
    split, vocab = toy_split()
    data = SimpleNamespace(train=split, test=split, vocab=vocab, vocab_size=len(vocab))
    loaded, runs = [], []
    monkeypatch.setattr(sm, "load_data", lambda s, *, progress: loaded.append((s.dataset, s.seed)) or data)
    omega, _ = token_importance(split, len(vocab), min_count=1)
    magnitude = torch.nan_to_num(omega.abs())

    def run(kind, mode, s, *, data, progress):
        runs.append((kind, mode, s.dataset, s.seed, s.d, s.n_boot))
        scores = {"joint": (4.0 + s.seed) * magnitude, "one_step_frozen": torch.zeros(len(vocab))}.get(mode, -4.0 * magnitude)
        return SimpleNamespace(model=SimpleNamespace(token_scores=lambda: scores), test_accuracy=0.5 + s.seed / 10)

    monkeypatch.setattr(sm, "run_experiment", run)
    settings = {**sm.selection_mass_settings("fast"), "datasets": ["imdb"], "seeds": [0, 1], "importance_min_count": 1}
    return sm.run_selection_mass(settings), loaded, runs, split, vocab


def test_the_runner_uses_the_pipeline_s_model_of_each_arm_and_seed(monkeypatch):
    metrics, loaded, runs, split, vocab = run_toy(monkeypatch)
    assert loaded == [("imdb", 0), ("imdb", 1)]
    d = real_data_settings("fast").d
    assert runs == [("one_layer", arm, "imdb", seed, d, sm.RUN_BOOT) for seed in (0, 1) for arm in sm.ARMS]
    arms = metrics["imdb"]["arms"]
    lift = {arm: arms[arm]["seed_summary"]["lift"]["value"] for arm in sm.ARMS}
    assert lift["joint"] > 1.2 and lift["one_step_frozen"] == pytest.approx(1.0) and lift["frozen_random"] < 0.8
    joint = arms["joint"]["seed_summary"]["share"]
    assert joint["n"] == 2 and joint["low"] < joint["value"] < joint["high"] <= 1.0  # seeds differ: a real interval
    assert arms["joint"]["per_seed"]["test_accuracy"] == [0.5, 0.6]
    page = sm.page_numbers(metrics, "imdb")
    assert page["left_out"] + page["counted"] == page["reviews"] == len(split)
    assert page["uniform"]["value"] == pytest.approx(arms["one_step_frozen"]["seed_summary"]["share"]["value"])
    words = metrics["imdb"]["important_words"]
    assert words and all(abs(a["omega"]) >= abs(b["omega"]) for a, b in zip(words, words[1:], strict=False))


def test_the_runs_fewer_resamples_load_the_arm_record_s_checkpoint():
    data = SimpleNamespace(name="imdb", config={"T": 8})
    for scale in ("fast", "full"):
        preset = real_data_settings(scale, "imdb")
        for arm in sm.ARMS:
            assert _checkpoint(sm.KIND, arm, replace(preset, n_boot=sm.RUN_BOOT), data) == _checkpoint(sm.KIND, arm, preset, data)


def test_the_figure_draws_each_arm_s_mean_share_and_the_uniform_line(monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from token_selection.real_data.figures import plot_selection_mass

    metrics = run_toy(monkeypatch)[0]
    fig = plot_selection_mass(metrics, title="toy")
    (ax,) = fig.axes
    heights = [patch.get_height() for patch in ax.patches if patch.get_width() == pytest.approx(0.6)]
    expected = [metrics["imdb"]["arms"][arm]["seed_summary"]["share"]["value"] for arm in sm.ARMS]
    assert heights == pytest.approx(expected)
    uniform = metrics["imdb"]["seed_summary"]["uniform"]["value"]
    assert any(list(line.get_ydata()) == pytest.approx([uniform, uniform]) for line in ax.get_lines())
    assert ax.get_ylim()[1] > max(heights)
    plt.close(fig)


def test_the_table_has_one_row_per_arm_in_the_record_s_order_in_percent_and_ratios(monkeypatch):
    metrics = run_toy(monkeypatch)[0]
    metrics["imdb"]["arms"] = dict(sorted(metrics["imdb"]["arms"].items()))  # a record's keys come back sorted
    frame = sm.selection_frame(metrics, "imdb")
    assert list(frame.index) == [sm.ROW_LABELS[arm] for arm in sm.ARMS]
    share = metrics["imdb"]["arms"]["joint"]["seed_summary"]["share"]
    assert frame.loc["joint", "share on important words (%)"] == (
        f"{100 * share['value']:.1f} [{100 * share['low']:.1f}, {100 * share['high']:.1f}]"
    )
    assert frame.loc["one step, then E frozen", "lift"] == "1.00 [1.00, 1.00]"
    one_seed = {**metrics, "imdb": {**metrics["imdb"], "arms": {
        arm: {"seed_summary": {k: {**v, "n": 1} for k, v in found["seed_summary"].items()}}
        for arm, found in metrics["imdb"]["arms"].items()
    }}}  # fmt: skip
    assert "[" not in sm.selection_frame(one_seed, "imdb").loc["joint", "lift"]
