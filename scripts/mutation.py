"""Mutation testing of every module of the package, each against its own unit tests (``make mutation``).

Runs mutmut once per module, each against only the unit tests written for it (``MODULES``), in
its own folder ``mutants/<module>/`` (a generated ``pyproject.toml``: the ``[tool.mutmut]`` and
``[tool.pytest.ini_options]`` sections of the project's, with ``only_mutate`` and the test
selection narrowed to that module). Each run leaves its result in ``mutation/results/<module>.json``
(mutants, killed, the survivors with their changed lines, the wall time); ``mutation/summary.md``
is written from those files: per module the mutants, how many the tests killed (a timeout counts
as killed: the mutant made the tests hang), how many survived, which survivors are judged
equivalent (listed with why in ``mutation/equivalent.toml``, matched by function and changed
lines, not by mutant number), the score ``killed / (mutants - equivalent)`` and the time.

    python scripts/mutation.py                            # every module (hours on two cores)
    python scripts/mutation.py theory/importance.py       # one module; the summary keeps the others' last result
    python scripts/mutation.py --modules real_data        # the modules under real_data/ (top: the top-level ones)
    python scripts/mutation.py --part 2/4                 # the second of four parts of similar size (CI)
    python scripts/mutation.py --summary-only             # rewrite the summary from mutation/results/

Exits 1 when a module it covers (the selected ones; every module with --summary-only) scores below
``--threshold`` (default 0.90) or has no result.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "mutants"
EQUIVALENT = ROOT / "mutation" / "equivalent.toml"
SUMMARY = ROOT / "mutation" / "summary.md"
RESULTS = ROOT / "mutation" / "results"
PACKAGE = "src/token_selection"


def _tests(folder: str, *names: str) -> list[str]:
    """Test files ``names`` (without ``.py``) in ``src/token_selection/<folder>/tests``."""
    base = f"{PACKAGE}/{folder}/tests" if folder else f"{PACKAGE}/tests"
    return [f"{base}/{name}.py" for name in names]


# Module (under src/token_selection) -> the unit tests that must kill its mutants: the tests written for it,
# next to it. Every module of the package is listed except __init__.py files (re-exports) and _version.py;
# scripts/test_mutation.py checks that none is missing.
MODULES: dict[str, list[str]] = {
    # the package's top level
    "validation.py": _tests("", "test_validation"),
    "results.py": _tests("", "test_results_tables", "test_results"),
    "disk_cache.py": _tests("", "test_disk_cache", "test_disk_cache_mutants"),
    "exercises.py": _tests("", "test_exercises"),
    "scale.py": _tests("", "test_scale"),
    "prose.py": _tests("", "test_prose"),
    "reading_path.py": _tests("", "test_reading_path"),
    "reading_time.py": _tests("", "test_reading_time"),
    "sources.py": _tests("", "test_sources", "test_source_rows"),
    "machine.py": _tests("", "test_machine"),
    "intervals.py": _tests("", "test_intervals", "test_intervals_mutants"),
    "setup_check.py": _tests("", "test_setup_check"),
    # theory
    "theory/importance.py": _tests("theory", "test_importance", "test_devices"),
    "theory/one_step.py": _tests("theory", "test_one_step", "test_devices"),
    "theory/training.py": _tests("theory", "test_training", "test_devices"),
    "theory/synthetic.py": _tests("theory", "test_synthetic"),
    "theory/multiclass.py": _tests("theory", "test_multiclass", "test_devices"),
    "theory/thresholds.py": _tests("theory", "test_thresholds"),
    "theory/naive.py": _tests("theory", "test_naive", "test_devices"),
    "theory/shape.py": _tests("theory", "test_shape", "test_shape_mutants"),
    "theory/shape_effect.py": _tests("theory", "test_shape_effect"),
    "theory/max_margin.py": _tests("theory", "test_max_margin", "test_max_margin_mutants"),
    "theory/model.py": _tests("theory", "test_model", "test_model_mutants", "test_devices"),
    "theory/full_batch.py": _tests("theory", "test_full_batch", "test_devices"),
    "theory/plots.py": _tests("theory", "test_plots"),
    "theory/geometry_plots.py": _tests("theory", "test_geometry_plots"),
    "theory/step_frames.py": _tests("theory", "test_step_frames"),
    "theory/token_plane.py": _tests("theory", "test_token_plane"),
    "theory/exercise_cases.py": _tests("theory", "test_exercises", "test_exercise_cases"),
    "theory/selection_frames.py": _tests("theory", "test_selection_frames"),
    "theory/attention_strips.py": _tests("theory", "test_attention_strips"),
    "theory/turn_angle.py": _tests("theory", "test_turn_angle"),
    "theory/graded_u.py": _tests("theory", "test_graded_u"),
    # real data: the focused tests of each module; the end-to-end runs that train on the toy reviews (test_pipeline,
    # test_trainer, test_yelp_stars) stay in the unit suite but not here, where every surviving mutant would retrain
    "real_data/one_step_direct.py": _tests("real_data", "test_one_step_direct", "test_one_step_direct_record"),
    "real_data/selection_mass.py": _tests("real_data", "test_selection_mass", "test_selection_mass_record"),
    "real_data/settings.py": _tests("real_data", "test_settings"),
    "real_data/arms.py": _tests("real_data", "test_arms"),
    "real_data/registry.py": _tests("real_data", "test_registry", "test_converged_joint"),
    "real_data/reviews.py": _tests("real_data", "test_reviews", "test_reviews_boundaries", "test_stand_in_counts"),
    "real_data/yelp_stars.py": _tests("real_data", "test_yelp_stars_boundaries"),
    "real_data/encoding.py": _tests("real_data", "test_encoding", "test_encoding_boundaries", "test_staleness"),
    "real_data/checkpoints.py": _tests("real_data", "test_checkpoints", "test_checkpoints_boundaries", "test_staleness"),
    "real_data/pipeline.py": _tests("real_data", "test_pipeline_parts", "test_staleness", "test_converged_joint"),
    "real_data/trainer.py": _tests(
        "real_data", "test_trainer_boundaries", "test_trainer_parts", "test_staleness", "test_converged_joint"
    ),
    "real_data/two_layer_model.py": _tests("real_data", "test_two_layer_model"),
    "real_data/attention_variants.py": _tests("real_data", "test_attention_variants"),
    "real_data/measurements.py": _tests("real_data", "test_measurements", "test_measurements_parts"),
    "real_data/figures.py": _tests("real_data", "test_figures", "test_figures_parts"),
    "real_data/exercises.py": _tests("real_data", "test_exercises", "test_exercise_cases"),
    "real_data/diagnoses.py": _tests("real_data", "test_diagnoses", "test_diagnoses_runs"),
    "real_data/converged.py": _tests("real_data", "test_converged_joint", "test_converged_one_step", "test_diagnoses_runs"),
    "real_data/vocabulary_match.py": _tests("real_data", "test_vocabulary_match", "test_vocabulary_match_parts"),
    # the explorer
    "explorer/config.py": _tests("explorer", "test_config", "test_config_boundaries"),
    "explorer/compute.py": _tests("explorer", "test_compute", "test_compute_boundaries"),
    "explorer/notice.py": _tests("explorer", "test_notice"),
    "explorer/result.py": _tests("explorer", "test_notice", "test_compute"),
    "explorer/grid.py": _tests("explorer", "test_grid"),
    "explorer/live.py": _tests("explorer", "test_live"),
    "explorer/panels.py": _tests("explorer", "test_panels"),
    "explorer/static.py": _tests("explorer", "test_static"),
    "explorer/exercises.py": _tests("explorer", "test_exercises"),
    "explorer/step_slider.py": _tests("explorer", "test_step_slider", "test_step_slider_layout"),
    # the report
    "report/binned.py": _tests("report", "test_binned", "test_binned_mutants"),
    "report/measures.py": _tests("report", "test_measures", "test_table", "test_exercise_checks"),
    "report/exercise_checks.py": _tests("report", "test_exercise_checks", "test_exercise_cases"),
    "report/verdicts.py": _tests("report", "test_verdicts"),
    "report/claims.py": _tests("report", "test_table", "test_claims"),
    "report/cells.py": _tests("report", "test_claims"),
    "report/flow_rows.py": _tests("report", "test_flow_rows", "test_claims"),
    "report/table.py": _tests("report", "test_table", "test_table_text"),
    "report/theory_claims.py": _tests("report", "test_theory_claims"),
    "report/catalogue.py": _tests("report", "test_catalogue"),
    "report/producers.py": _tests("report", "test_producers", "test_catalogue"),
    "report/converged_arms.py": _tests("report", "test_converged_arms", "test_table", "test_claims"),
    "report/arm_readings.py": _tests("report", "test_arm_readings"),
    "report/converged_plots.py": _tests("report", "test_converged_plots"),
    "report/shape_readings.py": _tests("report", "test_shape_readings", "test_measures"),
    # the studies
    "studies/intervals.py": _tests("studies", "test_studies", "test_intervals"),
    "studies/miss_odds.py": _tests("studies", "test_miss_odds"),
    "studies/flow_discretisation.py": _tests("studies", "test_flow_discretisation", "test_study_records"),
    "studies/flow_solvers.py": _tests("studies", "test_flow_solvers", "test_flow_discretisation"),
    "studies/flow_seed_sweep.py": _tests("studies", "test_flow_seed_sweep", "test_fixed_tau", "test_long_sequences"),
    "studies/fixed_tau.py": _tests("studies", "test_fixed_tau", "test_long_sequences"),
    "studies/fixed_tau_past_floor.py": _tests("studies", "test_fixed_tau_past_floor"),
    "studies/long_sequences.py": _tests("studies", "test_long_sequences"),
    "studies/small_step.py": _tests("studies", "test_small_step"),
    "studies/random_start.py": _tests("studies", "test_random_start"),
    "studies/past_floor.py": _tests("studies", "test_past_floor"),
    "studies/unit_flow_race.py": _tests("studies", "test_unit_flow_race"),
    "studies/pool.py": _tests("studies", "test_pool"),
    "studies/registry.py": _tests("studies", "test_studies", "test_study_records"),
    "studies/synthetic_variants.py": _tests("studies", "test_synthetic_variants"),
    "studies/global_local.py": _tests("studies", "test_studies", "test_global_local"),
    "studies/capacity.py": _tests("studies", "test_studies", "test_capacity"),
    "studies/asymmetric.py": _tests("studies", "test_studies", "test_asymmetric"),
    "studies/interactions.py": _tests("studies", "test_studies", "test_interactions"),
    "studies/local_optima.py": _tests("studies", "test_studies", "test_local_optima"),
    "studies/exercise_cases.py": _tests("studies", "test_studies", "test_exercise_cases"),
}

# mutmut's exit codes (mutmut.stats.status_by_exit_code): 1 and 3 are test failures, the rest
# listed here are the CPU-time limit or a kill signal, i.e. a mutant that made the tests hang.
KILLED_CODES = {1, 3, 24, -24, 152, 255, 36, -9, -11}


@dataclass
class Mutant:
    """One surviving mutant: its mutmut name, exit code and the lines it changed."""

    name: str
    exit_code: int | None
    removed: str = ""
    added: str = ""

    @property
    def function(self) -> str:
        """The mutated function's key: the mutant name without its ``__mutmut_N`` number."""
        return re.sub(r"__mutmut_\d+$", "", self.name)


@dataclass
class ModuleResult:
    """One module's last run: how many mutants, how many killed, the survivors, the wall time."""

    module: str
    total: int
    killed: int
    survivors: list[Mutant] = field(default_factory=list)
    seconds: float | None = None
    equivalent: list[tuple[Mutant, str]] = field(default_factory=list)

    @property
    def score(self) -> float:
        behaviour_changing = self.total - len(self.equivalent)
        return self.killed / behaviour_changing if behaviour_changing else 1.0

    def to_json(self) -> dict:
        return {
            "module": self.module,
            "mutants": self.total,
            "killed": self.killed,
            "seconds": self.seconds,
            "survivors": [
                {"name": m.name, "exit_code": m.exit_code, "removed": m.removed, "added": m.added} for m in self.survivors
            ],
        }

    @classmethod
    def from_json(cls, data: dict) -> ModuleResult:
        survivors = [Mutant(s["name"], s["exit_code"], s["removed"], s["added"]) for s in data["survivors"]]
        return cls(data["module"], data["mutants"], data["killed"], survivors, data.get("seconds"))


def stem(module: str) -> str:
    """``real_data/arms.py`` -> ``real_data.arms``: the module's name under the package, and its file names here."""
    return module.removesuffix(".py").replace("/", ".")


def group(module: str) -> str:
    """The module's subpackage (``real_data``, ``theory``, ...), or ``top`` for the package's top level."""
    return module.split("/")[0] if "/" in module else "top"


def parts(modules: list[str], count: int) -> list[list[str]]:
    """``modules`` split into ``count`` parts of similar total source size (a proxy for mutants), in ``MODULES`` order.

    Deterministic: the largest module goes first to the lightest part (ties to the lower part number).
    """
    if count < 1:
        raise ValueError(f"the number of parts must be >= 1, got {count}")
    sizes = {m: (ROOT / PACKAGE / m).stat().st_size for m in modules}
    loads, chosen = [0] * count, [[] for _ in range(count)]
    for module in sorted(modules, key=lambda m: (-sizes[m], m)):
        lightest = min(range(count), key=lambda i: (loads[i], i))
        loads[lightest] += sizes[module]
        chosen[lightest].append(module)
    order = {m: i for i, m in enumerate(modules)}
    return [sorted(part, key=order.__getitem__) for part in chosen]


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {value!r} to TOML")


def write_work_dir(module: str) -> Path:
    """A fresh ``mutants/<module>/``: generated pyproject.toml and a link to the project's src/."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]
    mutmut = dict(config["mutmut"])
    mutmut["only_mutate"] = [f"{PACKAGE}/{module}"]
    mutmut["pytest_add_cli_args_test_selection"] = MODULES[module]
    missing = [t for t in MODULES[module] if not (ROOT / t).exists()]
    if missing:
        raise SystemExit(f"{module}: test file(s) {missing} do not exist")
    work = WORK / stem(module)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    (work / "src").symlink_to(ROOT / "src")
    lines = ["[tool.mutmut]"] + [f"{k} = {_toml_value(v)}" for k, v in mutmut.items()]
    lines += ["", "[tool.pytest.ini_options]"] + [f"{k} = {_toml_value(v)}" for k, v in config["pytest"]["ini_options"].items()]
    (work / "pyproject.toml").write_text("\n".join(lines) + "\n")
    return work


def run_module(module: str, max_children: int) -> ModuleResult:
    """Run mutmut on ``module`` and save its result (``mutation/results/<module>.json``)."""
    work = write_work_dir(module)
    # one thread per mutant: BLAS threads that spin while waiting would also count as the mutant's CPU time (its timeout)
    threads = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")}
    env = os.environ | threads | {"PYTHONHASHSEED": "0"}
    mutmut = Path(sys.executable).parent / "mutmut"
    print(f"== {module}: mutmut run --max-children {max_children} (tests: {', '.join(MODULES[module])})", flush=True)
    start = time.perf_counter()
    with open(work / "mutmut.log", "w") as log:
        done = subprocess.run(
            [str(mutmut), "run", "--max-children", str(max_children)], cwd=work, env=env, stdout=log, stderr=log
        )
    seconds = time.perf_counter() - start
    if done.returncode != 0 and not nothing_to_mutate(module):
        print((work / "mutmut.log").read_text()[-3000:])
        raise SystemExit(f"{module}: mutmut exited with {done.returncode} (log: {work / 'mutmut.log'})")
    result = collect(module, seconds)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{stem(module)}.json").write_text(json.dumps(result.to_json(), indent=1) + "\n")
    print(f"   {result.killed} of {result.total} killed, {len(result.survivors)} survived, {seconds:.0f} s", flush=True)
    return result


def nothing_to_mutate(module: str) -> bool:
    """Whether mutmut found no function in ``module`` (constants only): it then stops with exit code 1 and no mutant.

    Such a module's result is 0 mutants (score 1), not a failed run.
    """
    meta = WORK / stem(module) / "mutants" / PACKAGE / f"{module}.meta"
    if not meta.is_file():
        return False
    data = json.loads(meta.read_text())
    return not data["exit_code_by_key"] and not data["hash_by_function_name"]


def _changed_lines(diff: str) -> tuple[str, str]:
    """The removed and the added lines of a unified diff, each stripped and joined by newlines."""
    lines = diff.splitlines()
    removed = [line[1:].strip() for line in lines if line.startswith("-") and not line.startswith("---")]
    added = [line[1:].strip() for line in lines if line.startswith("+") and not line.startswith("+++")]
    return "\n".join(removed), "\n".join(added)


def collect(module: str, seconds: float | None) -> ModuleResult:
    """The verdicts of the run in ``mutants/<module>/``, survivors with their changed lines."""
    work = WORK / stem(module)
    exit_codes = json.loads((work / "mutants" / PACKAGE / f"{module}.meta").read_text())["exit_code_by_key"]
    result = ModuleResult(module, total=len(exit_codes), killed=0, seconds=seconds)
    for name, code in sorted(exit_codes.items(), key=lambda item: _natural(item[0])):
        if code in KILLED_CODES:
            result.killed += 1
        else:
            removed, added = _changed_lines(_diff(work, name, f"{PACKAGE}/{module}"))
            result.survivors.append(Mutant(name, code, removed, added))
    return result


def _diff(work: Path, name: str, path: str) -> str:
    """``mutmut show <name>`` of the run in ``work``, in this process (a subprocess per survivor is slow)."""
    from mutmut.configuration import reset_config
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    cwd = Path.cwd()
    os.chdir(work)
    try:
        reset_config()
        return get_diff_for_mutant(name, path=path)
    finally:
        os.chdir(cwd)


def _natural(name: str) -> tuple[str, int]:
    match = re.search(r"__mutmut_(\d+)$", name)
    return (name[: match.start()], int(match.group(1))) if match else (name, 0)


def load_result(module: str, judged: list[dict]) -> ModuleResult | None:
    """The saved result of ``module`` (None when it has none), its survivors matched against the judgments."""
    path = RESULTS / f"{stem(module)}.json"
    if not path.exists():
        return None
    result = ModuleResult.from_json(json.loads(path.read_text()))
    for mutant in result.survivors:
        for entry in judged:
            if (entry["function"], entry["from"].strip(), entry["to"].strip()) == (mutant.function, mutant.removed, mutant.added):
                result.equivalent.append((mutant, entry["why"]))
                entry["matched"] = True
                break
    return result


def duration(seconds: float | None) -> str:
    """A module's wall time for the summary: ``42 s``, ``17 min``, ``2.3 h``, or ``not timed``."""
    if seconds is None:
        return "not timed"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def write_summary(results: dict[str, ModuleResult | None], threshold: float, judged: list[dict]) -> None:
    """Write mutation/summary.md from every module's saved result."""
    import mutmut

    rows, equivalent, open_survivors = [], [], []
    run_prefixes = tuple(f"token_selection.{stem(m)}." for m, r in results.items() if r is not None)
    stale = [
        f"- `{e['function']}`: `{e['from']}` -> `{e['to']}`"
        for e in judged
        if not e.get("matched") and e["function"].startswith(run_prefixes)
    ]
    for module, result in results.items():
        if result is None:
            rows.append(f"| `{module}` | not run | | | | | | |")
            continue
        names = {m.name for m, _ in result.equivalent}
        rows.append(
            f"| `{module}` | {result.total} | {result.killed} | {len(result.survivors)} | {len(result.equivalent)} "
            f"| {result.score:.1%} | {'yes' if result.score >= threshold else '**no**'} | {duration(result.seconds)} |"
        )
        equivalent += [f"- `{m.name}`: `{m.removed}` -> `{m.added}`. {why}" for m, why in result.equivalent]
        open_survivors += [
            f"- `{m.name}` (exit code {m.exit_code}): `{m.removed}` -> `{m.added}`"
            for m in result.survivors
            if m.name not in names
        ]
    ran = [r for r in results.values() if r is not None]
    total = sum(r.total for r in ran)
    killed = sum(r.killed for r in ran)
    judged_total = sum(len(r.equivalent) for r in ran)
    overall = killed / (total - judged_total) if total > judged_total else 1.0
    timed = [r.seconds for r in ran if r.seconds is not None]
    not_run = [m for m, r in results.items() if r is None]
    text = [
        "# Mutation testing",
        "",
        f"Written by `make mutation` (`scripts/mutation.py`, mutmut {mutmut.__version__}) from `mutation/results/`;",
        "do not edit by hand. Each module's mutants run against only the unit tests written for it (`MODULES` in",
        "the script), one mutant at a time unless `--max-children` says otherwise. A timeout counts as killed.",
        "Score = killed / (mutants - judged equivalent); the bar is "
        f"{threshold:.0%} per module. Equivalent judgments live in `mutation/equivalent.toml`.",
        "Time: the module's wall time (mutmut's test-mapping run included) on the machine that last ran it.",
        "",
        f"{len(ran)} of {len(results)} modules measured ({len(not_run)} without a result: 'not run' below). "
        "'not timed': measured before the script recorded times.",
        "",
        "| module | mutants | killed | survived | judged equivalent | score | meets bar | time |",
        "|---|---:|---:|---:|---:|---:|---|---:|",
        *rows,
        f"| **all measured** | {total} | {killed} | {total - killed} | {judged_total} | {overall:.1%} | "
        f"| {duration(sum(timed)) if timed else ''} |",
        "",
        "## Survivors judged equivalent (no input changes the behaviour the module promises)",
        "",
        *(equivalent or ["None."]),
        "",
        "## Survivors not judged equivalent (tests to strengthen)",
        "",
        *(open_survivors or ["None."]),
        "",
        "## Judgments that matched no survivor (the code or the tests changed: drop or update them)",
        "",
        *(stale or ["None."]),
        "",
    ]
    SUMMARY.parent.mkdir(exist_ok=True)
    SUMMARY.write_text("\n".join(text))


def select(args: argparse.Namespace, parser: argparse.ArgumentParser) -> list[str]:
    """The modules the command line names: positional modules, ``--modules`` groups, then ``--part``."""
    unknown = [m for m in args.modules if m not in MODULES]
    if unknown:
        parser.error(f"unknown module(s) {unknown}; known: {', '.join(MODULES)}")
    groups = sorted({group(m) for m in MODULES})
    if args.groups and not set(args.groups) <= set(groups):
        parser.error(f"unknown group(s) {sorted(set(args.groups) - set(groups))}; known: {', '.join(groups)}")
    chosen = [m for m in MODULES if (not args.modules or m in args.modules) and (not args.groups or group(m) in args.groups)]
    if args.part:
        match = re.fullmatch(r"(\d+)/(\d+)", args.part)
        if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
            parser.error(f"--part must be N/M with 1 <= N <= M, got {args.part!r}")
        chosen = parts(chosen, int(match.group(2)))[int(match.group(1)) - 1]
    return chosen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modules", nargs="*", help=f"modules under {PACKAGE}/ to run (default: all): {', '.join(MODULES)}")
    parser.add_argument(
        "--modules",
        dest="groups",
        action="append",
        default=[],
        metavar="GROUP",
        help="only the modules of this subpackage (real_data, explorer, studies, report, theory, top); repeatable",
    )
    parser.add_argument("--part", help="N/M: only the N-th of M parts of similar size of the selected modules")
    parser.add_argument("--list", action="store_true", help="print the selected modules and their tests; run nothing")
    parser.add_argument("--max-children", type=int, default=1, help="mutants tested in parallel (default 1)")
    parser.add_argument("--threshold", type=float, default=0.90, help="lowest score a module may have (default 0.90)")
    parser.add_argument("--summary-only", action="store_true", help="run nothing; rewrite the summary from mutation/results/")
    args = parser.parse_args()
    chosen = select(args, parser)
    if args.list:
        for module in chosen:
            print(f"{module}: {' '.join(MODULES[module])}")
        return 0
    if not args.summary_only:
        for module in chosen:
            run_module(module, args.max_children)
    judged = tomllib.loads(EQUIVALENT.read_text()).get("mutant", []) if EQUIVALENT.exists() else []
    results = {module: load_result(module, judged) for module in MODULES}
    write_summary(results, args.threshold, judged)
    print(SUMMARY.read_text())
    covered = list(MODULES) if args.summary_only and not (args.modules or args.groups or args.part) else chosen
    failing = [m for m in covered if results[m] is None or results[m].score < args.threshold]
    if failing:
        print(f"below {args.threshold:.0%} or not run: {', '.join(failing)}", file=sys.stderr)
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
