"""Run every real-data experiment and diagnosis the book shows at one scale, and write their records.

    python scripts/run_records.py --scale fast                 # `make records`: what CI's chapters read
    python scripts/run_records.py --scale full                 # `make full`: the paper's settings, on the GPU if any
    python scripts/run_records.py --scale full --dry-run       # list every record and whether it is current
    python scripts/run_records.py --scale full --only imdb-one_layer-joint frozen_capacity
    python scripts/run_records.py --scale full --jobs 7           # seven groups at once (one GPU holds them all)

Real-data experiments run through ``pipeline.run_seeds`` over the preset's seeds (full: 5 for the
one-layer model, 3 for the variants; fast: 1). Diagnoses run through ``real_data.diagnoses``.
Resumable: a record whose settings hash is current is skipped, and trained models are
checkpointed. Prints an estimate of the total time before it starts and the time taken at the end.
With ``--jobs N`` the records to run are split into N groups of about equal estimated cost, each
run by its own process (``balanced_groups``); their output is printed line by line, prefixed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import time

from token_selection.machine import default_device
from token_selection.machine import machine_description as hardware_name
from token_selection.real_data.diagnoses import DIAGNOSES
from token_selection.real_data.pipeline import load_data, record_name, record_settings, run_seeds
from token_selection.real_data.settings import seed_count
from token_selection.real_data.yelp_stars import prepare_yelp_stars
from token_selection.report.catalogue import EXPERIMENTS, Entry, preset_of, record_state
from token_selection.results import write_record

RELATIVE_COST = {"one_layer": 1.0, "two_layer": 12.0, "key_query": 10.0, "mlp": 2.5, "multiclass": 0.5}
"""Cost of one seed of each kind relative to the one-layer model, on IMDB, for the estimate. Measured at the full
scale on 2 CPU cores (benchmarks/make_full.cpu.md): the two-layer model's epochs take 87-118 s against about 4 s,
and the W_KQ, MLP and 4-class records took 571, 145 and 28 s a seed against 56."""
MODE_COST = {"joint_converged": 2.0}
"""Cost of a mode relative to early stopping (1 where not listed): trained to the end of its budget, the MLP ran all
10 epochs where early stopping ended after 3 (791 s for 3 seeds on 2 CPU cores, against 434 s)."""
DATASET_COST = {"imdb": 1.0, "yelp_polarity": 0.6, "yelp_stars": 1.0}
"""Cost of a seed on each dataset relative to IMDB: the Yelp stand-in has 12,842 training reviews against IMDB's
22,500 (its two-layer record took 0.63 times the IMDB one's time); the 4-class cost is measured on its own data."""
SECONDS_PER_UNIT = {"fast": {"cpu": 8.0, "cuda": 4.0}, "full": {"cpu": 56.0, "cuda": 12.0}}
"""Seconds of one unit of cost (one seed of the one-layer model on IMDB, tokenising and measuring included),
measured: at the full scale on 2 CPU cores, from an empty cache, 5 seeds took 280 s (benchmarks/make_full.cpu.md)."""


def record_costs(experiments: list[tuple[str, str, str]], diagnoses: list[str], scale: str) -> dict[str, float]:
    """Estimated cost of each record (name: units of ``SECONDS_PER_UNIT``): an experiment's seeds times its kind's,
    its mode's and its dataset's relative cost, a diagnosis's own ``relative_cost``."""
    costs = {
        record_name(*e): DATASET_COST[e[0]] * RELATIVE_COST[e[1]] * MODE_COST.get(e[2], 1.0) * seed_count(e[1], scale)
        for e in experiments
    }
    return costs | {d: DIAGNOSES[d].relative_cost(scale) for d in diagnoses}


def experiment_status(dataset: str, kind: str, mode: str, scale: str) -> str:
    """ "current", "stale" or "missing" (``report.catalogue``)."""
    name = record_name(dataset, kind, mode)
    settings = record_settings(kind, mode, preset_of(dataset, scale), dataset)
    return record_state(Entry(name, scale, lambda: settings, ""))


def diagnosis_status(name: str, scale: str) -> str:
    """The same for a diagnosis."""
    return record_state(Entry(name, scale, lambda: DIAGNOSES[name].settings(scale), ""))


def balanced_groups(costs: dict[str, float], jobs: int) -> list[list[str]]:
    """Split the records of ``costs`` (name: estimated cost) into at most ``jobs`` non-empty groups.

    Longest first, each to the group with the least cost so far (ties: the first such group), so the
    groups' totals differ by at most the cost of one record.
    """
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    groups: list[list[str]] = [[] for _ in range(min(jobs, len(costs)))]
    totals = [0.0] * len(groups)
    for name in sorted(costs, key=lambda n: (-costs[n], n)):
        smallest = totals.index(min(totals))
        groups[smallest].append(name)
        totals[smallest] += costs[name]
    return groups


def _relay(lines, prefix: str) -> None:
    for line in lines:
        print(prefix + line, end="", flush=True)


def run_groups(groups: list[list[str]], scale: str, max_seeds: int | None, rerun: bool = False) -> int:
    """Run each group through this script in its own process; print their lines as they come; 0 if all succeed."""
    processes, relays = [], []
    for number, group in enumerate(groups, start=1):
        command = [sys.executable, __file__, "--scale", scale, "--quiet", *(["--rerun"] if rerun else []), "--only", *group]
        if max_seeds is not None:
            command += ["--max-seeds", str(max_seeds)]
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        prefix = f"[job {number}/{len(groups)}] "
        relay = threading.Thread(target=_relay, args=(process.stdout, prefix), daemon=True)
        relay.start()
        processes.append(process)
        relays.append(relay)
    codes = [process.wait() for process in processes]
    for relay in relays:
        relay.join()
    for number, code in enumerate(codes, start=1):
        if code:
            print(f"job {number} failed (exit status {code}): {' '.join(groups[number - 1])}", flush=True)
    return max(codes, default=0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", choices=("fast", "full"), default="full")
    parser.add_argument("--dry-run", action="store_true", help="list every record and its status; run nothing")
    parser.add_argument("--only", nargs="+", metavar="RECORD", help="run only these records (names as listed by --dry-run)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    parser.add_argument(
        "--max-seeds", type=int, metavar="K", help="at most K seeds per experiment: a partial record, reported as stale"
    )
    parser.add_argument(
        "--rerun",
        action="store_true",
        help="with --only: run the named records even when current (after a change in what a record keeps)",
    )
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="run the records in N processes at once")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, got {args.jobs}")
    if args.rerun and not args.only:
        parser.error("--rerun needs --only: name the records to run again")
    scale, progress = args.scale, not args.quiet
    names = [record_name(*e) for e in EXPERIMENTS] + list(DIAGNOSES)
    if args.only and set(args.only) - set(names):
        sys.exit(f"unknown records {sorted(set(args.only) - set(names))}; known: {names}")
    order = {name: i for i, name in enumerate(args.only or names)}  # --only runs in the order given
    chosen = sorted((e for e in EXPERIMENTS if record_name(*e) in order), key=lambda e: order[record_name(*e)])
    diagnoses = sorted((d for d in DIAGNOSES if d in order), key=order.__getitem__)
    todo = [e for e in chosen if args.rerun or experiment_status(*e, scale) != "current"]
    todo_diagnoses = [d for d in diagnoses if args.rerun or diagnosis_status(d, scale) != "current"]
    device = default_device()
    unit = SECONDS_PER_UNIT[scale]["cuda" if device.type == "cuda" else "cpu"]
    costs = record_costs(todo, todo_diagnoses, scale)
    cost = sum(costs.values())
    print(f"{len(chosen) + len(diagnoses)} {scale}-scale records, {len(todo) + len(todo_diagnoses)} to run, on "
          f"{hardware_name(device)}")  # fmt: skip
    for experiment in chosen:
        print(f"  {record_name(*experiment):40s} {experiment_status(*experiment, scale)}")
    for name in diagnoses:
        print(f"  {name:40s} {diagnosis_status(name, scale)}")
    if args.dry_run:
        everything = sum(record_costs(chosen, diagnoses, scale).values())
        print(f"estimated time here: {cost * unit / 60:.1f} min for the {len(costs)} to run, "
              f"{everything * unit / 3600:.1f} h for all {len(chosen) + len(diagnoses)} from an empty cache")  # fmt: skip
        return 0
    if args.jobs > 1:
        groups = balanced_groups(costs, args.jobs)
        longest = max((sum(costs[n] for n in g) for g in groups), default=0.0)
        print(f"{len(groups)} jobs at once; estimated time if they do not slow each other: {longest * unit / 60:.1f} min",
              flush=True)  # fmt: skip
        start = time.perf_counter()
        code = run_groups(groups, scale, args.max_seeds, args.rerun)
        print(f"total time: {(time.perf_counter() - start) / 60:.1f} min in {len(groups)} jobs on {hardware_name(device)}")
        return code
    print(f"estimated time: {cost * unit / 60:.1f} min", flush=True)
    start, data = time.perf_counter(), {}
    for number, (dataset, kind, mode) in enumerate(todo, start=1):
        name = record_name(dataset, kind, mode)
        count = seed_count(kind, scale) if args.max_seeds is None else min(args.max_seeds, seed_count(kind, scale))
        seeds = list(range(count))
        print(f"[{number}/{len(todo)}] {name}, {count} seeds", flush=True)
        began = time.perf_counter()
        if dataset == "yelp_stars":
            record = run_seeds(kind, mode, preset_of(dataset, scale), progress=progress, seeds=seeds,
                               data_for=lambda s: prepare_yelp_stars(s, progress=progress))  # fmt: skip
        else:

            def data_for(s, dataset=dataset):
                key = (dataset, s.seed)
                if key not in data:
                    data[key] = load_data(s, progress=progress)
                return data[key]

            record = run_seeds(kind, mode, preset_of(dataset, scale), progress=progress, seeds=seeds, data_for=data_for)
        accuracy = record["metrics"]["seed_summary"]["test_accuracy"]
        print(f"  test accuracy {100 * accuracy['value']:.1f} % [{100 * accuracy['low']:.1f}, {100 * accuracy['high']:.1f}] "
              f"over {accuracy['n']} seeds; {time.perf_counter() - began:.0f} s", flush=True)  # fmt: skip
    for name in todo_diagnoses:
        diagnosis = DIAGNOSES[name]
        settings = diagnosis.settings(scale)
        print(f"[diagnosis] {name}", flush=True)
        began = time.perf_counter()
        metrics = diagnosis.run(settings, progress=progress)
        seconds = time.perf_counter() - began
        write_record(name, scale, protocol=diagnosis.protocol(settings), settings=settings, metrics=metrics,
                     seeds=list(settings.get("seeds", [0])), seconds=seconds)  # fmt: skip
        print(f"  wrote {name}.{scale}.json in {seconds:.0f} s", flush=True)
    print(f"total time: {(time.perf_counter() - start) / 60:.1f} min (estimated {cost * unit / 60:.1f} min) on "
          f"{hardware_name(device)}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
