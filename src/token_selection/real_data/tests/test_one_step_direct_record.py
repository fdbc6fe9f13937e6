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


@pytest.fixture
def measured():
    """Function-scoped: mutation testing runs only the tests that call the code, and a module-scoped fixture would be
    attributed to its first test alone."""
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


def test_the_runner_measures_each_dataset_of_the_settings_with_their_grid(monkeypatch):
    loads, measured_with = [], []
    split = padded_split(seed=4, n=60, T=9, V=V, positives=41)
    vocab = [f"w{i}" for i in range(V)]

    def load(settings, *, progress):
        loads.append((settings.dataset, settings.scale, progress))
        return type("Data", (), {"train": split, "vocab": vocab})()

    def measure(train, words, **kwargs):
        measured_with.append(kwargs)
        return {"seen": len(words)}

    monkeypatch.setattr(osd, "load_data", load)
    monkeypatch.setattr(osd, "measure_dataset", measure)
    settings = {**osd.one_step_direct_settings("full"), "d_grid": [8, 40], "seeds": [3, 1], "scatter_tokens": 7}
    found = osd.run_one_step_direct(settings, progress=True)
    assert loads == [("imdb", "full", True), ("yelp_polarity", "full", True)]
    assert found["datasets"] == ["imdb", "yelp_polarity"] and found["imdb"] == {"seen": V}
    assert found["step_factor"] == settings["step_factor"]
    assert found["predicted"] == pytest.approx(float(predicted_correlation(settings["step_factor"])))
    expected = {"d_grid": [8, 40], "seeds": [3, 1], "step_factor": settings["step_factor"],
                "min_count": settings["importance_min_count"], "scatter_tokens": 7, "progress": True}  # fmt: skip
    assert measured_with == [expected, expected]


@pytest.mark.parametrize("scale", ["fast", "full"])
def test_the_settings_hold_both_presets_the_grid_the_seeds_and_the_step(scale):
    from token_selection.real_data.settings import real_data_settings

    settings = osd.one_step_direct_settings(scale)
    assert settings["diagnosis"] == "one_step_direct" and settings["scale"] == scale
    assert settings["datasets"] == ["imdb", "yelp_polarity"] and settings["d_grid"] == [64, 256, 2048]
    assert settings["seeds"] == list(range(osd.SEEDS[scale])) and settings["scatter_tokens"] == osd.SCATTER_TOKENS
    for dataset in ("imdb", "yelp_polarity"):
        assert settings["presets"][dataset] == real_data_settings(scale, dataset).as_dict()
    assert settings["step_factor"] == real_data_settings(scale).step_factor
    assert settings["importance_min_count"] == real_data_settings(scale).importance_min_count


@pytest.mark.parametrize("changed", ["step_factor", "importance_min_count"])
def test_presets_that_disagree_on_the_step_or_the_minimum_count_are_refused(monkeypatch, changed):
    from token_selection.real_data import settings as rs

    original = rs.real_data_settings

    def disagreeing(scale, dataset="imdb", **overrides):
        found = original(scale, dataset, **overrides)
        return found if dataset == "imdb" else rs.replace(found, **{changed: getattr(found, changed) + 1})

    monkeypatch.setattr(osd, "real_data_settings", disagreeing)
    with pytest.raises(ValueError, match=r"the presets disagree on step_factor \{.*\} or importance_min_count"):
        osd.one_step_direct_settings("fast")


def test_page_numbers_read_the_largest_dimension_and_name_an_unknown_dataset(measured):
    split, vocab, st, found = measured
    metrics = {"datasets": ["toy"], "toy": found}
    numbers = osd.page_numbers(metrics, "toy")
    row = found["by_d"][2]
    assert numbers["tau"] == row["tau"] and numbers["law_step"] == row["predicted"]
    assert numbers["law_draw"] == row["seed_summary"]["predicted_draw"]["value"]
    for name in osd.CORRELATIONS:
        assert numbers[name] == row["seed_summary"][name]
    assert numbers["alpha_omega_pearson"] == found["alpha_omega_pearson"]
    assert numbers["alpha_omega_spearman"] == found["alpha_omega_spearman"] and numbers["tokens"] == found["tokens_measured"]
    assert numbers["median_count_alpha"] == float(np.median([w["count"] for w in found["top_alpha"]]))
    assert numbers["median_count_omega"] == float(np.median([w["count"] for w in found["top_omega"]]))
    assert set(numbers["by_d"]) == {8, 16, 40}
    for bad in ({"datasets": ["imdb"]}, {}):
        with pytest.raises(ValueError, match=r"dataset must be one of the record's .*, got 'toy'"):
            osd.page_numbers(bad, "toy")


def test_the_top_words_table_shows_both_rankings_side_by_side(measured):
    split, vocab, st, found = measured
    found = {**found, "top_alpha": [{**found["top_alpha"][0], "word": "a\u200bb"}, *found["top_alpha"][1:]]}
    frame = osd.top_words_frame({"datasets": ["toy"], "toy": found}, "toy")
    assert list(frame.index) == list(range(1, len(found["top_alpha"]) + 1))
    assert list(frame.columns) == [(label, name) for label in ("largest |α|", "largest |ω|")
                                   for name in ("word", "count", "α × 1000", "ω")]  # fmt: skip
    first, last = found["top_alpha"][0], found["top_omega"][-1]
    assert frame.iloc[0][("largest |α|", "word")] == "a<ZERO WIDTH SPACE>b"
    assert frame.iloc[0][("largest |α|", "count")] == first["count"]
    assert frame.iloc[0][("largest |α|", "α × 1000")] == round(1000 * first["alpha"], 3)
    assert frame.iloc[0][("largest |α|", "ω")] == round(first["omega"], 2)
    assert frame.iloc[-1][("largest |ω|", "word")] == last["word"]
    assert frame.iloc[-1][("largest |ω|", "α × 1000")] == round(1000 * last["alpha"], 3)


def test_top_words_break_ties_by_count_and_stop_at_the_measured_tokens():
    alpha = torch.tensor([0.0, 0.0, 0.3, -0.3, 0.1, 0.9], dtype=torch.float64)
    omega = torch.tensor([float("nan"), float("nan"), 0.5, -0.5, 0.2, float("nan")], dtype=torch.float64)
    counts = torch.tensor([9, 9, 4, 7, 3, 50])
    st = osd.TokenStatistics(alpha, omega, counts, torch.isfinite(omega))
    vocab = ["<pad>", "<unk>", "good", "bad", "film", "unseen"]
    by_alpha = osd.top_words(vocab, st, "alpha", k=5)
    assert [w["word"] for w in by_alpha] == ["bad", "good", "film"], "a tie goes to the more frequent; 3 measured only"
    assert by_alpha[0] == {"word": "bad", "count": 7, "alpha": -0.3, "omega": -0.5}
    assert [w["word"] for w in osd.top_words(vocab, st, "omega", k=1)] == ["bad"]
    for bad, message in ((("alpha", 0), "k"), (("count", 2), "by must be 'alpha' or 'omega', got 'count'")):
        with pytest.raises(ValueError, match=message):
            osd.top_words(vocab, st, bad[0], k=bad[1])


def test_the_statistics_count_real_positions_only_and_refuse_a_bad_minimum():
    from token_selection.real_data.encoding import PAD_ID

    split = padded_split(seed=2, n=20, T=6, V=V, positives=13)
    st = osd.token_statistics(split, V, 1)
    signs = 2.0 * split.y.double() - 1.0
    lengths = split.mask.sum(1).double()
    by_hand = [float((signs * ((split.X == s) & split.mask).sum(1) / lengths).mean()) for s in range(V)]
    assert torch.allclose(st.alpha, torch.tensor(by_hand, dtype=torch.float64), atol=1e-12)
    assert st.alpha[PAD_ID] == 0.0 and not bool(st.measured[PAD_ID]), "<pad> fills the tail of short reviews only"
    with pytest.raises(ValueError, match="min_count"):
        osd.token_statistics(split, V, 0)


@pytest.mark.parametrize("eta", [0.0, -1.0, float("inf"), float("nan")])
def test_a_step_size_that_is_not_finite_and_positive_is_refused(eta):
    with pytest.raises(ValueError, match=r"eta \(the step size\) must be finite and > 0"):
        osd.step_values(padded_split(), V, 8, 0, eta)


def test_a_small_step_moves_the_values_by_its_closed_form():
    step = osd.step_values(padded_split(), V, 8, 0, 0.5)
    assert float((step.after - step.before).abs().max()) > 0 and torch.allclose(step.after, step.exact, atol=1e-12)


def test_the_scatter_sample_is_seeded_capped_and_keeps_the_extremes():
    split = padded_split(seed=4, n=60, T=9, V=V, positives=41)
    st = osd.token_statistics(split, V, 1)
    measured = int(st.measured.sum())
    first = osd.scatter_sample(st, 3, [0])
    assert torch.equal(first, osd.scatter_sample(st, 3, [0], seed=0)), "seed 0 by default"
    assert torch.equal(first, osd.scatter_sample(st, 3, [0])) and first.dtype == torch.int64
    assert 0 in first.tolist() and len(first) == 4
    others = {tuple(osd.scatter_sample(st, 3, [], seed=s).tolist()) for s in range(8)}
    assert len(others) > 1, "another seed draws other tokens"
    assert len(osd.scatter_sample(st, 10 * V, [])) == measured, "at most every measured token"
