"""The abstract's one step on real reviews, measured right after the step: ``E_s . v`` against ``alpha_s`` and ``omega_s``.

At ``p = 0`` with ``v`` fixed at its random draw, one full-batch gradient step of size ``eta`` on ``E`` gives exactly
``E_s(1) . v = E_s(0) . v + (eta / 2) alpha^w_s |v|^2`` (``theory.one_step``), whatever the data. Nothing is retrained
after the step: this is the theorem's own protocol, where the one-step arm of the pipeline (``one_step_frozen``)
retrains ``p`` and ``v`` with Adam afterwards.

    metrics = run_one_step_direct(one_step_direct_settings("fast"))
    metrics["imdb"]["by_d"][-1]["seed_summary"]["pearson_alpha"]      # d = 2048, over init seeds

Per dataset, on the preset's training reviews (its seed-0 split; only the initialisation changes with the seed) and
over the tokens the chapters measure (seen at least ``importance_min_count`` times, ``<pad>`` and ``<unk>`` left out),
at each ``d`` of the grid with ``eta = step_factor * eta*(d)``: Pearson and Spearman correlations of ``E_s(1) . v`` with
the signed frequency ``alpha_s`` and with the posterior gap ``omega_s``, against chapter 3's law
``tau / sqrt(1 + tau^2)``. The law's ``tau = eta / eta*`` takes ``std_s(alpha_s)`` over all V tokens and ``|v| = 1``;
the correlation is taken over the measured tokens, whose ``alpha`` spread is another, and the draw's ``|v|^2`` is
``1 +- sqrt(2 / d)``. ``tau_draw`` puts those two in (the same law, this draw's quantities). ``corr(E.v, omega)`` is
``corr(alpha, omega)`` times ``corr(E.v, alpha)`` when the noise ``E_s(0) . v`` is independent of both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from scipy import stats

from ..intervals import seed_interval
from ..theory.importance import signed_frequency
from ..theory.model import CLSAttention
from ..theory.one_step import one_step_embeddings, one_step_sample_weights, predicted_correlation
from ..validation import check_positive_int
from .encoding import EncodedSplit
from .measurements import token_importance
from .pipeline import load_data
from .settings import real_data_settings
from .trainer import one_step_size

RECORD = "one_step_direct"
DATASETS = ("imdb", "yelp_polarity")
D_GRID = (64, 256, 2048)
"""Embedding dimensions: the fast preset's, one between, and the paper's (the full preset's), at both scales."""
SEEDS = {"fast": 3, "full": 5}
"""Initial draws (E, v) per dimension: 3 at the fast scale (the fewest that give an interval), 5 at the full one."""
SCATTER_TOKENS = 600
"""Tokens (a seeded sample of the measured ones) whose numbers the record keeps for the scatter plots."""
TOP_WORDS = 10
"""Words listed by the largest |alpha_s| and by the largest |omega_s|."""
CORRELATIONS = ("pearson_alpha", "spearman_alpha", "pearson_omega", "spearman_omega")
SEEDED = (*CORRELATIONS, "v_norm_sq", "tau_draw", "predicted_draw", "predicted_omega_draw", "formula_error")
"""Per-seed numbers of each dimension; each gets a seed interval."""


@dataclass(frozen=True)
class TokenStatistics:
    """What the data alone say about every token: alpha (V,) float64, the signed frequency; omega (V,) float64, the
    posterior gap (NaN where not measured); counts (V,) int64, occurrences in training; measured (V,) bool, the tokens
    the chapters measure (seen at least ``min_count`` times, not ``<pad>`` or ``<unk>``)."""

    alpha: torch.Tensor
    omega: torch.Tensor
    counts: torch.Tensor
    measured: torch.Tensor


def token_statistics(split: EncodedSplit, vocab_size: int, min_count: int) -> TokenStatistics:
    """``alpha``, ``omega``, counts and the measured tokens of ``split`` (X: (n, T), mask: (n, T), y: (n,) in {0, 1})."""
    min_count = check_positive_int(min_count, "min_count")
    omega, counts = token_importance(split, vocab_size, min_count=min_count)
    alpha = signed_frequency(split.X, split.y, vocab_size, split.mask)
    return TokenStatistics(alpha, omega, counts, torch.isfinite(omega))


@dataclass(frozen=True)
class StepValues:
    """``E_s . v`` before (V,) and right after (V,) the step, float64; ``exact`` (V,): the closed form
    ``before + (eta/2) alpha^w_s |v|^2`` with the exact sample weights; ``v_norm_sq``: ``|v|^2`` of the draw."""

    before: torch.Tensor
    after: torch.Tensor
    exact: torch.Tensor
    v_norm_sq: float


def step_values(split: EncodedSplit, vocab_size: int, d: int, seed: int, eta: float) -> StepValues:
    """One full-batch GD step of size ``eta`` on ``E`` alone (``p = 0``, ``v`` fixed), by autograd, in float64.

    The model is the one-layer model of ``seed`` (``CLSAttention``: the draw ``build_model("one_layer", ...)`` makes,
    in float64 instead of float32); split: X (n, T) ids, mask (n, T), y (n,) in {0, 1}.
    """
    d = check_positive_int(d, "d")
    if not (math.isfinite(eta) and eta > 0):
        raise ValueError(f"eta (the step size) must be finite and > 0, got {eta}")
    model = CLSAttention(vocab_size, d, seed=seed, dtype=torch.float64)
    v = model.v.detach()
    with torch.no_grad():
        before = model.E @ v
    after = one_step_embeddings(model, split.X, split.y, eta, split.mask) @ v
    weights = one_step_sample_weights(model, split.X, split.y, split.mask)
    alpha_w = signed_frequency(split.X, split.y, vocab_size, split.mask, sample_weights=weights)
    v_norm_sq = float(v @ v)
    return StepValues(before, after, before + (eta / 2) * alpha_w * v_norm_sq, v_norm_sq)


def correlations(values: torch.Tensor, statistics: TokenStatistics) -> dict[str, float]:
    """Pearson and Spearman correlations of ``values`` (V,) with ``alpha`` and ``omega`` over the measured tokens."""
    keep = statistics.measured
    if int(keep.sum()) < 3:
        raise ValueError(f"need at least 3 measured tokens to correlate, got {int(keep.sum())}")
    x = values[keep].double().numpy()
    result = {}
    for name, axis in (("alpha", statistics.alpha), ("omega", statistics.omega)):
        y = axis[keep].double().numpy()
        result[f"pearson_{name}"] = float(np.corrcoef(x, y)[0, 1])
        result[f"spearman_{name}"] = float(stats.spearmanr(x, y).statistic)
    return result


def draw_tau(eta: float, d: int, v_norm_sq: float, alpha_measured: torch.Tensor) -> float:
    """The law's ``tau`` with this draw's quantities: ``(eta/2) |v| sqrt(d) std(alpha)`` over the measured tokens
    (population std), where chapter 3's ``tau = eta / eta*`` takes all V tokens and ``|v| = 1``."""
    return (eta / 2) * math.sqrt(v_norm_sq * d) * float(alpha_measured.double().std(unbiased=False))


def data_correlations(statistics: TokenStatistics) -> dict[str, float]:
    """What separates ``alpha`` from ``omega`` over the measured tokens.

    ``alpha_omega_*``: their Pearson and Spearman correlations; ``alpha_omega_share``: the Pearson correlation of
    ``alpha`` with ``omega * share`` (share: the token's fraction of all training positions), since
    ``alpha_s ~ omega_s * share_s`` when reviews have equal lengths; ``count_abs_*``: Spearman correlation of
    ``|alpha|`` and of ``|omega|`` with the token's count.
    """
    keep = statistics.measured
    alpha, omega = statistics.alpha[keep].numpy(), statistics.omega[keep].numpy()
    counts = statistics.counts[keep].double().numpy()
    share = counts / float(statistics.counts.sum())
    return {
        "alpha_omega_pearson": float(np.corrcoef(alpha, omega)[0, 1]),
        "alpha_omega_spearman": float(stats.spearmanr(alpha, omega).statistic),
        "alpha_omega_share_pearson": float(np.corrcoef(alpha, omega * share)[0, 1]),
        "count_abs_alpha_spearman": float(stats.spearmanr(np.abs(alpha), counts).statistic),
        "count_abs_omega_spearman": float(stats.spearmanr(np.abs(omega), counts).statistic),
    }


def top_words(vocab: list[str], statistics: TokenStatistics, by: str, k: int = TOP_WORDS) -> list[dict[str, Any]]:
    """The ``k`` measured tokens with the largest ``|alpha|`` (``by="alpha"``) or ``|omega|`` (``by="omega"``; ties by
    count), each as word, count, alpha, omega."""
    if by not in ("alpha", "omega"):
        raise ValueError(f"by must be 'alpha' or 'omega', got {by!r}")
    k = check_positive_int(k, "k")
    keep = statistics.measured
    key = getattr(statistics, by).abs() + statistics.counts.double() * 1e-12  # a tie goes to the more frequent word
    order = torch.argsort(torch.where(keep, key, torch.full_like(key, -1.0)), descending=True)[: min(k, int(keep.sum()))]
    return [
        {"word": vocab[i], "count": int(statistics.counts[i]), "alpha": float(statistics.alpha[i]),
         "omega": float(statistics.omega[i])}
        for i in order.tolist()
    ]  # fmt: skip


def _rounded(values: torch.Tensor | np.ndarray) -> list[float]:
    return [float(f"{x:.4g}") for x in np.asarray(values, dtype=np.float64)]


def scatter_sample(statistics: TokenStatistics, size: int, extremes: list[int], seed: int = 0) -> torch.Tensor:
    """Token ids for the scatter plots: ``size`` measured tokens drawn with ``seed``, plus the ``extremes`` (ids)."""
    measured = torch.nonzero(statistics.measured).flatten().numpy()
    chosen = np.random.default_rng(seed).choice(measured, size=min(size, measured.size), replace=False)
    return torch.from_numpy(np.union1d(chosen, np.asarray(extremes, dtype=np.int64)))


def measure_dataset(
    split: EncodedSplit,
    vocab: list[str],
    *,
    d_grid: list[int],
    seeds: list[int],
    step_factor: float,
    min_count: int,
    scatter_tokens: int = SCATTER_TOKENS,
    progress: bool = False,
) -> dict[str, Any]:
    """Every number of one dataset's record: the data's correlations and top words, then per ``d`` the step size, the
    law, per-seed correlations with their seed intervals, and seed ``seeds[0]``'s values on a sample of tokens at the
    smallest and the largest ``d``."""
    from tqdm.auto import tqdm

    if not seeds or not d_grid:
        raise ValueError(f"seeds and d_grid must be non-empty, got seeds={seeds}, d_grid={d_grid}")
    V = len(vocab)
    statistics = token_statistics(split, V, min_count)
    alpha_measured = statistics.alpha[statistics.measured]
    data = data_correlations(statistics)
    by_alpha, by_omega = top_words(vocab, statistics, "alpha"), top_words(vocab, statistics, "omega")
    extremes = [vocab.index(w["word"]) for w in by_alpha + by_omega]
    sample = scatter_sample(statistics, scatter_tokens, extremes)
    scatter: dict[str, Any] = {"seed": seeds[0], "alpha": _rounded(statistics.alpha[sample]),
                               "omega": _rounded(statistics.omega[sample]), "count": statistics.counts[sample].tolist(),
                               "values": {}, "slope": {}}  # fmt: skip
    rows = []
    for d in tqdm(d_grid, desc=f"one step, {len(seeds)} seeds", disable=not progress, leave=False):
        eta_star, eta = one_step_size(split, V, d, step_factor)
        per_seed: dict[str, list[float]] = {name: [] for name in SEEDED}
        for seed in seeds:
            step = step_values(split, V, d, seed, eta)
            found = correlations(step.after, statistics)
            tau = draw_tau(eta, d, step.v_norm_sq, alpha_measured)
            moved = (step.after - step.before)[statistics.measured]
            found |= {
                "v_norm_sq": step.v_norm_sq,
                "tau_draw": tau,
                "predicted_draw": float(predicted_correlation(tau)),
                "predicted_omega_draw": data["alpha_omega_pearson"] * float(predicted_correlation(tau)),
                "formula_error": float((step.after - step.exact)[statistics.measured].abs().max() / moved.std()),
            }
            for name in SEEDED:
                per_seed[name].append(found[name])
            if seed == seeds[0] and d in (min(d_grid), max(d_grid)):
                scatter["values"][str(d)] = _rounded(step.after[sample])
                scatter["slope"][str(d)] = eta / 2 * step.v_norm_sq
        law = float(predicted_correlation(eta / eta_star))
        rows.append({"d": d, "eta_star": eta_star, "eta": eta, "tau": eta / eta_star, "predicted": law,
                     "predicted_omega": data["alpha_omega_pearson"] * law, "per_seed": per_seed,
                     "seed_summary": {name: seed_interval(values) for name, values in per_seed.items()}})  # fmt: skip
    return {
        "vocab_size": V,
        "n_train": len(split),
        "tokens_measured": int(statistics.measured.sum()),
        "alpha_std_all": float(statistics.alpha.std(unbiased=False)),
        "alpha_std_measured": float(alpha_measured.std(unbiased=False)),
        **data,
        "top_alpha": by_alpha,
        "top_omega": by_omega,
        "by_d": rows,
        "scatter": scatter,
    }


def one_step_direct_settings(scale: str) -> dict[str, Any]:
    """The record's settings at ``scale``: both datasets' presets, the dimensions, the seeds and the step (``tau``)."""
    if scale not in SEEDS:
        raise ValueError(f"scale must be one of {sorted(SEEDS)}, got {scale!r}")
    presets = {dataset: real_data_settings(scale, dataset) for dataset in DATASETS}
    factors = {p.step_factor for p in presets.values()}
    counts = {p.importance_min_count for p in presets.values()}
    if len(factors) != 1 or len(counts) != 1:
        raise ValueError(f"the presets disagree on step_factor {factors} or importance_min_count {counts}")
    return {
        "diagnosis": RECORD,
        "scale": scale,
        "presets": {dataset: preset.as_dict() for dataset, preset in presets.items()},
        "datasets": list(DATASETS),
        "d_grid": list(D_GRID),
        "seeds": list(range(SEEDS[scale])),
        "step_factor": factors.pop(),
        "importance_min_count": counts.pop(),
        "scatter_tokens": SCATTER_TOKENS,
    }


def run_one_step_direct(settings: dict[str, Any], *, progress: bool = False) -> dict[str, Any]:
    """Every dataset of ``settings`` (``one_step_direct_settings``): load its preset's reviews, measure the step."""
    result: dict[str, Any] = {"datasets": list(settings["datasets"]), "step_factor": settings["step_factor"],
                              "predicted": float(predicted_correlation(settings["step_factor"]))}  # fmt: skip
    for dataset in settings["datasets"]:
        data = load_data(real_data_settings(settings["scale"], dataset), progress=progress)
        result[dataset] = measure_dataset(
            data.train, data.vocab, d_grid=settings["d_grid"], seeds=settings["seeds"],
            step_factor=settings["step_factor"], min_count=settings["importance_min_count"],
            scatter_tokens=settings["scatter_tokens"], progress=progress,
        )  # fmt: skip
    return result


DESCRIPTION = (
    "One full-batch gradient step on E of size step_factor * eta*(d) from the one-layer model's random draw (p = 0, v "
    "fixed at its draw), by autograd in float64, on the preset's training reviews (its seed-0 split; each seed is a new "
    "draw of E and v); nothing is trained after the step. Over the tokens seen at least importance_min_count times in "
    "training (<pad>, <unk> left out): Pearson and Spearman correlations of E_s . v with the signed frequency alpha_s "
    "and the posterior gap omega_s, per d and seed, with 95% Student-t intervals over seeds; chapter 3's law "
    "tau / sqrt(1 + tau^2) at tau = eta / eta* (std of alpha over all V tokens, |v| = 1), and the same law with this "
    "draw's quantities (tau_draw: std of alpha over the measured tokens, the draw's |v|): real reviews break the "
    "law's premise that the correlation is taken over the tokens eta* was computed on. formula_error: largest "
    "deviation from the exact closed form, over the std of the update. alpha against omega, the words with the "
    "largest |alpha| and |omega|, and seed 0's values on a seeded sample of tokens."
)


def page_numbers(metrics: dict[str, Any], dataset: str) -> dict[str, Any]:
    """What a chapter states about one dataset of the record (its ``metrics``), at the largest ``d`` unless the key says
    ``by_d``: the seed intervals (``corr_alpha``, ``spearman_alpha``, ``corr_omega``, ``spearman_omega``), the laws
    (``law_step``, ``law_draw``, ``law_omega``), the data's correlations, the correlations with alpha at every d
    (``by_d``: d -> seed mean), and the median count of the top words by |alpha| and by |omega|."""
    if dataset not in metrics.get("datasets", ()):
        raise ValueError(f"dataset must be one of the record's {metrics.get('datasets')}, got {dataset!r}")
    found = metrics[dataset]
    row = max(found["by_d"], key=lambda r: r["d"])
    summary = row["seed_summary"]
    return {
        "d": row["d"],
        "tau": row["tau"],
        **{name: summary[name] for name in CORRELATIONS},
        "law_step": row["predicted"],
        "law_draw": summary["predicted_draw"]["value"],
        "law_omega": summary["predicted_omega_draw"]["value"],
        "alpha_omega_pearson": found["alpha_omega_pearson"],
        "alpha_omega_spearman": found["alpha_omega_spearman"],
        "tokens": found["tokens_measured"],
        "by_d": {
            r["d"]: {name: r["seed_summary"][name]["value"] for name in (*CORRELATIONS, "predicted_draw")} for r in found["by_d"]
        },  # fmt: skip
        "median_count_alpha": float(np.median([w["count"] for w in found["top_alpha"]])),
        "median_count_omega": float(np.median([w["count"] for w in found["top_omega"]])),
    }


def shown_word(word: str) -> str:
    """A vocabulary word as a page shows it: as it is when printable, else its invisible characters named
    (``"\u200b"`` -> ``"<ZERO WIDTH SPACE>"``), so that no escape sequence reaches the reader."""
    import unicodedata

    if word.isprintable():
        return word
    return "".join(c if c.isprintable() else f"<{unicodedata.name(c, f'U+{ord(c):04X}')}>" for c in word)


def top_words_frame(metrics: dict[str, Any], dataset: str):
    """The record's top words of ``dataset`` side by side: by |alpha| (word, count, alpha x 1000, omega) and by
    |omega| (word, count, alpha x 1000, omega); a pandas DataFrame with one row per rank."""
    import pandas as pd

    columns = {}
    for by, label in (("top_alpha", "largest |α|"), ("top_omega", "largest |ω|")):
        words = metrics[dataset][by]
        columns[(label, "word")] = [shown_word(w["word"]) for w in words]
        columns[(label, "count")] = [w["count"] for w in words]
        columns[(label, "α × 1000")] = [round(1000 * w["alpha"], 3) for w in words]
        columns[(label, "ω")] = [round(w["omega"], 2) for w in words]
    frame = pd.DataFrame(columns)
    frame.index = range(1, len(frame) + 1)
    return frame


def correlations_frame(metrics: dict[str, Any], dataset: str):
    """One row per ``d`` of ``dataset``: the seed means of the four correlations, chapter 3's law at the step and the law
    with the data's and each draw's numbers (a pandas DataFrame, three decimals)."""
    import pandas as pd

    rows = {}
    for row in metrics[dataset]["by_d"]:
        mean = {name: row["seed_summary"][name]["value"] for name in (*CORRELATIONS, "predicted_draw")}
        rows[f"d = {row['d']}"] = {
            "Pearson with α": mean["pearson_alpha"], "Spearman with α": mean["spearman_alpha"],
            "Pearson with ω": mean["pearson_omega"], "Spearman with ω": mean["spearman_omega"],
            "law at τ": row["predicted"], "law, this data": mean["predicted_draw"],
        }  # fmt: skip
    return pd.DataFrame(rows).T.round(3)
