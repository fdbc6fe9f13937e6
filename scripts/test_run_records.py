"""``run_records``: the split into parallel groups, and the refusal of a bad job count."""

import importlib.util
from pathlib import Path

import pytest

SPEC = importlib.util.spec_from_file_location("run_records", Path(__file__).with_name("run_records.py"))
run_records = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(run_records)


def totals(groups, costs):
    return [sum(costs[name] for name in group) for group in groups]


def test_groups_hold_every_record_once_and_balance_their_costs():
    costs = {"a": 36.0, "b": 36.0, "c": 30.0, "d": 5.0, "e": 5.0, "f": 5.0, "g": 12.0, "h": 1.0, "i": 3.0}
    groups = run_records.balanced_groups(costs, 3)
    assert sorted(name for group in groups for name in group) == sorted(costs)
    assert len(groups) == 3 and all(groups)
    sums = totals(groups, costs)
    assert max(sums) - min(sums) <= max(costs.values())
    assert groups[0][0] in ("a", "b") and groups[2][0] == "c"  # longest first, ties by name


def test_more_jobs_than_records_gives_one_record_per_group():
    costs = {"x": 2.0, "y": 1.0}
    assert run_records.balanced_groups(costs, 5) == [["x"], ["y"]]
    assert run_records.balanced_groups({}, 3) == []


def test_one_job_keeps_everything_together_longest_first():
    costs = {"small": 1.0, "big": 9.0, "mid": 4.0}
    assert run_records.balanced_groups(costs, 1) == [["big", "mid", "small"]]


def test_the_least_loaded_group_takes_the_next_record():
    # 10 -> g1; 6 -> g2; 5 -> g2 (6 < 10); 4 -> g1 (10 < 11): totals 14 and 11
    groups = run_records.balanced_groups({"p": 10.0, "q": 6.0, "r": 5.0, "s": 4.0}, 2)
    assert groups == [["p", "s"], ["q", "r"]]


@pytest.mark.parametrize("jobs", [0, -1])
def test_a_job_count_below_one_is_refused(jobs):
    with pytest.raises(ValueError, match="jobs must be at least 1"):
        run_records.balanced_groups({"a": 1.0}, jobs)
    with pytest.raises(SystemExit):
        run_records.main(["--scale", "fast", "--jobs", str(jobs), "--dry-run"])


def test_failed_groups_are_reported_with_their_exit_status(monkeypatch, capsys):
    class Finished:
        def __init__(self, code):
            self.code, self.stdout = code, iter([f"line of {code}\n"])

        def wait(self):
            return self.code

    codes = iter([0, 3])
    monkeypatch.setattr(run_records.subprocess, "Popen", lambda *a, **k: Finished(next(codes)))
    assert run_records.run_groups([["a"], ["b", "c"]], "fast", None) == 3
    out = capsys.readouterr().out
    assert "job 2 failed (exit status 3): b c" in out and "job 1 failed" not in out


def test_a_records_cost_is_its_seeds_times_its_kinds_and_its_datasets_costs():
    DATASET_COST, RELATIVE_COST = run_records.DATASET_COST, run_records.RELATIVE_COST
    entries = {(e.name, e.scale): e for e in run_records.catalogue()}

    def cost(name, scale="full"):
        return run_records.entry_cost(entries[name, scale])

    assert cost("imdb-one_layer-joint") == 5 * RELATIVE_COST["one_layer"]
    assert cost("yelp_polarity-two_layer-joint") == 3 * RELATIVE_COST["two_layer"] * DATASET_COST["yelp_polarity"]
    assert cost("yelp_stars-multiclass-joint") == 3 * RELATIVE_COST["multiclass"]
    assert cost("diagnosis-spread_readings") == run_records.DIAGNOSES["diagnosis-spread_readings"].relative_cost("full")
    assert DATASET_COST["imdb"] == 1.0 and 0 < DATASET_COST["yelp_polarity"] < 1
    assert cost("imdb-mlp-joint", "fast") == 1 * RELATIVE_COST["mlp"]
    assert cost("imdb-mlp-joint_converged") == 3 * RELATIVE_COST["mlp"] * run_records.MODE_COST["joint_converged"]
    assert cost("flow_discretisation") == run_records.OTHER_COST["full"]["flow_discretisation"]
    assert cost("report-theory", "fast") == run_records.OTHER_COST["fast"]["report-theory"]


def test_every_record_of_the_catalogue_has_a_cost_at_both_scales():
    costs = [run_records.entry_cost(entry) for entry in run_records.catalogue()]
    assert len(costs) == 2 * 36 and all(c > 0 for c in costs)


def test_the_dry_run_prints_the_estimate_of_what_it_would_run_and_of_everything(capsys):
    assert (
        run_records.main(["--scale", "full", "--dry-run", "--only", "imdb-one_layer-joint", "diagnosis-accuracy_reference"]) == 0
    )
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("estimated time here: ") and " h for all 2 from an empty cache" in last
