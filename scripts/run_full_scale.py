"""Compute the course's full-scale numbers for the reproduction report and write them to results/full_scale.json.

    TOKEN_SELECTION_DATA=../shared/data python scripts/run_full_scale.py                  # every part
    python scripts/run_full_scale.py --parts theory imdb:trained,frozen,one_step          # some parts

A part is ``theory`` (the synthetic claims of chapters 3-5, with the longer full-scale
sweeps) or ``<dataset>:<variants>`` with dataset ``imdb`` or ``yelp_polarity`` and variants
from ``token_selection.real_data.ablations.VARIANTS`` (comma-separated; ``all`` for every one). The
real-data parts train at the full scale (every review, the real-data chapters' full
tokenisation, d = 2048): minutes per one-layer model on a GPU, hours on two CPU cores.
Trained models are cached (train-if-missing), and each part is merged into the results file
as soon as it is done, with the machine, the date and the seconds it took; so a run can be
stopped and resumed. Parts never run are absent from the file, and the report shows them as
"not run". The 4-class Yelp experiment needs the Hugging Face hub and is recorded as not run
when the hub cannot be used.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("TOKEN_SELECTION_SCALE", "full")  # before the package reads it

from token_selection.real_data.ablations import VARIANTS, default_settings  # noqa: E402
from token_selection.real_data.yelp_stars import run_yelp_stars  # noqa: E402
from token_selection.report.reproduction import (  # noqa: E402
    read_results,
    real_data_measurements,
    stamp,
    theory_measurements,
    timed,
    write_results,
)
from token_selection.scale import compute_scale  # noqa: E402

DEFAULT_OUTPUT = Path(__file__).resolve().parents[1] / "results" / "full_scale.json"
DATASETS = ("imdb", "yelp_polarity")


def parse_part(part: str) -> tuple[str, tuple[str, ...]]:
    """``theory``, ``yelp_stars`` or ``<dataset>:<variants>`` -> (name, variants)."""
    if part in ("theory", "yelp_stars"):
        return part, ()
    name, _, kinds = part.partition(":")
    if name not in DATASETS:
        raise SystemExit(f"unknown part {part!r}: use theory, yelp_stars or <dataset>:<variants> with dataset in {DATASETS}")
    chosen = VARIANTS if kinds in ("", "all") else tuple(kinds.split(","))
    unknown = sorted(set(chosen) - set(VARIANTS))
    if unknown:
        raise SystemExit(f"unknown variants {unknown} in {part!r}; allowed: {VARIANTS}")
    return name, chosen


def run_part(name: str, kinds: tuple[str, ...]) -> dict:
    """The results entry of one part: its numbers (or why it did not run), machine, date, seconds."""
    if name == "theory":
        values, seconds = timed(theory_measurements)
        return {"values": values, "seconds": seconds, **stamp()}
    if name == "yelp_stars":
        try:
            run, seconds = timed(run_yelp_stars, default_settings(), limit=None)
        except ConnectionError as error:
            return {"not_run": f"needs the Hugging Face hub: {error}", **stamp()}
        import numpy as np
        import torch
        from scipy.stats import spearmanr

        with torch.no_grad():
            values = run.model.token_class_values().double().cpu()
        finite = torch.isfinite(run.importance[:, 0])
        rho = [spearmanr(run.importance[finite, k], values[finite, k])[0] for k in range(values.shape[1])]
        values = {"yelp_stars": float(np.min(rho)), "yelp_stars_accuracy": run.test_accuracy}
        return {"values": values, "seconds": seconds, **stamp()}
    values, seconds = timed(real_data_measurements, name, kinds, progress=True)
    return {"values": values, "kinds": list(kinds), "seconds": seconds, **stamp()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", nargs="+", default=["theory", "yelp_stars", *(f"{name}:all" for name in DATASETS)])
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    args = parser.parse_args()
    if compute_scale() != "full":
        sys.exit(f"this script writes full-scale results; TOKEN_SELECTION_SCALE is {compute_scale()!r}")
    for part in args.parts:
        name, kinds = parse_part(part)
        print(f"{part}: running ...", flush=True)
        entry = run_part(name, kinds)
        results = read_results(args.output) or {}
        previous = results.get(name, {})
        if kinds and "values" in previous and "values" in entry:
            # a later run of other variants of the same dataset adds to the numbers already there
            training = previous["values"].get("seconds_training", 0.0) + entry["values"].get("seconds_training", 0.0)
            entry["values"] = {**previous["values"], **entry["values"], "seconds_training": training}
            entry["kinds"] = sorted(set(previous.get("kinds", [])) | set(entry["kinds"]))
            entry["seconds"] += previous.get("seconds", 0.0)
        results[name] = entry
        write_results(args.output, results)
        print(f"{part}: done ({entry.get('seconds', 0.0):.0f} s) -> {args.output}", flush=True)


if __name__ == "__main__":
    main()
