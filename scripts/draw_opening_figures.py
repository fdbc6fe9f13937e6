"""Draw each chapter's opening figure (book/figures/opening/*.png) from the chapter's own code, and record it.

A chapter opens with its key figure, the one it builds further down. To keep that figure from pretending to be a
result, it is the same computation: this script executes the chapter's own code cells that produce the figure's data
(picked by a line each of them holds, run in the chapter's order, with ``glue`` silenced and ``plt.show`` a no-op),
then draws a compact version (6 x 3 inches) of the chapter's figure from those variables. Chapters 6 and 7, whose
models take minutes to load and measure, are drawn from the record of the run they load instead. Beside the images,
``openings.json`` records for each figure the sha256 of the executed cells' sources and of the drawing code, the
key numbers read off the run, and the sha256 of the PNG. ``--check`` (scripts/test_draw_opening_figures.py) runs
everything again and fails when an image is stale: the chapter's cells or the drawing code changed, a number moved,
or a PNG is not the one drawn. It also checks that each chapter's opening cells are the ones written here.

Each chapter gets two markdown cells right after its title cell: the image by its raw GitHub address (repository
and branch from _config.yml), for Colab, where a path relative to notebooks/ does not resolve, tagged ``remove-cell``
so that the book leaves it out; then the book's ``{figure}``, with that relative path (the site serves the image
itself and loads nothing from elsewhere).

    python scripts/draw_opening_figures.py            # draw the images, their record and the chapters' cells
    python scripts/draw_opening_figures.py --check    # exit 1 when an image or a cell is not current
    python scripts/draw_opening_figures.py --only 03_one_step   # one chapter
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import inspect
import io
import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import numpy as np  # noqa: E402

from token_selection.theory.plots import CLASS_COLORS  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FIGURES = ROOT / "book" / "figures" / "opening"
RECORDS = Path(__file__).resolve().parents[1] / "src" / "token_selection" / "records"
RECORD = FIGURES / "openings.json"
NOTEBOOKS = ROOT / "notebooks"
SIZE = (6.0, 3.0)  # inches
DPI = 180
MAX_BYTES = 150_000
# The scale the published book runs at (.github/workflows/publish.yml); records are read at this scale.
SCALE = "fast"
BOOK_TAG = "opening-figure"
COLAB_TAG = "opening-figure-colab"

_SYNC = importlib.util.spec_from_file_location("sync_setup_cells", Path(__file__).with_name("sync_setup_cells.py"))
sync_setup_cells = importlib.util.module_from_spec(_SYNC)
sys.modules.setdefault("sync_setup_cells", sync_setup_cells)
_SYNC.loader.exec_module(sync_setup_cells)


@dataclass(frozen=True)
class Opening:
    """One chapter's opening figure.

    chapter: the notebook's stem; cells: one line (a substring) of each code cell to execute, each matching exactly
    one code cell of the chapter; draw: namespace -> (figure, key numbers); section: the heading of the section
    that builds the figure; caption: one sentence on what to look at; alt: the image's text alternative.
    """

    chapter: str
    label: str
    cells: tuple[str, ...]
    draw: Callable[[dict], tuple[plt.Figure, dict[str, float]]]
    helpers: tuple[Callable, ...]
    section: str
    caption: str
    alt: str
    records: tuple[str, ...] = ()
    """Record files (under the package's records folder) the figure reads: a change in one makes it stale."""


def _small(ax, size: int = 8) -> None:
    ax.tick_params(labelsize=size - 1)
    ax.title.set_fontsize(size + 1)
    ax.xaxis.label.set_fontsize(size)
    ax.yaxis.label.set_fontsize(size)


def _plot_against_importance():
    from token_selection.theory.plots import plot_against_importance

    return plot_against_importance


def _plot_selection_frames():
    from token_selection.theory.selection_frames import plot_selection_frames

    return plot_selection_frames


def _plot_share_by_dimension():
    from token_selection.theory.plots import plot_share_by_dimension

    return plot_share_by_dimension


def _binned_plot_helpers():
    from token_selection.report.binned import binned_from_record, plot_binned

    return (_draw_real_data, binned_from_record, plot_binned)


# Chapter 1: attention on `the movie was great` sharpens as |p| grows.
def draw_01(ns: dict):
    norms, shown = ns["norms"], ns["sentences"][0].split() + ["<pad>", "<pad>"]
    X, mask = ns["X_toy"], ns["mask_toy"]
    grid = np.geomspace(0.01, 300, 80)
    logits = np.array([ns["attend"](float(r), X, mask)[1].tolist() for r in grid])
    weights = {r: ns["attend"](r, X, mask)[0][0].numpy() for r in norms}
    fig, (left, right) = plt.subplots(1, 2, figsize=SIZE)
    width = 0.8 / len(norms)
    shades = plt.cm.Greys(np.linspace(0.3, 0.9, len(norms)))  # light to dark as |p| grows: no class colour (red, blue)
    for k, r in enumerate(norms):
        left.bar(np.arange(len(shown)) + (k - (len(norms) - 1) / 2) * width, weights[r], width, color=shades[k],
                 label=f"|p| = {r:g}")  # fmt: skip
    left.set_xticks(np.arange(len(shown)), shown, rotation=30, fontsize=7)
    left.set_ylabel("attention weight $q_i$")
    left.set_title("'the movie was great'")
    left.legend(fontsize=7.5)
    for k, style in enumerate(["-", ":", "--"]):  # the course's class colours: red ends positive, blue negative
        colour = CLASS_COLORS[int(np.sign(logits[-1, k]))]
        right.semilogx(grid, logits[:, k], style, color=colour, label=f"'{ns['sentences'][k]}'")
    right.set_xlabel("|p|")
    right.set_ylabel("logit f(X)")
    right.set_title("f tends to the top word's value")
    right.set_ylim(-1.35, 1.1)  # room under the lowest curve (-1/2) for the legend
    right.legend(fontsize=7, loc="lower right")  # under every curve, off each of them
    for ax in (left, right):
        _small(ax)
    fig.tight_layout()
    great = shown.index("great")
    return fig, {
        "weight_on_great_at_largest_norm": float(weights[norms[-1]][great]),
        "logit_great_at_300": float(logits[-1, 0]),
        "logit_boring_at_300": float(logits[-1, 1]),
    }


# Chapter 2: raw frequency against signed frequency.
def draw_02(ns: dict):
    data, frequency, alpha = ns["data"], ns["frequency"], ns["alpha"]
    fig, ax = plt.subplots(figsize=SIZE)
    for label, name, colour in ((1, "positive-relevant", CLASS_COLORS[1]), (-1, "negative-relevant", CLASS_COLORS[-1]),
                                (0, "irrelevant", CLASS_COLORS[0])):  # fmt: skip
        pick = data.token_class == label
        ax.scatter(frequency[pick], alpha[pick], s=10, color=colour, label=name, alpha=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("raw frequency: share of all positions (log scale)")
    ax.set_ylabel(r"signed frequency $\alpha_s$")
    ax.set_title("the most frequent tokens have $\\alpha_s = 0$")
    ax.legend(fontsize=8.5)
    _small(ax)
    fig.tight_layout()
    top = int(np.argmax(frequency.numpy()))
    return fig, {
        "top_share": float(frequency[top]),
        "alpha_of_top": float(alpha[top]),
        "max_abs_alpha": float(alpha.abs().max()),
    }


# Chapter 3: the values before and after one step, against the signed frequency.
def draw_03(ns: dict):
    alpha, data, E0, E1, v, counts = ns["alpha"], ns["data"], ns["E0"], ns["E1"], ns["v"], ns["counts"]
    plot = _plot_against_importance()
    after = (E1 @ v).numpy()
    corr = float(np.corrcoef(after, alpha.numpy())[0, 1])
    fig, (ax0, ax1) = plt.subplots(1, 2, figsize=SIZE)
    sizes = 0.9 * counts  # marker area: the token's raw count, as in the chapter (scaled to this smaller figure)
    plot(ax0, alpha, (E0 @ v).numpy(), data.token_class, sizes=sizes)
    ax0.set_title("before the step: noise")
    slope, _ = plot(ax1, alpha, after, data.token_class, sizes=sizes, fit=True)
    ax1.set_title(f"after one step: corr = {corr:.3f}")
    ax0.set_ylabel(r"value $E_s\cdot v$")
    for ax in (ax0, ax1):
        ax.set_xlabel(r"signed frequency $\alpha_s$")
        _small(ax)
    # below both panels: inside either one it would cover points
    fig.legend(*ax1.get_legend_handles_labels(), fontsize=7.5, loc="lower center", ncol=4, markerscale=0.6, frameon=False)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return fig, {"correlation": corr, "slope": float(slope), "noise_std": float((E0 @ v).std())}


# Chapter 4: the scores against the importance after the first step of training p and at the end: a lean, then two
# levels (the values, chapter 3's line, are not drawn again).
def draw_04(ns: dict):
    alpha, data = ns["alpha"], ns["data"]
    steps = (ns["first"].step, int(ns["history_normalized"].as_arrays()["step"][-1]))
    plot = _plot_against_importance()
    fig, axes = plt.subplots(1, 2, figsize=SIZE, sharey=True)
    relevant = (data.token_class != 0).numpy()
    numbers = {}
    panels = zip(axes, (ns["first_scores"], ns["scores"]), steps, ("first", "last"), ("a lean", "two levels"), strict=True)
    for ax, scores, step, name, what in panels:
        plot(ax, alpha, scores, data.token_class)
        ax.set_title(f"after {step:,} step{'s' if step > 1 else ''} of training p: {what}")
        ax.set_xlabel(r"signed frequency $\alpha_s$")
        _small(ax)
        numbers[f"{name}_corr_with_alpha"] = float(np.corrcoef(scores, alpha.numpy())[0, 1])
        numbers[f"{name}_relevant_min"] = float(scores[relevant].min())
        numbers[f"{name}_irrelevant_max"] = float(scores[~relevant].max())
    axes[0].set_ylabel(r"score $E_s\cdot p/\|p\|$")
    axes[1].legend(fontsize=6.5, markerscale=0.6, loc="lower left")  # below the high level: empty
    fig.tight_layout()
    return fig, numbers


# Chapter 4b: every token at the end of two of the page's runs, in chapter 4's plane (value across, score up): seed 0,
# which reaches p_mm, and the first seed that misses (the chapter's figure "What a miss looks like").
def draw_04b(ns: dict):
    from token_selection.theory.selection_frames import Frame, frame_coordinates

    plot = _plot_selection_frames()
    fig, axes = plt.subplots(1, 2, figsize=SIZE)
    numbers = {}
    span = 0.0  # the panels share one scale (below): a token's arrow is judged against the taller panel's scores
    for seed in ns["plane_seeds"]:
        _, model, p_mm, _ = ns["trained"][seed]
        E, v = model.E.detach(), model.v.detach()
        scores = np.concatenate([frame_coordinates(E, v, q)[:, 1] for q in (model.p.detach().double(), p_mm)])
        span = max(span, float(scores.max() - scores.min()))
    for ax, (seed, end) in zip(axes, ns["plane_seeds"].items(), strict=True):
        data, model, p_mm, last_step = ns["trained"][seed]
        last = Frame(step=int(last_step), p=model.p.detach().double())
        (points,) = plot([ax], model.E.detach(), model.v.detach(), p_mm, [last], data.token_class, {}, compass="lower right",
                         span=span)  # fmt: skip
        for inset in list(ax.child_axes):  # the compass: too small to read at this size (the chapter's figure has it)
            inset.remove()
        ax.set_title(f"seed {seed} {end} $p_{{\\mathrm{{mm}}}}$")
        ax.set_xlabel(r"value $E_s\cdot\hat v$")
        ax.set_ylabel(r"score $E_s\cdot p/\|p\|$" if ax is axes[0] else "")
        _small(ax)
        irrelevant = points[data.token_class.numpy() == 0, 1]
        numbers[f"seed{seed}_irrelevant_top"] = float(irrelevant.max())
        numbers[f"seed{seed}_relevant_low"] = float(points[data.token_class.numpy() != 0, 1].min())
    for axis in ("x", "y"):  # one scale for both panels, so that the two ends compare at a glance
        lows, highs = zip(*(getattr(ax, f"get_{axis}lim")() for ax in axes), strict=True)
        for ax in axes:
            getattr(ax, f"set_{axis}lim")(min(lows), max(highs))
    fig.tight_layout()
    return fig, numbers


# Chapter 10b: along the flow, the share of seeds reaching p_mm against d (condition B).
def draw_10b(ns: dict):
    lines = ns["flow_by_d"]
    fig, ax = plt.subplots(figsize=SIZE)
    _plot_share_by_dimension()(ax, lines)
    ax.set_title("how often the flow reaches p_mm, against d")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=3, frameon=False)  # below the axes
    _small(ax)
    fig.tight_layout()
    short, long_ref, _ = lines.values()
    small, large = min(long_ref), max(long_ref)
    return fig, {
        "short_share_smallest_d": float(short[small][0]),
        "long_share_smallest_d": float(long_ref[small][0]),
        "long_share_largest_d": float(long_ref[large][0]),
    }


# Chapter 4c: the four-token example, three runs of p in the plane of the two directions (the one that selects both
# classes across, the one-sided one up): started on the one-sided direction beyond rho*, the run stays; started below
# rho* or at 0, it turns to the direction that selects both classes. Colours and words of the chapter's figure.
def draw_04c(ns: dict):
    p_loc, p_global, paths, rho_star = ns["p_loc"], ns["p_global"], ns["paths"], ns["rho_star"]
    towards = p_loc - (p_loc @ p_global) * p_global
    towards = towards / towards.norm()
    reach = 1.1 * max(float(path[-1].norm()) for path in paths.values())
    rays = {
        "selects both classes": (p_global, "tab:green", ns["global_program"].margin),
        "one-sided": (p_loc, "tab:purple", ns["local"].margin),
    }
    colours = {"2 rho*": "tab:purple", "rho*/2": "tab:green", "0": "black"}
    starts = {"2 rho*": r"start $2\rho^*$", "rho*/2": r"start $\rho^*/2$", "0": "start $p = 0$"}
    fig, axes = plt.subplots(1, 2, figsize=SIZE)
    for ax, size in zip(axes, (reach, 2.5 * rho_star), strict=True):
        for label, (direction, colour, margin) in rays.items():
            end = reach * direction
            ax.plot([0, float(end @ p_global)], [0, float(end @ towards)], lw=5, color=colour, alpha=0.25,
                    label=f"{label} (margin {margin:.2f})")  # fmt: skip
        for name, path in paths.items():
            x, y = (path @ p_global).numpy(), (path @ towards).numpy()
            ax.plot(x, y, color=colours[name], lw=1.3)
            ax.plot(x[0], y[0], "o", color=colours[name], ms=4, label=starts[name])
            ax.plot(x[-1], y[-1], "x", color=colours[name], ms=6, mew=1.5)
        ax.set_aspect("equal")
        ax.set_xlim(-0.05 * size, size)
        ax.set_ylim(-0.05 * size, size)
        ax.set_xlabel("along the direction that selects both", fontsize=7)
        _small(ax)
    for ax in axes:
        ax.set_ylabel("at right angles to it,\ntowards the one-sided direction", fontsize=7)
    axes[0].set_title("the whole runs")
    axes[1].set_title(r"near the start, up to $2.5\rho^*$")
    # under both panels, clear of every path
    fig.legend(*axes[0].get_legend_handles_labels(), loc="lower center", ncol=3, fontsize=6.5)
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    ends = {name: float(path[-1] @ p_loc / path[-1].norm()) for name, path in paths.items()}
    return fig, {
        "rho_star": float(rho_star),
        "margin_one_sided": float(ns["local"].margin),
        "margin_both": float(ns["global_program"].margin),
        "cos_one_sided_from_2rho": ends["2 rho*"],
        "cos_one_sided_from_0": ends["0"],
    }


# Chapter 4d: one run of normalised GD on data with several relevant tokens per sequence: its cosine with the two
# max-margin directions (in the colours of the chapter's text: p_opt blue, p_all orange), and where the sequences with
# several relevant tokens put their attention (the optimal token dark blue, their other relevant tokens light blue).
def draw_04d(ns: dict):
    frames, along, shares = ns["frames"], ns["along"], ns["shares"]
    steps = [f.step for f in frames]
    fig, (ax, right) = plt.subplots(1, 2, figsize=SIZE)
    ax.semilogx(steps, along["p_opt"], color="tab:blue", lw=2.2, label=r"$\cos(p, p_{\mathrm{opt}})$")
    ax.semilogx(steps, along["p_all"], color="tab:orange", lw=1.6, label=r"$\cos(p, p_{\mathrm{all}})$")
    ax.set_xlabel("normalised-GD step")
    ax.set_ylabel("cosine")
    ax.set_ylim(0, 1.02)
    ax.set_title("p turns to $p_{\\mathrm{opt}}$")
    ax.legend(fontsize=7.5, loc="lower right")
    right.stackplot(steps, list(shares.values()), colors=("tab:blue", "lightskyblue", "lightgrey"), labels=list(shares))
    right.set_xscale("log")
    right.set_xlabel("normalised-GD step")
    right.set_ylabel("mean attention")
    right.set_ylim(0, 1)
    right.set_title("attention, several relevant tokens")
    right.legend(fontsize=7.5, loc="lower right")
    for a in (ax, right):
        _small(a)
    fig.tight_layout()
    return fig, {
        "last_step": float(steps[-1]),
        "cos_opt_end": float(along["p_opt"][-1]),
        "cos_all_end": float(along["p_all"][-1]),
        "cos_all_peak": float(max(along["p_all"])),
        "other_relevant_peak": float(max(shares["other relevant"])),
        "optimal_end": float(shares["optimal"][-1]),
    }


# Chapter 10: where normalised GD on p ends, by kind of start.
def draw_10(ns: dict):
    rows = ns["rows"]
    colours = {"all_relevant": "tab:green", "one_sided": "tab:red", "other": "tab:grey"}
    fig, ax = plt.subplots(figsize=SIZE)
    for k, end in enumerate(colours):
        share = np.array([s[end]["fraction"] for _, s in rows])
        low = np.clip(share - np.array([s[end]["ci95"][0] for _, s in rows]), 0, None)
        high = np.clip(np.array([s[end]["ci95"][1] for _, s in rows]) - share, 0, None)
        ax.bar(np.arange(len(rows)) + (k - 1) * 0.27, share, 0.27, yerr=[low, high], capsize=2, color=colours[end],
               label=end.replace("_", " "))  # fmt: skip
    ax.set_xticks(np.arange(len(rows)), [label for label, _ in rows], rotation=20, fontsize=6, ha="right")
    ax.set_ylabel("fraction of seeds")
    ax.set_ylim(0, 1.3)
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_title("where normalised GD on p ends")
    ax.legend(fontsize=7.5, ncol=3, loc="upper center")
    _small(ax)
    fig.tight_layout()
    numbers = {f"{label}: {end}": float(s[end]["fraction"]) for label, s in rows for end in colours}
    return fig, numbers


# Chapter 11: the phase diagram in (d, V).
def draw_11(ns: dict):
    dims, vocabs, fraction = ns["dims"], ns["vocabs"], ns["fraction"]
    metrics, settings = ns["metrics"], ns["settings"]
    fig, ax = plt.subplots(figsize=SIZE)
    log_v, log_d = np.log2(vocabs), np.log2(dims)
    mesh = ax.pcolormesh(np.append(log_v - 0.5, log_v[-1] + 0.5), np.append(log_d - 0.5, log_d[-1] + 0.5), fraction,
                         cmap="viridis", vmin=0, vmax=1, shading="flat")  # fmt: skip
    bar = fig.colorbar(mesh, ax=ax)
    bar.set_label("share of seeds selecting", fontsize=8)
    bar.ax.tick_params(labelsize=7)
    grid_v = np.geomspace(vocabs[0], vocabs[-1], 100)
    boundary = [
        ns["predicted_dimension"](V, metrics["value_signal"], settings["n_relevant"], settings["n"], settings["T"])
        for V in grid_v
    ]
    ax.plot(np.log2(grid_v), np.log2(boundary), "r--", lw=1.5, label="$d^*(V)$: union bound on the value ordering")
    ax.set_xticks(log_v, [str(V) for V in vocabs])
    ax.set_yticks(log_d, [str(d) for d in dims])
    ax.set_xlim(log_v[0] - 0.5, log_v[-1] + 0.5)
    ax.set_ylim(log_d[0] - 0.5, log_d[-1] + 0.5)
    ax.set_xlabel("vocabulary size V")
    ax.set_ylabel("dimension d")
    ax.set_title("share of seeds whose p selects the relevant tokens")
    ax.legend(fontsize=8.5, loc="lower right")
    _small(ax)
    fig.tight_layout()
    return fig, {f"fraction d={d} V={V}": float(fraction[i, j]) for i, d in enumerate(dims) for j, V in enumerate(vocabs)}


# Chapters 6 and 7: values and scores of the jointly trained one-layer model, binned by the posterior gap, read from
# the record of the run the chapter loads (its measurement at the published scale).
def _draw_real_data(dataset: str, name: str):
    from token_selection.real_data.pipeline import read_run_record, record_name
    from token_selection.report.binned import binned_from_record, plot_binned
    from token_selection.report.catalogue import state_of

    record = read_run_record(dataset, "one_layer", "joint", SCALE)
    state = state_of(record_name(dataset, "one_layer", "joint"), SCALE)
    if record is None or state != "current":
        raise ValueError(f"the {SCALE} record of the one-layer model on {dataset} is {state}: run `make records` first")
    metrics = record["metrics"]
    if metrics.get("stand_in"):
        name += " stand-in"
    fig, axes = plt.subplots(1, 2, figsize=SIZE)
    numbers = {"test_accuracy": float(metrics["test_accuracy"])}
    for ax, quantity, label, colour in ((axes[0], "values", r"$E_s\cdot v$", "tab:blue"),
                                        (axes[1], "scores", r"$E_s\cdot p$", "tab:red")):  # fmt: skip
        binned = binned_from_record(metrics[quantity])
        plot_binned(ax, binned, label=label, color=colour)
        ax.get_legend().remove()
        ax.set_xlabel(r"posterior gap $\omega_s$")
        # the shape rule's verdict, as recorded for this run
        ax.set_title(f"{name}, {quantity}: {metrics[quantity]['shape']}")
        _small(ax)
        numbers.update({f"{quantity} bin {k}": float(m) for k, m in enumerate(binned.mean)})
    fig.tight_layout()
    return fig, numbers


def draw_06(ns: dict):
    return _draw_real_data("imdb", "IMDB")


def draw_07(ns: dict):
    return _draw_real_data("yelp_polarity", "Yelp")


# Chapter 12: on asymmetric data, the scores after training p against the posterior gap (one seed).
def draw_12(ns: dict):
    example, seed = ns["example"], ns["FIGURE_SEED"]
    cls, gap, scores = example["token_class"], example["gap"], example["scores"]
    fig, ax = plt.subplots(figsize=SIZE)
    for value, colour, label in ((1, "tab:red", "positive-relevant"), (-1, "tab:blue", "negative-relevant"),
                                 (0, "tab:grey", "irrelevant")):  # fmt: skip
        keep = (cls == value) & np.isfinite(gap)
        ax.scatter(gap[keep], scores[keep], s=10, color=colour, label=label, alpha=0.8)
    ax.axhline(np.median(scores[cls == 0]), color="grey", lw=0.8, ls=":")
    ax.set_xlabel(r"posterior gap $P(1\mid s) - P(0\mid s)$")
    ax.set_ylabel(r"score $E_s\cdot p/\|p\|$")
    ax.set_title(f"asymmetric data, seed {seed}: the shape rule says {example['shape'].shape}")
    ax.legend(fontsize=8.5)
    _small(ax)
    fig.tight_layout()
    return fig, {
        "median_irrelevant_score": float(np.median(scores[cls == 0])),
        "positive_arm": float(example["arms"][0]),
        "negative_arm": float(example["arms"][1]),
    }


# Chapter 9b: accuracy with frozen and trained embeddings against d / V, at both scales, from the diagnosis records.
def draw_13(ns: dict):
    capacity, pn = ns["capacity"], ns["pn"]
    fig, axes = plt.subplots(1, 2, figsize=SIZE, sharey=True)
    numbers = {}
    for ax, scale in zip(axes, ns["SCALES"], strict=True):
        record = capacity[scale]
        _small(ax)
        if record is None:
            ax.set_title(f"{scale}: no record")
            continue
        rows = record["metrics"]["rows"]
        ratio = [r["d_over_V"] for r in rows]
        ax.semilogx(ratio, [100 * r["frozen"] for r in rows], "o-", ms=4, label="E frozen at random")
        ax.semilogx(ratio, [100 * r["joint"] for r in rows], "s-", ms=4, label="E trained")
        ax.axhline(100 * pn.FROZEN_ACCURACY, color="grey", ls=":", label="rebuttal: frozen")
        ax.axhline(100 * pn.TRAINED_ACCURACY, color="grey", ls="--", label="rebuttal: trained")
        ax.axvline(1.0, color="k", lw=0.5)
        ax.set_xlabel("d / V")
        ax.set_title(f"{scale} scale")
        _small(ax)
        numbers.update({f"{scale} d/V={r['d_over_V']:.4g} {k}": float(r[k]) for r in rows for k in ("frozen", "joint")})
    axes[0].set_ylabel("IMDB test accuracy (%)")
    axes[1].legend(fontsize=7.5, loc="lower right")
    fig.tight_layout()
    return fig, numbers


OPENINGS = (
    Opening(
        "01_model",
        "ch1-fig-opening",
        ("vocabulary = {",),
        draw_01,
        (),
        "Attention on a toy sentence",
        "As the `<cls>` vector $p$ grows, the attention on `the movie was great` moves onto `great` (left) and the "
        "logit of each sentence moves to the value of its one sentiment word (right)",
        "Bar chart of attention weights on the six positions of a toy sentence for four norms of p, and the logits "
        "of three toy sentences against the norm of p",
    ),
    Opening(
        "02_token_importance",
        "ch2-fig-opening",
        ("import zipf_probabilities", "n = by_scale(", "alpha = ts.signed_frequency("),
        draw_02,
        (),
        "Frequent is not important",
        "Each dot is a token of the synthetic data: the most frequent tokens (right) are irrelevant and sit exactly "
        "on $\\alpha_s = 0$, while only the rarer relevant tokens carry a signed frequency",
        "Scatter plot of the tokens' signed frequency against their raw frequency on a log axis",
    ),
    Opening(
        "03_one_step",
        "ch3-fig-opening",
        ("from tqdm.auto import tqdm", "err_exact = relative_error(", "counts = sum(ts.token_counts("),
        draw_03,
        (_plot_against_importance,),
        "The alignment: values on a line",
        "Before the step each token's value $E_s\\cdot v$ is noise (left, note the small vertical scale); after one "
        "gradient step it lies on a line in the token's signed frequency $\\alpha_s$ (right); marker area: the token's "
        "count, so the large grey markers at $\\alpha_s = 0$ are the most frequent tokens",
        "Two scatter plots of the tokens' values against their signed frequency, before and after one step",
    ),
    Opening(
        "04_max_margin",
        "ch4-fig-opening",
        (
            "from scipy.optimize import nnls",
            "solution = ts.solve_max_margin(",
            "GD_STEPS = by_scale(",
            "history_normalized = ts.train_cls(",
            "p_hat = normalized.p.detach()",
        ),
        draw_04,
        (_plot_against_importance,),
        "Scores and values against the importance",
        "Each token's score $E_s\\cdot p/\\|p\\|$ against its signed frequency $\\alpha_s$, while $E$ and $v$ stay "
        "frozen. After the first step of training $p$ (left) the scores lean: the negative tokens (blue) score "
        "highest, and some positive ones (red) below some irrelevant ones (grey). At the end (right) every relevant "
        "token, positive or negative, sits on one high level and the irrelevant ones on a low one",
        "Two scatter plots of the tokens' scores against their signed frequency: on the left the blue tokens score "
        "highest and the red ones mix with the grey; on the right the red and blue tokens sit on one high level and the "
        "grey ones on a low level",
    ),
    Opening(
        "04b_numerics",
        "ch4b-fig-opening",
        (
            "import token_selection.theory.training",
            "case = REFERENCE_CASE",
            "sweep_scale = shown_scale(",
            "sweep = []",
            "plane_seeds = {0: ",
        ),
        draw_04b,
        (_plot_selection_frames,),
        "What a miss looks like",
        "Every token at the end of two runs, value across and score up. Left, seed 0 reaches $p_{\\mathrm{mm}}$: every "
        "relevant token, red or blue, sits high, every irrelevant one (grey) low. Right, the first seed that misses: "
        "the blue tokens sit below the grey ones, which take the attention of the negative sequences (hollow circles: "
        "where a token would sit at that seed's $p_{\\mathrm{mm}}$)",
        "Two scatter plots of every token, value across and score up. Left, seed 0: the red and blue relevant tokens "
        "sit on one high level, the grey irrelevant ones on a low level. Right, the first missed seed: the scores rise "
        "with the value, the red tokens above every grey one, the blue ones below every grey one, with arrows to "
        "hollow circles where they would sit at the max-margin direction, up for the blue tokens and down for the red",
        records=("flow_seed_sweep.fast.json", "flow_seed_sweep.full.json"),
    ),
    Opening(
        "04c_floor",
        "ch4c-fig-opening",
        (
            "from token_selection.theory.selection_frames import p_at_steps",
            "U, eps = 4.0, 0.3",
            "def toy_path(start: torch.Tensor)",
        ),
        draw_04c,
        (),
        "Why a one-sided end stays: four tokens",
        "Four tokens, three runs of $p$ in the plane of two directions: the one that selects both classes (green, "
        "across) and a one-sided one (purple) with the larger margin; up is $p$'s component in that plane at right "
        "angles to the green direction. Started on the one-sided direction far enough out, the run stays on it; started "
        "nearer, or at $p = 0$, it turns to the direction that selects both classes (crosses: where the runs stop; the "
        "black run's cross hides the green one's)",
        "Two panels with two shaded rays from the origin, a green one along the horizontal axis and a purple one above "
        "it. A purple path starts on the purple ray far out and stays on it; a green path starts on the purple ray near "
        "the origin and a black path starts at the origin, and both bend down onto the green ray and end at the same "
        "point. The right panel enlarges the region near the origin where the paths turn",
    ),
    Opening(
        "04d_several_tokens",
        "ch4d-fig-opening",
        ("import REFERENCE_CASE\n", "case = REFERENCE_CASE", "several = ts.make_synthetic("),
        draw_04d,
        (),
        "Several relevant tokens per sequence",
        "With several relevant tokens per sequence, normalised GD on $p$ turns towards the max-margin direction that "
        "selects the optimal token of each sequence (left, blue), not towards the one that selects every relevant "
        "token (orange), whose cosine rises with the blue one at first and then falls. Right: in the sequences that "
        "hold several relevant tokens, the other relevant tokens (light blue) gain attention at first, then lose it "
        "all to the optimal token (dark blue)",
        "Left, two line plots against the training step, log scale: the cosine of p with the optimal-token direction "
        "rises to 1; the cosine with the all-relevant direction rises with it at first, then turns away and ends well "
        "below. Right, stacked areas of mean attention against the step: the optimal token's share grows to all of "
        "it, the other relevant tokens' share swells and then shrinks to nothing, the irrelevant share "
        "shrinks to nothing",
    ),
    Opening(
        "06_imdb",
        "ch6-fig-opening",
        (),
        draw_06,
        (_binned_plot_helpers,),
        "Values rise, scores are U-shaped",
        "On real movie reviews, after $E$, $p$ and $v$ are trained together, the value $E_s\\cdot v$ of a word "
        "rises with its posterior gap $\\omega_s$ (left) while its score $E_s\\cdot p$ is high at both ends "
        "(right); dots are bin means, bands one standard deviation, for the jointly trained one-layer model",
        "Two curves of binned means against the posterior gap: the values rise, the scores are high at both ends",
        records=("imdb-one_layer-joint.fast.json",),
    ),
    Opening(
        "07_yelp",
        "ch7-fig-opening",
        (),
        draw_07,
        (_binned_plot_helpers,),
        "The same four models",
        "The picture of IMDB again on Yelp reviews: the value $E_s\\cdot v$ rises with the posterior gap "
        "$\\omega_s$ (left) and the score $E_s\\cdot p$ is high at both ends (right); dots are bin means, bands "
        "one standard deviation, for the jointly trained one-layer model",
        "Two curves of binned means against the posterior gap: the values rise, the scores are high at both ends",
        records=("yelp_polarity-one_layer-joint.fast.json",),
    ),
    Opening(
        "10_global_local",
        "ch10-fig-opening",
        ("settings = global_local_settings(", 'metrics = load_or_run("global_local"'),
        draw_10,
        (),
        "Where does gradient descent end?",
        "For each kind of start and step size, the share of seeds whose $p$ ends at the all-relevant max-margin "
        "direction (green), at a one-sided one (red) or elsewhere (grey), for the settings this chapter runs",
        "Grouped bar chart of the fraction of seeds ending at each kind of direction, by start and step size",
    ),
    Opening(
        "10b_conditions",
        "ch10b-fig-opening",
        (
            "from token_selection.theory.plots import plot_share_by_dimension",
            "reference_tau = case.step_factor(",
            "flow_by_d, unit_by_d = ",
        ),
        draw_10b,
        (_plot_share_by_dimension,),
        "Condition B: a larger dimension, at the same relative step",
        "Along the gradient flow, the share of seeds whose $p$ reaches $p_{\\mathrm{mm}}$ against the dimension: with "
        "sequences of 8 tokens every seed reaches it from $d = 1024$ on; with 32 tokens some seeds still miss at "
        "$d = 4096$, at either step",
        "Line plot of the share of seeds reaching the max-margin direction against the embedding dimension, one line "
        "for sequences of 8 tokens that rises to 1 from d = 1024 on, two lines for 32 tokens that end below 1 at d = 4096",
        records=(
            "flow_seed_sweep.fast.json",
            "flow_seed_sweep.full.json",
            "flow_fixed_tau.fast.json",
            "flow_fixed_tau.full.json",
            "flow_long_sequences.fast.json",
            "flow_long_sequences.full.json",
        ),
    ),
    Opening(
        "11_capacity",
        "ch11-fig-opening",
        ("settings = capacity_settings(", 'metrics = load_or_run("capacity_phase"'),
        draw_11,
        (),
        "The measured diagram",
        "Each cell is the share of seeds whose $p$ reaches the all-relevant direction, at dimension $d$ and "
        "vocabulary size $V$; the dashed line is the dimension that the union bound asks for the values to be "
        "ordered, and selection already succeeds well below it",
        "Heat map of the success fraction over dimension and vocabulary size, with a predicted boundary",
    ),
    Opening(
        "12_asymmetric_interactions",
        "ch12-fig-opening",
        ("asym = asymmetric_settings(SCALE)", "FIGURE_SEED = "),
        draw_12,
        (),
        "Part 1: asymmetric data, one relevant token per sequence",
        "On asymmetric data (unequal classes, no twins) the relevant tokens of both classes still score above "
        "the irrelevant ones (dotted line: their median) after $p$ is trained: a U against the posterior gap",
        "Scatter plot of the tokens' scores after training p against their posterior gap, for one seed",
    ),
    Opening(
        "09b_differences",
        "ch13-fig-opening",
        ("def diagnosis(name: str)", 'capacity = diagnosis("frozen_capacity")'),
        draw_13,
        (),
        "Trained against frozen embeddings",
        "IMDB test accuracy of the one-layer model with the embeddings frozen at random (circles) or trained "
        "(squares), against $d/V$ at each scale, beside the levels the authors' rebuttal reports (grey)",
        "Two panels of test accuracy against d over V for frozen and trained embeddings, at the two scales",
        records=("diagnosis-frozen_capacity.fast.json", "diagnosis-frozen_capacity.full.json"),
    ),
)


def chapter_path(opening: Opening) -> Path:
    return NOTEBOOKS / f"{opening.chapter}.ipynb"


def chapter_cells(opening: Opening) -> list[str]:
    """The sources of the chapter's code cells named by ``opening.cells``, in the chapter's order."""
    notebook = nbformat.read(chapter_path(opening), as_version=4)
    code = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    picked = []
    for marker in opening.cells:
        found = [i for i, source in enumerate(code) if marker in source]
        if len(found) != 1:
            raise ValueError(f"{opening.chapter}: {len(found)} code cells hold {marker!r}; exactly one must")
        picked.append(found[0])
    return [code[i] for i in sorted(picked)]


def run_cells(sources: list[str]) -> dict:
    """Execute ``sources`` at the published scale, quietly, with ``glue`` silenced and ``plt.show`` a no-op.

    The scale variable, ``glue`` and ``plt.show`` are put back afterwards, so that a test process that runs this
    goes on at its own scale.
    """
    import torch

    import token_selection as ts
    import token_selection.prose as prose

    namespace = {"ts": ts, "np": np, "plt": plt, "torch": torch, "__name__": "__opening__"}
    scale, myst_glue, show = os.environ.get("TOKEN_SELECTION_SCALE"), prose._myst_glue, plt.show
    os.environ["TOKEN_SELECTION_SCALE"] = SCALE
    prose._myst_glue = None
    plt.show = lambda *args, **kwargs: None
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for source in sources:
                exec(compile(source, "<chapter cell>", "exec"), namespace)
    finally:
        if scale is None:
            os.environ.pop("TOKEN_SELECTION_SCALE", None)
        else:
            os.environ["TOKEN_SELECTION_SCALE"] = scale
        prose._myst_glue, plt.show = myst_glue, show
        plt.close("all")
    return namespace


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def code_sha256(opening: Opening, sources: list[str]) -> dict[str, str]:
    """sha256 of the chapter cells run, of the drawing code (the draw function, its helpers, the shared style) and of
    the record files the figure reads."""
    drawing = [inspect.getsource(opening.draw), inspect.getsource(_small), repr((SIZE, DPI, SCALE))]
    for helper in opening.helpers:
        found = helper()
        drawing += [inspect.getsource(f) for f in (found if isinstance(found, tuple) else (found,))]
    records = [RECORDS / name for name in opening.records]
    texts = [path.read_text() if path.exists() else f"missing {path.name}" for path in records]
    return {
        "chapter_cells_sha256": _sha("\n#--\n".join(sources)),
        "drawing_sha256": _sha("\n".join(drawing)),
        "records_sha256": _sha("\n#--\n".join(texts)),
    }


def fresh(opening: Opening) -> tuple[dict, plt.Figure]:
    """The record of a fresh run of ``opening``, and its figure."""
    sources = chapter_cells(opening)
    fig, numbers = opening.draw(run_cells(sources))
    return {**code_sha256(opening, sources), "numbers": numbers, "scale": SCALE}, fig


def stale_parts(recorded: dict, current: dict, *, rtol: float = 1e-6) -> list[str]:
    """What differs between a recorded entry and a fresh one: hashes and scale exactly, numbers within ``rtol`` (when
    ``current`` has numbers: a check without a rerun compares the hashes alone)."""
    found = [key for key in HASHES + ("scale",) if key in current and recorded.get(key) != current[key]]
    if "numbers" not in current:
        return found
    old = recorded.get("numbers") or {}
    if set(old) != set(current["numbers"]):
        found.append("the recorded numbers are not the ones drawn")
    for name, value in current["numbers"].items():
        if name in old and not np.isclose(old[name], value, rtol=rtol, atol=1e-12):
            found.append(f"numbers.{name}")
    return found


def image(opening: Opening) -> Path:
    return FIGURES / f"{opening.chapter}.png"


def caption(opening: Opening) -> str:
    return f"{opening.caption}; the section \u201c{opening.section}\u201d below computes it."


def book_cell_source(opening: Opening) -> str:
    return (
        f"```{{figure}} ../book/figures/opening/{image(opening).name}\n:name: {opening.label}\n:alt: {opening.alt}\n"
        f"\n{caption(opening)}\n```"
    )


def colab_cell_source(opening: Opening) -> str:
    location = sync_setup_cells.course_location(ROOT)
    url = f"https://raw.githubusercontent.com/{location.owner}/{location.name}/{location.ref}/book/figures/opening/"
    return f"![{opening.alt}]({url}{image(opening).name})\n\n*{caption(opening)}*"


def expected_cells(opening: Opening) -> list[nbformat.NotebookNode]:
    """The two cells after the title: the image for Colab (left out of the book), then the book's figure.

    In that order a Colab reader meets the image first and the book's markup, which Colab shows as code, after it.
    """
    return [
        nbformat.v4.new_markdown_cell(colab_cell_source(opening), metadata={"tags": ["remove-cell", COLAB_TAG]}),
        nbformat.v4.new_markdown_cell(book_cell_source(opening), metadata={"tags": [BOOK_TAG]}),
    ]


def _is_opening(cell) -> bool:
    tags = cell.get("metadata", {}).get("tags", [])
    return BOOK_TAG in tags or COLAB_TAG in tags


def cell_problems(opening: Opening) -> list[str]:
    notebook = nbformat.read(chapter_path(opening), as_version=4)
    found = [(cell.source, cell.metadata.get("tags")) for cell in notebook.cells[1:3]]
    wanted = [(cell.source, cell.metadata["tags"]) for cell in expected_cells(opening)]
    if found != wanted:
        return [f"{opening.chapter}: cells 2 and 3 are not the opening figure's cells (run this script)"]
    return []


def write_cells(opening: Opening) -> bool:
    """Put the two opening cells right after the title cell (replacing earlier ones); return whether it changed."""
    path = chapter_path(opening)
    notebook = nbformat.read(path, as_version=4)
    before = [cell.source for cell in notebook.cells]
    kept = [cell for cell in notebook.cells if not _is_opening(cell)]
    new = expected_cells(opening)
    for cell, old in zip(new, [c for c in notebook.cells if _is_opening(c)], strict=False):
        cell["id"] = old.get("id", cell["id"])  # keep the ids: no churn in the diff
    notebook.cells = [kept[0], *new, *kept[1:]]
    if [cell.source for cell in notebook.cells] == before:
        return False
    nbformat.write(notebook, path)
    return True


HASHES = ("chapter_cells_sha256", "drawing_sha256", "records_sha256")
"""What a figure is drawn from, by hash: the chapter's cells, the drawing code, the records it reads."""


def problems(openings=OPENINGS, record_path: Path = RECORD, *, rerun: bool = False) -> list[str]:
    """Why a committed opening figure or its cells are not current (empty when all are).

    Without ``rerun`` a figure is current when the hashes of what it is drawn from (``HASHES``) and of its PNG are
    the recorded ones: the drawing is deterministic, so equal inputs give the recorded figure. With ``rerun`` the
    chapter's cells are run again and the key numbers compared too (what ``--check`` does; minutes on 2 cores).
    """
    if not record_path.exists():
        return [f"{record_path} is missing"]
    recorded = json.loads(record_path.read_text())
    found = []
    for opening in openings:
        png, entry = record_path.parent / image(opening).name, recorded.get(opening.chapter)
        if entry is None or not png.exists():
            found.append(f"{opening.chapter}: no image or no record")
            continue
        if hashlib.sha256(png.read_bytes()).hexdigest() != entry.get("png_sha256"):
            found.append(f"{opening.chapter}: the PNG is not the one its record describes (edited or replaced by hand)")
        if rerun:
            current, fig = fresh(opening)
            plt.close(fig)
        else:
            current = {**code_sha256(opening, chapter_cells(opening)), "scale": SCALE}
        found += [f"{opening.chapter}: {part} differs from a fresh run" for part in stale_parts(entry, current)]
        found += cell_problems(opening)
    return found


def draw(openings=OPENINGS) -> dict:
    """Draw the images, write their record and the chapters' opening cells; return the record."""
    FIGURES.mkdir(parents=True, exist_ok=True)
    record = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    for opening in openings:
        entry, fig = fresh(opening)
        fig.savefig(image(opening), dpi=DPI, metadata={"Software": None})
        plt.close(fig)
        size = image(opening).stat().st_size
        if size > MAX_BYTES:
            raise ValueError(f"{image(opening)} is {size} bytes, more than {MAX_BYTES}")
        entry["png_sha256"] = hashlib.sha256(image(opening).read_bytes()).hexdigest()
        entry["drawn_by"] = "scripts/draw_opening_figures.py"
        record[opening.chapter] = entry
        changed = write_cells(opening)
        print(f"{opening.chapter}: {size / 1000:.0f} kB" + (", cells written" if changed else ""))
    RECORD.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")
    return record


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check that the committed images are current")
    parser.add_argument("--only", nargs="*", default=None, help="chapters (notebook stems) to draw or check")
    args = parser.parse_args()
    known = [o.chapter for o in OPENINGS]
    unknown = sorted(set(args.only or ()) - set(known))
    if unknown:
        parser.error(f"--only names no chapter with an opening figure: {', '.join(unknown)}; allowed: {', '.join(known)}")
    chosen = [o for o in OPENINGS if args.only is None or o.chapter in args.only]
    if args.check:
        found = problems(chosen, rerun=True)
        for problem in found:
            print(problem)
        if found:
            print("the chapters' opening figures are stale: run `python scripts/draw_opening_figures.py` and commit")
            return 1
        print(f"{len(chosen)} opening figures are current")
        return 0
    draw(chosen)
    return 0


if __name__ == "__main__":
    sys.exit(main())
