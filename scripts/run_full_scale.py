"""Run every full-scale real-data experiment the book shows and write its record (``make full``).

    TOKEN_SELECTION_DATA=../shared/data python scripts/run_full_scale.py            # everything still missing
    python scripts/run_full_scale.py --dry-run                                       # list, with record status
    python scripts/run_full_scale.py --only imdb-one_layer-joint yelp_polarity-mlp-joint

Each experiment is ``run_experiment(kind, mode, real_data_settings("full", dataset))``: the
full preset (d = 2048, every review, 512 tokens), on the GPU when there is one. Resumable: an
experiment whose full-scale record exists with the current settings hash is skipped, and
trained models are checkpointed. The 4-class Yelp experiment needs the Hugging Face hub and
is reported as not run without it.
"""

from __future__ import annotations

import argparse
import sys
import time

from token_selection.machine import machine_description
from token_selection.real_data.pipeline import load_data, record_name, record_settings, run_experiment
from token_selection.real_data.settings import real_data_settings
from token_selection.real_data.yelp_stars import run_yelp_stars
from token_selection.results import read_record

ARMS = (
    ("one_layer", "joint"),
    ("two_layer", "joint"),
    ("key_query", "joint"),
    ("mlp", "joint"),
    ("one_layer", "one_step_frozen"),
    ("one_layer", "frozen_random"),
)
EXPERIMENTS = [(dataset, kind, mode) for dataset in ("imdb", "yelp_polarity") for kind, mode in ARMS]
EXPERIMENTS.append(("yelp_stars", "multiclass", "joint"))
RELATIVE_COST = {"one_layer": 1.0, "two_layer": 12.0, "key_query": 10.0, "mlp": 4.0, "multiclass": 3.0}
"""Rough cost of each kind relative to the one-layer model (measured on 2 CPU cores), for the time estimate."""
SECONDS_PER_UNIT = 120.0
"""Prior for one unit of cost (a full-scale one-layer IMDB run on 2 CPU cores), until a run here measures it."""


def settings_of(dataset: str):
    """The full preset of a dataset (4-class Yelp uses the Yelp preset)."""
    return real_data_settings("full", "yelp_polarity" if dataset == "yelp_stars" else dataset)


def status(dataset: str, kind: str, mode: str) -> str:
    """ "current", "stale" (a record under other settings) or "missing"."""
    name = record_name(dataset, kind, mode)
    if read_record(name, "full", settings=record_settings(kind, mode, settings_of(dataset), dataset)) is not None:
        return "current"
    return "stale" if read_record(name, "full") is not None else "missing"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dry-run", action="store_true", help="list every experiment and its record status; run nothing")
    parser.add_argument("--only", nargs="+", metavar="RECORD", help="run only these records (names as listed by --dry-run)")
    args = parser.parse_args()
    chosen = [e for e in EXPERIMENTS if not args.only or record_name(*e) in args.only]
    if args.only and len(chosen) != len(args.only):
        sys.exit(f"unknown records in {args.only}; known: {[record_name(*e) for e in EXPERIMENTS]}")
    todo = [e for e in chosen if status(*e) != "current"]
    print(f"{len(chosen)} full-scale experiments, {len(todo)} to run, on {machine_description()}")
    for experiment in chosen:
        print(f"  {record_name(*experiment):40s} record: {status(*experiment)}")
    if args.dry_run:
        return
    seconds_per_unit, data = SECONDS_PER_UNIT, {}
    for number, (dataset, kind, mode) in enumerate(todo, start=1):
        remaining = sum(RELATIVE_COST[k] for _, k, _ in todo[number - 1 :]) * seconds_per_unit
        name = record_name(dataset, kind, mode)
        print(f"[{number}/{len(todo)}] {name}; estimated time left {remaining / 60:.0f} min", flush=True)
        start = time.perf_counter()
        if dataset == "yelp_stars":
            try:
                run = run_yelp_stars(settings_of(dataset))
            except ConnectionError as error:
                print(f"  not run: the 4-class experiment needs the Hugging Face hub ({error})")
                continue
        else:
            settings = settings_of(dataset)
            if dataset not in data:
                data[dataset] = load_data(settings)
            run = run_experiment(kind, mode, settings, data=data[dataset])
        print(f"  {run.summary()}", flush=True)
        if not run.loaded:
            seconds_per_unit = (time.perf_counter() - start) / RELATIVE_COST[kind]


if __name__ == "__main__":
    main()
