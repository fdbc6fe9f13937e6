"""The one runner: write every record the book reads at one scale, from the catalogue (``report.catalogue``).

    python scripts/run_records.py --scale fast                 # `make records`: what CI's chapters read
    python scripts/run_records.py --scale full                 # `make full`: the paper's settings, on the GPU if any
    python scripts/run_records.py --scale full --dry-run       # list every record and whether it is current
    python scripts/run_records.py --scale full --only imdb-one_layer-joint flow_seed_sweep
    python scripts/run_records.py --scale full --jobs 7        # seven groups at once (one GPU holds them all)

Every record has one entry in the catalogue, in one of four groups: a real-data experiment over its preset's seeds
(full: 5 for the paper's model, 3 for the variants; fast: 1), a diagnosis, a study, the report's theory claims.
Resumable: a record whose settings hash is current is skipped, and trained models are checkpointed. Prints an
estimate of the total time before it starts and the time taken at the end. With ``--jobs N`` the records to run are
split into N groups of about equal estimated cost, each run by its own process (``balanced_groups``); their output
is printed line by line, prefixed.
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
from token_selection.real_data.settings import seed_count
from token_selection.report.catalogue import Entry, catalogue, record_state

RELATIVE_COST = {"one_layer": 1.0, "two_layer": 6.0, "key_query": 5.0, "mlp": 2.0, "multiclass": 0.9}
"""Cost of one seed of each kind relative to the one-layer model, on IMDB, for the estimate: its epochs (as the full
records ran them) times an epoch's cost, plus a measurement, both measured alone on 2 CPU cores
(benchmarks/epoch_costs.cpu.md: two-layer 188 s a seed, W_KQ 158 s, MLP 60 s); 4-class: 28 s a seed, its record."""
MODE_COST = {"joint_converged": 3.2}
"""Cost of a mode relative to early stopping (1 where not listed): trained to the end of its 10 epochs, the MLP costs
194 s a seed against 60 s early stopped (benchmarks/epoch_costs.cpu.md)."""
DATASET_COST = {"imdb": 1.0, "yelp_polarity": 0.6, "yelp_stars": 1.0}
"""Cost of a seed on each dataset relative to IMDB: the Yelp stand-in has 0.57 times IMDB's training reviews; the
4-class cost is measured on its own data."""
SECONDS_PER_UNIT = {"fast": {"cpu": 8.0, "cuda": 4.0}, "full": {"cpu": 32.0, "cuda": 12.0}}
"""Seconds of one unit of cost (one seed of the one-layer model on IMDB, tokenising and measuring included),
measured: at the full scale on 2 CPU cores with nothing else running, from an empty cache, 5 seeds took 162 s
(benchmarks/epoch_costs.cpu.md)."""
OTHER_COST = {
    "fast": {"flow_discretisation": 11.4, "flow_seed_sweep": 2.0, "global_local": 0.7, "capacity_phase": 0.9,
             "asymmetric_u": 0.1, "negation": 0.3, "report-theory": 0.6, "random_start": 0.5, "past_floor": 0.3,
             "flow_fixed_tau": 0.5, "flow_long_sequences": 0.5, "flow_small_step": 0.5,
             "fixed_tau_past_floor": 0.1},
    "full": {"flow_discretisation": 38.5, "flow_seed_sweep": 40.8, "global_local": 1.1,
             "capacity_phase": 1.1, "asymmetric_u": 0.1, "negation": 0.3, "report-theory": 0.6, "random_start": 11.3,
             "past_floor": 69.6, "flow_fixed_tau": 45.7, "flow_long_sequences": 46.6,
             "flow_small_step": 27.3, "fixed_tau_past_floor": 1.8},
}  # fmt: skip
"""Cost of each study and of the theory claims in units of that scale: the seconds their records took on 2 CPU cores
over the unit (flow_discretisation: 91 s fast, 1,231 s full; flow_seed_sweep full: 1,304 s alone, where its committed
record was written on a GPU machine, benchmarks/make_full.cpu.md; random_start 361 s full, 5 s fast; past_floor 2,229 s
full beside mutation testing, an upper bound, 6 s fast; flow_fixed_tau 1,462 s full beside other
work, 1 s fast; flow_long_sequences 1,491 s full beside other work, 4 s fast; flow_small_step 872 s full beside other
work, 2 s fast; fixed_tau_past_floor 56 s full beside a book build, under 1 s fast)."""


def entry_cost(entry: Entry) -> float:
    """Estimated cost of writing ``entry`` in units of ``SECONDS_PER_UNIT``: an experiment's seeds times its kind's,
    its mode's and its dataset's relative cost; a diagnosis's own ``relative_cost``; a study's or the theory
    claims' ``OTHER_COST``."""
    if entry.group == "experiment":
        dataset, kind, mode = entry.name.split("-")
        return DATASET_COST[dataset] * RELATIVE_COST[kind] * MODE_COST.get(mode, 1.0) * seed_count(kind, entry.scale)
    if entry.group == "diagnosis":
        return DIAGNOSES[entry.name].relative_cost(entry.scale)
    return OTHER_COST[entry.scale][entry.name]


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
    scale = args.scale
    entries = {entry.name: entry for entry in catalogue((scale,))}
    if args.only and set(args.only) - set(entries):
        sys.exit(f"unknown records {sorted(set(args.only) - set(entries))}; known: {list(entries)}")
    chosen = [entries[name] for name in args.only] if args.only else list(entries.values())  # --only: in its order
    states = {entry.name: record_state(entry) for entry in chosen}
    todo = [entry for entry in chosen if args.rerun or states[entry.name] != "current"]
    device = default_device()
    unit = SECONDS_PER_UNIT[scale]["cuda" if device.type == "cuda" else "cpu"]
    costs = {entry.name: entry_cost(entry) for entry in todo}
    cost = sum(costs.values())
    print(f"{len(chosen)} {scale}-scale records, {len(todo)} to run, on {hardware_name(device)}")
    for entry in chosen:
        print(f"  {entry.name:40s} {entry.group:10s} {states[entry.name]}")
    if args.dry_run:
        everything = sum(entry_cost(entry) for entry in chosen)
        print(f"estimated time here: {cost * unit / 60:.1f} min for the {len(costs)} to run, "
              f"{everything * unit / 3600:.1f} h for all {len(chosen)} from an empty cache")  # fmt: skip
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
    start = time.perf_counter()
    for number, entry in enumerate(todo, start=1):
        print(f"[{number}/{len(todo)}] {entry.name} ({entry.group}), estimated {costs[entry.name] * unit / 60:.1f} min",
              flush=True)  # fmt: skip
        began = time.perf_counter()
        entry.write(not args.quiet, args.max_seeds)
        print(f"  wrote {entry.name}.{scale}.json in {time.perf_counter() - began:.0f} s", flush=True)
    print(f"total time: {(time.perf_counter() - start) / 60:.1f} min (estimated {cost * unit / 60:.1f} min) on "
          f"{hardware_name(device)}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
