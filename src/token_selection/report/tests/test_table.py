import json

import numpy as np
import pytest

from token_selection.report import claims as claims_module
from token_selection.report.claims import CLAIMS
from token_selection.report.converged_arms import CONVERGED, CONVERGED_ONE_STEP
from token_selection.report.flow_rows import FLOW_RECORD
from token_selection.report.measures import accuracy_gap, real_record
from token_selection.report.table import (
    markdown_table,
    outcome,
    paper_cell,
    records_markdown,
    report_frame,
    report_rows,
    rewrite_command,
)
from token_selection.report.theory_claims import RECORD as THEORY
from token_selection.report.verdicts import judge
from token_selection.results import RECORDS_VARIABLE, write_record

from .flow_fixtures import flow_metrics
from .record_layout import seeded_record

SOURCE_TAGS = ("abstract", "discussion", "inferred")


def test_claims_are_unique_tagged_and_cited():
    keys = [claim.key for claim in CLAIMS]
    assert len(keys) == len(set(keys))
    for claim in CLAIMS:
        assert claim.tag in SOURCE_TAGS
        if claim.tag == "abstract":
            assert claim.source == "abstract"
        elif claim.tag == "discussion":
            assert claim.source.startswith(("authors'", "reviewer ")), claim.source  # who said it comes first
        else:
            assert claim.source.startswith("our reading") and "no source states it" in claim.source


def test_the_paper_column_of_the_claims_comes_from_the_sources_numbers():
    text = {claim.key: claim.paper for claim in CLAIMS}
    assert text["trained_accuracy"].startswith("about 95%") and text["frozen_gap"] == "23 points"
    assert text["std_ratio_values"] == "about 8x" and text["std_ratio_scores"] == "about 6x"
    assert "by our rule: U-shaped" in paper_cell(next(c for c in CLAIMS if c.key == "key_query_scores"))


def test_accuracy_gap_interval():
    gap, low, high = accuracy_gap(0.9, 10_000, 0.7, 10_000)
    assert gap == pytest.approx(20.0)
    assert high - gap == pytest.approx(gap - low) == pytest.approx(196 * np.sqrt(0.09 / 1e4 + 0.21 / 1e4))


@pytest.fixture
def records(tmp_path, monkeypatch):
    monkeypatch.setenv(RECORDS_VARIABLE, str(tmp_path))
    return tmp_path


def _curve(shape: str, low: float, high: float, std: float) -> dict:
    return {
        "shape": shape,
        "mean_bin_std": std,
        "verdict": {"shape": shape, "spearman": (low + high) / 2, "spearman_ci": [low, high]},
    }


def test_rows_read_records_and_say_how_to_produce_missing_ones(records):
    joint = seeded_record(
        {
            "test_accuracy": 0.93,  # with the test set's error, [0.919, 0.941]: within 0.05 of the paper's 0.95
            "n_test": 2000,
            "values": _curve("increasing", 0.8, 0.9, 2.0),
            "scores": _curve("U-shaped", -0.1, 0.1, 3.0),
        }
    )
    write_record(real_record("one_layer"), "fast", protocol="joint run", settings={}, metrics=joint)
    frozen = seeded_record({"test_accuracy": 0.7, "n_test": 2000})
    write_record(real_record("one_layer", "frozen_random"), "fast", protocol="frozen run", settings={}, metrics=frozen)
    step = seeded_record({"values": _curve("flat", -0.1, 0.1, 0.25), "scores": _curve("flat", -0.1, 0.1, 1.0)})
    write_record(real_record("one_layer", "one_step_frozen"), "fast", protocol="one step run", settings={}, metrics=step)
    write_record(
        real_record("mlp", "joint_converged"),
        "fast",
        protocol="mlp run",
        settings={},
        metrics=seeded_record({"values": _curve("increasing", 0.5, 0.6, 1.0), "epochs_run": 16}),
    )
    by_key = {claim.key: claim for claim in CLAIMS}
    trained_value = by_key["trained_accuracy"].measure({real_record("one_layer"): joint})
    trained = outcome(by_key["trained_accuracy"], "fast")
    assert trained.verdict == "reproduced" and trained.why == judge(by_key["trained_accuracy"].rule, trained_value)[1]
    assert outcome(by_key["frozen_gap"], "fast").verdict == "reproduced"
    missing_converged = outcome(by_key["std_ratio_values"], "fast")
    assert missing_converged.verdict == "not run" and "diagnosis-converged_joint" in missing_converged.why

    def point(loss: list[float], values: float, scores: float) -> dict:
        return {"train_loss": loss, "test_accuracy": 0.8, "p_norm": 1.0, "shapes": {"values": {"spearman": 0.9}},
                "values": {"raw": values, "scale_free": 0.5}, "scores": {"raw": scores, "scale_free": 0.5}}  # fmt: skip

    fitted, moving = [0.5, 0.2, 0.01], [0.9, 0.5, 0.2]
    # a record without one point per seed is refused by name, not read as one seed
    older = {"joint": {"16": {"values": {"raw": 2.2}}}}
    write_record(CONVERGED, "fast", protocol="converged run", settings={}, metrics=older)
    refused = outcome(by_key["std_ratio_values"], "fast")
    assert refused.verdict == "not run" and "diagnosis-converged_one_step" in refused.why  # missing: named
    one_step = {"seeds": [0], "one_step": {"8": [point(fitted, 1.0, 1.0)], "16": [point(fitted, 0.25, 1.0)],
                                           "32": [point(fitted, 1.0, 1.0)]}}  # fmt: skip
    write_record(CONVERGED_ONE_STEP, "fast", protocol="one step run", settings={}, metrics=one_step)
    refused = outcome(by_key["std_ratio_values"], "fast")
    assert refused.verdict == "not run" and "'seeds'" in refused.why
    # the longest budget where both arms converged is read (16), not a longer one where the joint arm still moves
    converged = {"seeds": [0], "joint": {"8": [point(fitted, 9.0, 9.0)], "16": [point(fitted, 2.2, 3.0)],
                                         "32": [point(moving, 9.0, 9.0)]}}  # fmt: skip
    write_record(CONVERGED, "fast", protocol="converged run", settings={}, metrics=converged)
    values = outcome(by_key["std_ratio_values"], "fast")
    assert values.verdict == "reproduced"  # 2.2 / 0.25 = 8.8, within a factor 1.5 of 8
    assert values.ours.startswith("8.80x (one seed)") and "16 epochs" in values.ours
    assert outcome(by_key["std_ratio_scores"], "fast").verdict == "partly"  # 3x
    assert outcome(by_key["joint_scores"], "fast").verdict == "reproduced"
    assert outcome(by_key["mlp_values"], "fast").verdict == "reproduced"  # [0.5, 0.6] below the 16-epoch run's 0.9
    missing = outcome(by_key["key_query_scores"], "fast")
    assert missing.verdict == "not run" and "make records" in missing.why
    old = outcome(by_key["mlp_scores"], "fast")  # the mlp record has no scores
    assert old.ours == "not measured" and "'scores'" in old.why
    theory = outcome(by_key["one_step_alignment"], "full")
    assert theory.verdict == "not run" and "scripts/run_records.py --scale full --only report-theory" in theory.why
    table = markdown_table(report_frame(report_rows()))
    assert table.count("\n") == len(CLAIMS) + 1 and "ours (fast)" in table and "verdict (full)" in table
    assert "joint run" in records_markdown()
    write_record(real_record("mlp", "joint_converged"), "fast", protocol="V words plus <pad> and <unk>", settings={}, metrics={})
    assert "V words plus &lt;pad&gt; and &lt;unk&gt;" in records_markdown(), "a protocol is text, not HTML"


def test_theory_record_is_read(records):
    metrics = {"one_step": {"corr": 0.95}}
    (records / f"{THEORY}.fast.json").write_text("{}")  # corrupt: read_record needs a version
    assert outcome(next(c for c in CLAIMS if c.key == "one_step_alignment"), "fast").verdict == "not run"
    write_record(THEORY, "fast", protocol="synthetic", settings={}, metrics=metrics)
    by_key = {claim.key: claim for claim in CLAIMS}
    assert outcome(by_key["one_step_alignment"], "fast").verdict == "reproduced"
    assert json.loads((records / f"{THEORY}.fast.json").read_text())["protocol"] == "synthetic"
    assert claims_module.THEORY_RECORD == THEORY


def test_flow_record_is_read_and_a_missing_one_says_how_to_write_it(records):
    by_key = {claim.key: claim for claim in CLAIMS}
    missing = outcome(by_key["global"], "fast")
    assert missing.verdict == "not run" and "make records" in missing.why and FLOW_RECORD in missing.why
    write_record(FLOW_RECORD, "fast", protocol="flow", settings={}, metrics=flow_metrics((5, 5, 2), (3, 3, 3)))
    assert outcome(by_key["selection"], "fast").verdict == "reproduced"  # 5 of 5 select
    assert outcome(by_key["max_margin"], "fast").verdict == "not reproduced"  # 2 of the 5 that select reach p_mm
    assert outcome(by_key["global"], "fast").verdict == "not reproduced"  # 2 of 5 at d = 512 decides
    write_record(FLOW_RECORD, "fast", protocol="flow", settings={}, metrics={"discretisations": ["euler_1"]})
    assert outcome(by_key["global"], "fast").ours == "not measured"  # a record without the sweep's dimensions
    assert rewrite_command(FLOW_RECORD, "full") == f"scripts/run_records.py --scale full --only {FLOW_RECORD} --rerun"


def test_verdict_table_points_unreproduced_rows_to_their_reasons(records):
    from token_selection.report.table import verdict_table, why_list

    metrics = seeded_record({"test_accuracy": 0.5, "n_test": 100})
    write_record(real_record("one_layer"), "fast", protocol="p", settings={}, metrics=metrics)
    by_key = {claim.key: claim for claim in CLAIMS}
    rows = report_frame(report_rows([by_key["trained_accuracy"], by_key["one_step_alignment"]], scales=("fast",)))
    table = verdict_table(rows, "fast")
    assert table.splitlines()[0] == "| # | claim | source | ours | verdict |"
    assert "**not reproduced** (why: 1 below)" in table and "**not run** (why: 2 below)" in table
    reasons = why_list(rows, "fast").splitlines()
    assert reasons[0].startswith("- **Row 1** (not reproduced:") and "*Where the accuracies sit*" in reasons[0]
    assert reasons[1].startswith("- **Row 2** (not run:"), "each reason names its row as the table's 'why: N below' does"


def test_a_record_written_before_a_metric_existed_is_named_with_the_command_that_writes_it_again(records):
    by_key = {claim.key: claim for claim in CLAIMS}
    write_record(real_record("one_layer"), "full", protocol="joint run", settings={}, metrics={"n_test": 2000})
    row = outcome(by_key["trained_accuracy"], "full")
    assert (row.ours, row.verdict, row.protocol) == ("not measured", "not run", "")
    assert row.why == (
        "the full record has no metric 'test_accuracy': it was written by older code. Write it again with: "
        "scripts/run_records.py --scale full --only imdb-one_layer-joint --rerun"
    )
    assert "yet" not in row.why  # the record exists: not "no record yet"


@pytest.mark.parametrize("scale", ["fast", "full"])
def test_the_theory_record_is_written_again_by_its_own_command(scale):
    from token_selection.report.table import rewrite_command

    assert rewrite_command(THEORY, scale) == f"scripts/run_records.py --scale {scale} --only {THEORY} --rerun"
    assert rewrite_command("diagnosis-converged_joint", scale) == (
        f"scripts/run_records.py --scale {scale} --only diagnosis-converged_joint --rerun"
    )


def test_two_missing_records_are_each_named_with_how_to_produce_them(records):
    row = outcome(next(c for c in CLAIMS if c.key == "frozen_gap"), "fast")
    assert (row.ours, row.verdict, row.protocol) == ("not run", "not run", "")
    assert row.why == (
        "No fast-scale record 'imdb-one_layer-joint' yet (token_selection/records/imdb-one_layer-joint.fast.json). "
        "Produce it with: make records (scripts/run_records.py --scale fast); No fast-scale record "
        "'imdb-one_layer-frozen_random' yet (token_selection/records/imdb-one_layer-frozen_random.fast.json). Produce "
        "it with: make records (scripts/run_records.py --scale fast)"
    )


def test_two_records_written_by_older_code_are_each_given_their_command(records):
    for mode in ("joint", "frozen_random"):
        write_record(real_record("one_layer", mode), "fast", protocol="old run", settings={}, metrics={"n_test": 10})
    row = outcome(next(c for c in CLAIMS if c.key == "frozen_gap"), "fast")
    assert row.why.endswith(
        "Write it again with: scripts/run_records.py --scale fast --only imdb-one_layer-joint --rerun; "
        "scripts/run_records.py --scale fast --only imdb-one_layer-frozen_random --rerun"
    )
