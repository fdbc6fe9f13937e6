"""Mutation testing of the theory modules, the shape rule and the input checks (``make mutation``).

Runs mutmut once per module, each against only the unit tests written for it, in its own
folder ``mutants/<module>/`` (a generated ``pyproject.toml``: the ``[tool.mutmut]`` and
``[tool.pytest.ini_options]`` sections of the project's, with ``only_mutate`` and the test
selection narrowed to that module), then writes ``mutation/summary.md``: per module the
mutants, how many the tests killed (a timeout counts as killed: the mutant made the tests
hang), how many survived, which survivors are judged equivalent (listed with why in
``mutation/equivalent.toml``, matched by function and changed lines, not by mutant number)
and the score ``killed / (mutants - equivalent)``.

    python scripts/mutation.py                            # every module
    python scripts/mutation.py theory/importance.py       # one module; the summary keeps the others' last run
    python scripts/mutation.py --summary-only             # rewrite the summary from the runs in mutants/

Exits 1 when a module scores below ``--threshold`` (default 0.90) or a module was not run.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "mutants"
EQUIVALENT = ROOT / "mutation" / "equivalent.toml"
SUMMARY = ROOT / "mutation" / "summary.md"
PACKAGE = "src/token_selection"
THEORY_TESTS = f"{PACKAGE}/theory/tests"

# Module (under src/token_selection) -> the unit tests that must kill its mutants.
MODULES: dict[str, list[str]] = {
    "validation.py": [f"{PACKAGE}/tests/test_validation.py"],
    "theory/importance.py": [f"{THEORY_TESTS}/test_importance.py"],
    "theory/one_step.py": [f"{THEORY_TESTS}/test_one_step.py"],
    "theory/training.py": [f"{THEORY_TESTS}/test_training.py"],
    "theory/synthetic.py": [f"{THEORY_TESTS}/test_synthetic.py"],
    "theory/multiclass.py": [f"{THEORY_TESTS}/test_multiclass.py"],
    "theory/naive.py": [f"{THEORY_TESTS}/test_naive.py"],
    "theory/shape.py": [f"{THEORY_TESTS}/test_shape.py", f"{THEORY_TESTS}/test_shape_mutants.py"],
    "theory/max_margin.py": [f"{THEORY_TESTS}/test_max_margin.py", f"{THEORY_TESTS}/test_max_margin_mutants.py"],
    "theory/model.py": [f"{THEORY_TESTS}/test_model.py", f"{THEORY_TESTS}/test_model_mutants.py"],
}

# mutmut's exit codes (mutmut.stats.status_by_exit_code): 1 and 3 are test failures, the rest
# listed here are the CPU-time limit or a kill signal, i.e. a mutant that made the tests hang.
KILLED_CODES = {1, 3, 24, -24, 152, 255, 36, -9, -11}
SURVIVED_CODES = {0}


@dataclass
class Mutant:
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
    module: str
    mutants: list[Mutant] = field(default_factory=list)
    equivalent: list[tuple[Mutant, str]] = field(default_factory=list)

    @property
    def killed(self) -> int:
        return sum(m.exit_code in KILLED_CODES for m in self.mutants)

    @property
    def survivors(self) -> list[Mutant]:
        return [m for m in self.mutants if m.exit_code not in KILLED_CODES]

    @property
    def score(self) -> float:
        behaviour_changing = len(self.mutants) - len(self.equivalent)
        return self.killed / behaviour_changing if behaviour_changing else 1.0


def stem(module: str) -> str:
    return module.removesuffix(".py").replace("/", ".")


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


def run_module(module: str, max_children: int) -> None:
    work = write_work_dir(module)
    # one thread per mutant: BLAS threads that spin while waiting would also count as the mutant's CPU time (its timeout)
    threads = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")}
    env = os.environ | threads | {"PYTHONHASHSEED": "0"}
    mutmut = Path(sys.executable).parent / "mutmut"
    print(f"== {module}: mutmut run --max-children {max_children} (tests: {', '.join(MODULES[module])})", flush=True)
    with open(work / "mutmut.log", "w") as log:
        done = subprocess.run(
            [str(mutmut), "run", "--max-children", str(max_children)], cwd=work, env=env, stdout=log, stderr=log
        )
    if done.returncode != 0:
        print((work / "mutmut.log").read_text()[-3000:])
        raise SystemExit(f"{module}: mutmut exited with {done.returncode} (log: {work / 'mutmut.log'})")


def _changed_lines(diff: str) -> tuple[str, str]:
    """The removed and the added lines of a unified diff, each stripped and joined by newlines."""
    lines = diff.splitlines()
    removed = [line[1:].strip() for line in lines if line.startswith("-") and not line.startswith("---")]
    added = [line[1:].strip() for line in lines if line.startswith("+") and not line.startswith("+++")]
    return "\n".join(removed), "\n".join(added)


def collect(module: str, judged: list[dict[str, str]]) -> ModuleResult | None:
    """The last run's verdicts for ``module`` (None when it was not run), survivors with their diffs."""
    work = WORK / stem(module)
    meta = work / "mutants" / PACKAGE / f"{module}.meta"
    if not meta.exists():
        return None
    result = ModuleResult(module)
    exit_codes = json.loads(meta.read_text())["exit_code_by_key"]
    for name, code in sorted(exit_codes.items(), key=lambda item: _natural(item[0])):
        mutant = Mutant(name, code)
        if code not in KILLED_CODES:
            mutant.removed, mutant.added = _changed_lines(_diff(work, name, f"{PACKAGE}/{module}"))
            for entry in judged:
                if (entry["function"], entry["from"].strip(), entry["to"].strip()) == (
                    mutant.function,
                    mutant.removed,
                    mutant.added,
                ):
                    result.equivalent.append((mutant, entry["why"]))
                    entry["matched"] = True
                    break
        result.mutants.append(mutant)
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


def write_summary(results: dict[str, ModuleResult | None], threshold: float, judged: list[dict]) -> bool:
    """Write mutation/summary.md; True when every module was run and meets the threshold."""
    import mutmut

    ok = True
    rows, equivalent, open_survivors = [], [], []
    run_prefixes = tuple(f"token_selection.{stem(m)}." for m, r in results.items() if r is not None)
    stale = [
        f"- `{e['function']}`: `{e['from']}` -> `{e['to']}`"
        for e in judged
        if not e.get("matched") and e["function"].startswith(run_prefixes)
    ]
    for module, result in results.items():
        if result is None:
            rows.append(f"| `{module}` | not run | | | | | |")
            ok = False
            continue
        judged = {m.name for m, _ in result.equivalent}
        passed = result.score >= threshold
        ok &= passed
        rows.append(
            f"| `{module}` | {len(result.mutants)} | {result.killed} | {len(result.survivors)} | {len(result.equivalent)} "
            f"| {result.score:.1%} | {'yes' if passed else '**no**'} |"
        )
        equivalent += [f"- `{m.name}`: `{m.removed}` -> `{m.added}`. {why}" for m, why in result.equivalent]
        open_survivors += [
            f"- `{m.name}` (exit code {m.exit_code}): `{m.removed}` -> `{m.added}`"
            for m in result.survivors
            if m.name not in judged
        ]
    ran = [r for r in results.values() if r is not None]
    total = sum(len(r.mutants) for r in ran)
    killed = sum(r.killed for r in ran)
    judged_total = sum(len(r.equivalent) for r in ran)
    overall = killed / (total - judged_total) if total > judged_total else 1.0
    text = [
        "# Mutation testing",
        "",
        f"Written by `make mutation` (`scripts/mutation.py`, mutmut {mutmut.__version__}); do not edit by hand.",
        "Each module's mutants run against only the unit tests written for it (`MODULES` in the script).",
        "A timeout counts as killed. Score = killed / (mutants - judged equivalent);",
        f"the bar is {threshold:.0%} per module. Equivalent judgments live in `mutation/equivalent.toml`.",
        "",
        "| module | mutants | killed | survived | judged equivalent | score | meets bar |",
        "|---|---:|---:|---:|---:|---:|---|",
        *rows,
        f"| **all** | {total} | {killed} | {total - killed} | {judged_total} | {overall:.1%} | |",
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
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("modules", nargs="*", help=f"modules under {PACKAGE}/ to run (default: all): {', '.join(MODULES)}")
    parser.add_argument("--max-children", type=int, default=2, help="mutants tested in parallel (default 2)")
    parser.add_argument("--threshold", type=float, default=0.90, help="lowest score a module may have (default 0.90)")
    parser.add_argument("--summary-only", action="store_true", help="run nothing; rewrite the summary from mutants/")
    args = parser.parse_args()
    unknown = [m for m in args.modules if m not in MODULES]
    if unknown:
        parser.error(f"unknown module(s) {unknown}; known: {', '.join(MODULES)}")
    if not args.summary_only:
        for module in args.modules or MODULES:
            run_module(module, args.max_children)
    judged = tomllib.loads(EQUIVALENT.read_text()).get("mutant", []) if EQUIVALENT.exists() else []
    results = {module: collect(module, judged) for module in MODULES}
    ok = write_summary(results, args.threshold, judged)
    print(SUMMARY.read_text())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
