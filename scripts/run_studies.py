"""Run the studies beyond the paper (global vs local, capacity, asymmetric data, negation) and write their records.

    python scripts/run_studies.py --scale fast             # every study at CI scale
    python scripts/run_studies.py --scale full             # every study at full scale
    python scripts/run_studies.py --scale full --only capacity_phase
    python scripts/run_studies.py --scale full --dry-run   # list the studies and whether each record exists

A record that exists with the same settings hash is skipped (resumable); ``--force`` reruns it.
Records go to ``token_selection/records/<name>.<scale>.json`` through ``token_selection.results.write_record``.
"""

from __future__ import annotations

import argparse
import sys
import time

import torch
from tqdm.auto import tqdm

from token_selection.results import read_record, record_path, write_record
from token_selection.studies.registry import STUDIES


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", choices=("fast", "full"), required=True)
    parser.add_argument("--only", nargs="+", choices=sorted(STUDIES), help="run only these studies")
    parser.add_argument("--dry-run", action="store_true", help="list the studies and whether each record exists")
    parser.add_argument("--force", action="store_true", help="rerun even when an up-to-date record exists")
    args = parser.parse_args(argv)
    torch.manual_seed(0)  # the studies seed their own generators; this only pins anything left unseeded
    for name in args.only or list(STUDIES):
        study = STUDIES[name]
        settings = study.settings(args.scale)
        current = read_record(name, args.scale, settings=settings) is not None
        if args.dry_run:
            state = "up to date" if current else ("stale" if record_path(name, args.scale).is_file() else "missing")
            print(f"{name:16s} {args.scale}: {state} ({record_path(name, args.scale)})")
            continue
        if current and not args.force:
            print(f"{name}: record up to date, skipped")
            continue
        start = time.perf_counter()
        metrics = study.run(settings, lambda items, total, name=name: tqdm(items, total=total, desc=name))
        seconds = time.perf_counter() - start
        path = write_record(
            name, args.scale, protocol=study.protocol, settings=settings, metrics=metrics,
            seeds=list(settings["seeds"]), seconds=seconds,
        )  # fmt: skip
        print(f"{name}: wrote {path} in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
