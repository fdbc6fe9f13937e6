"""Every field of a one_step_direct record, recomputed independently on a small padded split with uneven labels,
three dimensions and two seeds that are not 0 and 1; and the tables a chapter builds from it."""

import math

import numpy as np
import pytest
import torch
from scipy import stats

from token_selection.intervals import seed_interval
from token_selection.real_data import one_step_direct as osd
from token_selection.real_data.trainer import one_step_size
from token_selection.theory.one_step import predicted_correlation

from .test_one_step_direct import padded_split

V, D_GRID, SEEDS, FACTOR = 12, [8, 16, 40], [5, 2], 3.0


@pytest.fixture(scope="module")
def measured():
    split = padded_split(seed=4, n=60, T=9, V=V, positives=41)
    vocab = [f"w{i}" for i in range(V)]
    found = osd.measure_dataset(split, vocab, d_grid=D_GRID, seeds=SEEDS, step_factor=FACTOR, min_count=2, scatter_tokens=4)
    return split, vocab, osd.token_statistics(split, V, 2), found


def test_the_datas_numbers(measured):
    split, vocab, st, found = measured
    keep = st.measured
    alpha, omega = st.alpha[keep].numpy(), st.omega[keep].numpy()
    counts = st.counts[keep].double().numpy()
    share = counts / float(st.counts.sum())
    assert found["vocab_size"] == V and found["n_train"] == 60 and found["tokens_measured"] == int(keep.sum()) >= 5
    assert found["alpha_std_all"] == pytest.approx(float(np.std(st.alpha.numpy())))
    assert found["alpha_std_measured"] == pytest.approx(float(np.std(alpha)))
    assert found["alpha_omega_pearson"] == pytest.approx(stats.pearsonr(alpha, omega).statistic)
    assert found["alpha_omega_spearman"] == pytest.approx(stats.spearmanr(alpha, omega).statistic)
    assert found["alpha_omega_share_pearson"] == pytest.approx(stats.pearsonr(alpha, omega * share).statistic)
    assert found["count_abs_alpha_spearman"] == pytest.approx(stats.spearmanr(np.abs(alpha), counts).statistic)
    assert found["count_abs_omega_spearman"] == pytest.approx(stats.spearmanr(np.abs(omega), counts).statistic)
    assert [w["word"] for w in found["top_alpha"]] == [w["word"] for w in osd.top_words(vocab, st, "alpha")]
    assert [w["word"] for w in found["top_omega"]] == [w["word"] for w in osd.top_words(vocab, st, "omega")]


def test_each_dimension_and_seed(measured):
    split, vocab, st, found = measured
    alpha_measured = st.alpha[st.measured]
    assert [row["d"] for row in found["by_d"]] == D_GRID
    for row in found["by_d"]:
        d = row["d"]
        eta_star, eta = one_step_size(split, V, d, FACTOR)
        assert (row["eta_star"], row["eta"]) == pytest.approx((eta_star, FACTOR * eta_star))
        assert row["tau"] == pytest.approx(FACTOR) and row["predicted"] == pytest.approx(float(predicted_correlation(FACTOR)))
        assert row["predicted_omega"] == pytest.approx(found["alpha_omega_pearson"] * row["predicted"])
        for k, seed in enumerate(SEEDS):
            step = osd.step_values(split, V, d, seed, eta)
            expected = osd.correlations(step.after, st)
            for name in osd.CORRELATIONS:
                assert row["per_seed"][name][k] == pytest.approx(expected[name]), (d, seed, name)
            tau = (eta / 2) * math.sqrt(step.v_norm_sq * d) * float(np.std(alpha_measured.numpy()))
            moved = (step.after - step.before)[st.measured]
            error = float((step.after - step.exact)[st.measured].abs().max() / moved.std())
            assert row["per_seed"]["v_norm_sq"][k] == pytest.approx(step.v_norm_sq)
            assert row["per_seed"]["tau_draw"][k] == pytest.approx(tau)
            assert row["per_seed"]["predicted_draw"][k] == pytest.approx(float(predicted_correlation(tau)))
            law = found["alpha_omega_pearson"] * float(predicted_correlation(tau))
            assert row["per_seed"]["predicted_omega_draw"][k] == pytest.approx(law)
            assert row["per_seed"]["formula_error"][k] == pytest.approx(error, abs=1e-15) and error < 1e-9
        assert set(row["seed_summary"]) == set(osd.SEEDED)
        for name, values in row["per_seed"].items():
            assert len(values) == 2 and row["seed_summary"][name] == seed_interval(values)


def test_the_scatter_keeps_the_first_seed_at_the_smallest_and_largest_dimension(measured):
    split, vocab, st, found = measured
    scatter = found["scatter"]
    extremes = [vocab.index(w["word"]) for w in found["top_alpha"] + found["top_omega"]]
    sample = osd.scatter_sample(st, 4, extremes)
    assert scatter["seed"] == 5 and set(scatter["values"]) == set(scatter["slope"]) == {"8", "40"}
    assert scatter["alpha"] == osd._rounded(st.alpha[sample]) and scatter["omega"] == osd._rounded(st.omega[sample])
    assert scatter["count"] == st.counts[sample].tolist()
    for d in (8, 40):
        eta = FACTOR * one_step_size(split, V, d, FACTOR)[0]
        step = osd.step_values(split, V, d, 5, eta)
        assert scatter["values"][str(d)] == osd._rounded(step.after[sample])
        assert scatter["slope"][str(d)] == pytest.approx(eta / 2 * step.v_norm_sq)


def test_rounding_keeps_four_significant_digits_as_floats():
    rounded = osd._rounded(torch.tensor([123456.0, 0.000123456, -2.0 / 3.0], dtype=torch.float32))
    assert rounded == [123500.0, 0.0001235, -0.6667] and all(type(x) is float for x in rounded)


@pytest.mark.parametrize("measured_tokens", [2, 3])
def test_correlations_need_three_measured_tokens(measured_tokens):
    keep = torch.zeros(6, dtype=torch.bool)
    keep[:measured_tokens] = True
    st = osd.TokenStatistics(torch.arange(6.0).double(), torch.arange(6.0).double() ** 2, torch.ones(6), keep)
    values = torch.tensor([3.0, 1.0, 2.0, 0.0, 0.0, 0.0])
    if measured_tokens < 3:
        with pytest.raises(ValueError, match="need at least 3 measured tokens to correlate, got 2"):
            osd.correlations(values, st)
    else:
        found = osd.correlations(values, st)
        assert found["spearman_alpha"] == pytest.approx(-0.5) and found["pearson_omega"] == pytest.approx(
            stats.pearsonr([3.0, 1.0, 2.0], [0.0, 1.0, 4.0]).statistic
        )


def test_the_tables_a_chapter_builds(measured):
    split, vocab, st, found = measured
    metrics = {"datasets": ["toy"], "toy": found}
    frame = osd.correlations_frame(metrics, "toy")
    assert list(frame.index) == ["d = 8", "d = 16", "d = 40"]
    assert list(frame.columns) == ["Pearson with α", "Spearman with α", "Pearson with ω", "Spearman with ω", "law at τ",
                                   "law, this data"]  # fmt: skip
    row = found["by_d"][1]
    assert frame.loc["d = 16", "Spearman with ω"] == round(row["seed_summary"]["spearman_omega"]["value"], 3)
    assert frame.loc["d = 16", "law at τ"] == round(row["predicted"], 3)
    assert frame.loc["d = 40", "law, this data"] == round(found["by_d"][2]["seed_summary"]["predicted_draw"]["value"], 3)
    numbers = osd.page_numbers(metrics, "toy")
    assert numbers["d"] == 40 and numbers["by_d"][16]["pearson_alpha"] == row["seed_summary"]["pearson_alpha"]["value"]
    assert numbers["law_omega"] == found["by_d"][2]["seed_summary"]["predicted_omega_draw"]["value"]
