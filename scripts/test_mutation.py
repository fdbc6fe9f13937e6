"""The mutation run covers every module of the package, each with test files that exist; its parts split the modules."""

from __future__ import annotations

import json

import pytest

from mutation import MODULES, PACKAGE, ROOT, ModuleResult, Mutant, duration, group, load_result, nothing_to_mutate, parts, stem

SKIPPED = {"__init__.py", "_version.py"}
"""Files without behaviour to mutate: re-exports and the version string."""


def test_every_module_of_the_package_is_mutated_against_existing_tests_of_its_own():
    package = ROOT / PACKAGE
    modules = {
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if path.name not in SKIPPED and "tests" not in path.relative_to(package).parts
    }
    assert modules == set(MODULES), f"not listed: {sorted(modules - set(MODULES))}; gone: {sorted(set(MODULES) - modules)}"
    for module, tests in MODULES.items():
        assert tests, module
        for test in tests:
            assert (ROOT / test).is_file(), f"{module}: {test} does not exist"
            folder = module.rsplit("/", 1)[0] if "/" in module else ""
            assert test.startswith(f"{PACKAGE}/{folder}/tests/".replace("//", "/")), f"{module}: {test} is not next to it"


@pytest.mark.parametrize("count", [1, 2, 3, 4, 7])
def test_parts_split_the_modules_once_each_in_order(count):
    modules = list(MODULES)
    split = parts(modules, count)
    assert len(split) == count
    assert sorted(m for part in split for m in part) == sorted(modules)
    for part in split:
        assert part == [m for m in modules if m in part]  # MODULES order kept within a part
    assert parts(modules, count) == split  # deterministic
    with pytest.raises(ValueError, match=">= 1"):
        parts(modules, 0)


def test_groups_and_stems():
    assert group("results.py") == "top" and group("real_data/arms.py") == "real_data"
    assert stem("real_data/arms.py") == "real_data.arms" and stem("scale.py") == "scale"
    assert {group(m) for m in MODULES} == {"top", "theory", "real_data", "explorer", "report", "studies"}


def test_durations_read_in_the_summary():
    assert [duration(s) for s in (None, 0.4, 119, 120, 7199, 7200)] == ["not timed", "0 s", "119 s", "2 min", "120 min", "2.0 h"]


def test_a_saved_result_round_trips_and_meets_its_judgments(tmp_path, monkeypatch):
    import mutation

    monkeypatch.setattr(mutation, "RESULTS", tmp_path)
    survivor = Mutant("token_selection.scale.x_by_scale__mutmut_3", 0, "return a", "return b")
    other = Mutant("token_selection.scale.x_by_scale__mutmut_4", 0, "return a", "return c")
    result = ModuleResult("scale.py", total=10, killed=8, survivors=[survivor, other], seconds=12.5)
    (tmp_path / "scale.json").write_text(json.dumps(result.to_json()))
    judged = [{"function": "token_selection.scale.x_by_scale", "from": "return a", "to": "return b", "why": "same"}]
    loaded = load_result("scale.py", judged)
    assert (loaded.total, loaded.killed, loaded.seconds) == (10, 8, 12.5)
    assert [m.name for m, _ in loaded.equivalent] == [survivor.name] and judged[0]["matched"]
    assert loaded.score == pytest.approx(8 / 9)
    assert load_result("prose.py", judged) is None


def test_a_module_of_constants_only_has_nothing_to_mutate(tmp_path, monkeypatch):
    import mutation

    monkeypatch.setattr(mutation, "WORK", tmp_path)
    assert not nothing_to_mutate("theory/thresholds.py")  # no run yet: not "nothing"
    meta = tmp_path / "theory.thresholds" / "mutants" / PACKAGE / "theory/thresholds.py.meta"
    meta.parent.mkdir(parents=True)
    meta.write_text(json.dumps({"exit_code_by_key": {}, "hash_by_function_name": {}}))
    assert nothing_to_mutate("theory/thresholds.py")
    meta.write_text(json.dumps({"exit_code_by_key": {}, "hash_by_function_name": {"x_f": "abc"}}))
    assert not nothing_to_mutate("theory/thresholds.py")  # functions, but no test ran them: a failed run
    meta.write_text(json.dumps({"exit_code_by_key": {"x_f__mutmut_1": None}, "hash_by_function_name": {}}))
    assert not nothing_to_mutate("theory/thresholds.py")


def test_each_survivor_is_judged_at_most_once():
    """Two judgments of one survivor (same function and changed lines) would leave one listed as matching nothing."""
    import tomllib

    import mutation

    judged = tomllib.loads(mutation.EQUIVALENT.read_text())["mutant"]
    keys = [(entry["function"], entry["from"], entry["to"]) for entry in judged]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    assert not repeated, f"judged more than once: {repeated[:3]}"
    assert all(entry["why"].strip() for entry in judged), "every judgment says why"
