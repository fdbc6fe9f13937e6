"""What one epoch of each real-data model costs at the full preset on this machine, and what a record costs.

    python benchmarks/epoch_costs.py            # writes benchmarks/epoch_costs.cpu.md (or .cuda.md on a GPU)

Run it with nothing else on the machine. For each kind of model on IMDB at the full preset (d = 2048, the rebuttal's
vocabulary, reviews of 512 tokens) it trains one epoch from the seed-0 draw through the course's own trainer
(validation included) and times it; the one-step arm's epoch trains p and v alone. It times one measurement of a
trained model (``binary_metrics`` with the full preset's resamples) and one load of the tokenised reviews. A record's
cost is then its seeds' epochs (as its committed full record ran them) times the epoch's cost, plus one measurement
and one load per seed; the Yelp stand-in's epochs are shorter by its share of training reviews. The estimate of
``scripts/run_records.py`` is checked against these numbers (``RELATIVE_COST``, in units of a one-layer IMDB seed).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import torch

from token_selection.machine import default_device, machine_description
from token_selection.real_data.measurements import binary_metrics
from token_selection.real_data.pipeline import load_data
from token_selection.real_data.registry import build_model
from token_selection.real_data.settings import real_data_settings
from token_selection.real_data.trainer import train_model
from token_selection.results import read_record

HERE = Path(__file__).resolve().parent
KINDS = ("one_layer", "two_layer", "key_query", "mlp")
ARMS = (("one_layer", "joint"), ("one_layer", "one_step_frozen"), ("one_layer", "frozen_random"), ("two_layer", "joint"),
        ("key_query", "joint"), ("mlp", "joint"), ("mlp", "joint_converged"))  # fmt: skip


def epoch_seconds(kind: str, data, settings, *, train_embeddings: bool = True) -> float:
    model = build_model(kind, data.vocab_size, settings.d, seed=0)
    lr = settings.lr if train_embeddings else settings.frozen_lr
    history = train_model(model, data.train, data.validation, epochs=1, lr=lr, batch_size=settings.batch_size,
                          train_embeddings=train_embeddings, progress=False)  # fmt: skip
    return history.epoch_seconds[0]


def main() -> int:
    device = default_device()
    settings = real_data_settings("full", "imdb")
    start = time.perf_counter()
    data = load_data(settings, progress=False)
    load = time.perf_counter() - start
    costs = {kind: epoch_seconds(kind, data, settings) for kind in KINDS}
    costs["one_layer, E frozen"] = epoch_seconds("one_layer", data, settings, train_embeddings=False)
    model = build_model("one_layer", data.vocab_size, settings.d, seed=0)
    start = time.perf_counter()
    binary_metrics(model, data, min_count=settings.importance_min_count, n_boot=settings.n_boot, seed=0)
    measure = time.perf_counter() - start
    yelp = real_data_settings("full", "yelp_polarity")
    yelp_share = len(load_data(yelp, progress=False).train) / len(data.train)
    lines = [
        f"# One epoch of each model at the full preset: {machine_description(device)}",
        "",
        "Measured by `benchmarks/epoch_costs.py` with nothing else running (IMDB, d = 2048, the rebuttal's vocabulary,",
        f"reviews of {settings.T} tokens, batches of {settings.batch_size}; validation included).",
        "",
        "| model | one epoch (s) |",
        "|---|---|",
        *[f"| {kind} | {seconds:.1f} |" for kind, seconds in costs.items()],
        "",
        f"One measurement of a trained model (`binary_metrics`, {settings.n_boot} resamples): {measure:.1f} s. "
        f"Loading the tokenised reviews from the cache: {load:.1f} s. The Yelp stand-in's epochs are "
        f"{yelp_share:.2f} of IMDB's (its share of training reviews).",
        "",
        "Each full record of a real-data experiment, from its committed epochs (seeds x epochs x the epoch's cost,",
        "plus a measurement and a load per seed):",
        "",
        "| record | seeds | epochs run | estimated (min) | recorded (min) |",
        "|---|---|---|---|---|",
    ]
    unit = None
    for dataset in ("imdb", "yelp_polarity"):
        share = 1.0 if dataset == "imdb" else yelp_share
        for kind, mode in ARMS:
            record = read_record(f"{dataset}-{kind}-{mode}", "full")
            if record is None:
                continue
            epochs = [int(e) for e in record["metrics"]["per_seed"]["epochs_run"]]
            epoch = costs["one_layer, E frozen"] if mode != "joint" and kind == "one_layer" else costs[kind]
            seconds = sum(epochs) * epoch * share + len(epochs) * (measure + load)
            if (dataset, kind, mode) == ("imdb", "one_layer", "joint"):
                unit = seconds / len(epochs)
            lines.append(f"| {dataset}-{kind}-{mode} | {len(epochs)} | {sum(epochs)} | {seconds / 60:.1f} | "
                         f"{(record['seconds'] or 0) / 60:.1f} |")  # fmt: skip
    lines += ["", f"One seed of the one-layer IMDB model (the estimate's unit): {unit:.0f} s.", ""]
    out = HERE / f"epoch_costs.{'cuda' if device.type == 'cuda' else 'cpu'}.md"
    out.write_text("\n".join(lines))
    print("\n".join(lines))
    (HERE / f"epoch_costs.{'cuda' if device.type == 'cuda' else 'cpu'}.json").write_text(
        json.dumps(
            {
                "epoch_seconds": costs,
                "measure_seconds": measure,
                "load_seconds": load,
                "yelp_share": yelp_share,
                "unit_seconds": unit,
                "machine": machine_description(device),
                "torch": torch.__version__,
            },
            indent=1,
        )  # fmt: skip
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
