"""What the report page prints: commands for missing records, the paper's cell, escaping, and each table's lines."""

from __future__ import annotations

import dataclasses

import pytest

from token_selection.report import table as tb
from token_selection.report.claims import CLAIMS
from token_selection.report.flow_rows import FLOW_RECORD
from token_selection.report.measures import real_record
from token_selection.results import RECORDS_VARIABLE, write_record

from .flow_fixtures import flow_metrics
from .record_layout import seeded_record

BY_KEY = {claim.key: claim for claim in CLAIMS}


@pytest.fixture
def records(tmp_path, monkeypatch):
    monkeypatch.setenv(RECORDS_VARIABLE, str(tmp_path))
    return tmp_path


def test_produce_command_names_the_command_for_each_kind_of_record():
    theory = tb.produce_command("report-theory", "full")
    assert theory.startswith("No full-scale record 'report-theory' yet (token_selection/records/report-theory.full.json)")
    assert theory.endswith("Produce it with: make full (scripts/run_records.py --scale full --only report-theory)")
    shape = "Produce it with: make {} (scripts/run_records.py --scale {} --only diagnosis-shape_budget)"
    assert tb.produce_command("diagnosis-shape_budget", "full").endswith(shape.format("full", "full"))
    assert tb.produce_command("diagnosis-shape_budget", "fast").endswith(shape.format("records", "fast"))
    assert tb.produce_command("flow_seed_sweep", "fast").endswith("--only flow_seed_sweep)"), "a study: the same runner"
    real = tb.produce_command("imdb-one_layer-joint", "fast")
    assert real.startswith("No fast-scale record 'imdb-one_layer-joint' yet") and "Produce it with:" in real


def test_paper_cell_without_a_table_and_without_a_number():
    assert tb.paper_cell(BY_KEY["trained_accuracy"]) == "about 95% (dataset not stated)"
    assert tb.paper_cell(BY_KEY["selection"]) == "no number"
    cell = tb.paper_cell(BY_KEY["key_query_scores"])
    assert cell.startswith("table of 20 bin means; by our rule: U-shaped (arms -") and cell.endswith(")")


def _outcome(ours, verdict, why):
    return tb.Outcome(ours, verdict, why, "protocol")


def test_markdown_table_escapes_pipes_and_line_breaks_and_shows_each_scale():
    claim = dataclasses.replace(BY_KEY["selection"], statement="a | b\nc")
    outcomes = {"fast": _outcome("0.5", "reproduced", "x >= y"), "full": _outcome("not run", "not run", "how")}
    row = tb.ReportRow(claim, "p", outcomes)
    lines = tb.markdown_table(tb.report_frame([row])).splitlines()
    assert lines[0] == "| # | claim | paper | ours (fast) | verdict (fast) | ours (full) | verdict (full) |"
    assert lines[1] == "|---|---|---|---|---|---|---|"
    assert lines[2] == "| 1 | a \\| b c [abstract] | p | 0.5 | **reproduced**: x >= y | not run | not run |"
    assert tb.markdown_table(tb.report_frame([])).splitlines()[0].endswith("| ours (full) | verdict (full) |")


def test_protocols_and_verdict_list_in_full():
    rows = [tb.ReportRow(BY_KEY["selection"], "p", {"full": _outcome("0.999", "reproduced", "ok")}),
            tb.ReportRow(BY_KEY["max_margin"], "p", {"full": _outcome("0.9", "partly", "the mean")})]  # fmt: skip
    protocols = tb.protocols_markdown(rows).splitlines()
    selection = BY_KEY["selection"]
    protocol = selection.protocol[0].upper() + selection.protocol[1:]
    assert protocols[0] == f"1. {protocol}. *Rule:* {selection.rule.describe()}.", "numbered as the table, no identifier"
    assert protocols[1].startswith("2. Among the seeds of the selection row")
    table = tb.verdict_table(tb.report_frame(rows)).splitlines()
    assert table[2].endswith("| 0.999 | **reproduced** |") and table[3].endswith("| 0.9 | **partly** (why: 2 below) |")
    statement = "After p is trained to convergence, the softmax selects the important tokens"
    assert table[2].startswith(f"| 1 | {statement} | [abstract] abstract |")
    several = [rows[0], tb.ReportRow(BY_KEY["several_relevant"], "p", {"full": _outcome("0.9", "partly", "the mean")})]
    assert tb.why_list(tb.report_frame(several)) == "- **Row 2** (partly: the mean).", "no diagnosis speaks to it: nothing after"
    spread = tb.ReportRow(BY_KEY["std_ratio_values"], "p", {"full": _outcome("2x", "partly", "not within")})
    (line,) = tb.why_list(tb.report_frame([spread])).splitlines()
    assert line.startswith("- **Row 1** (partly: not within).") and "*The spread ratios*" in line


def test_records_list_names_each_record_once_with_its_date_and_machine(records):
    write_record(real_record("one_layer"), "fast", protocol="joint run", settings={}, metrics={})
    text = tb.records_markdown([BY_KEY["trained_accuracy"], BY_KEY["joint_scores"]], scales=("fast", "full"))
    lines = text.splitlines()
    assert lines[0] == "- **imdb-one_layer-joint**" and len(lines) == 3
    assert lines[1].startswith("  - fast (") and lines[1].endswith("): joint run")
    assert lines[2].startswith("  - full: No full-scale record 'imdb-one_layer-joint' yet")


def test_a_stale_record_is_shown_as_stale_with_its_command(records, monkeypatch):
    metrics = seeded_record({"test_accuracy": 0.9, "n_test": 1000})
    write_record(real_record("one_layer"), "full", protocol="p", settings={}, metrics=metrics)
    monkeypatch.setattr(tb, "state_of", lambda name, scale: "stale")
    shown = tb.outcome(BY_KEY["trained_accuracy"], "full")
    assert shown.ours.endswith(" (stale: imdb-one_layer-joint from earlier settings; make full replaces it)")
    assert shown.protocol == "p"
    monkeypatch.setattr(tb, "state_of", lambda name, scale: "current")
    assert "stale" not in tb.outcome(BY_KEY["trained_accuracy"], "full").ours
    write_record(real_record("one_layer"), "fast", protocol="p", settings={}, metrics=metrics)
    monkeypatch.setattr(tb, "state_of", lambda name, scale: "stale")
    assert tb.outcome(BY_KEY["trained_accuracy"], "fast").ours.endswith("make records replaces it)")


@pytest.mark.parametrize("scale", ["fast", "full"])
def test_a_flow_record_under_other_settings_is_never_taken_for_current(records, scale):
    """Rows 3-5 count seeds by the course's thresholds and solvers: a record written under others is stale."""
    from token_selection.studies.flow_seed_sweep import flow_sweep_settings

    current = flow_sweep_settings(scale)
    earlier = {**current, "selected_attention": 0.9}
    write_record(FLOW_RECORD, scale, protocol="p", settings=earlier, metrics=flow_metrics((4, 4, 3), (4, 4, 4)))
    for key in ("selection", "max_margin", "global"):
        shown = tb.outcome(BY_KEY[key], scale)
        assert f"(stale: {FLOW_RECORD} from earlier settings;" in shown.ours, key
    write_record(FLOW_RECORD, scale, protocol="p", settings=current, metrics=flow_metrics((4, 4, 4), (4, 4, 4)))
    shown = tb.outcome(BY_KEY["global"], scale)
    assert "stale" not in shown.ours and shown.verdict == "reproduced"


def _rows_with(verdicts: dict[str, str], scale: str = "full") -> list:
    return [tb.ReportRow(BY_KEY[key], "p", {scale: _outcome("x", verdict, "why")}) for key, verdict in verdicts.items()]


def test_verdict_counts_count_the_paper_claims_alone():
    rows = _rows_with({"selection": "partly", "trained_accuracy": "reproduced", "joint_scores": "reproduced",
                       "frozen_gap": "not reproduced", "yelp_stars": "not run", "mlp_scores": "not tested"})  # fmt: skip
    counts = tb.verdict_counts(tb.report_frame(rows), "full")
    assert counts == {"reproduced": 1, "partly": 1, "not reproduced": 1, "not tested": 1, "not run": 1, "claims": 5}, (
        "the inferred row (joint_scores) is ours, not a claim of the paper"
    )
    assert tb.verdict_counts(tb.report_frame(_rows_with({"selection": "reproduced"}, "fast")), "fast")["reproduced"] == 1


def test_a_statement_with_cls_keeps_it_in_both_tables():
    row = tb.ReportRow(BY_KEY["max_margin"], "p", {"full": _outcome("x", "reproduced", "ok")})
    assert "<cls>" in BY_KEY["max_margin"].statement
    for table in (tb.markdown_table(tb.report_frame([row])), tb.verdict_table(tb.report_frame([row]))):
        assert "The trained &lt;cls&gt; embedding p" in table and "<cls>" not in table


def test_the_report_frame_has_one_row_per_claim_and_scale_numbered_in_order():
    first = {"fast": _outcome("1", "reproduced", "ok"), "full": _outcome("0.5", "partly", "m")}
    second = {"fast": _outcome("x", "not run", "how"), "full": _outcome("y", "reproduced", "ok")}
    rows = [tb.ReportRow(BY_KEY["selection"], "p", first), tb.ReportRow(BY_KEY["joint_scores"], "", second)]
    frame = tb.report_frame(rows)
    assert list(frame.columns) == list(tb.REPORT_COLUMNS) and len(frame) == 4
    assert frame["row"].tolist() == [1, 1, 2, 2] and frame["scale"].tolist() == ["fast", "full", "fast", "full"]
    assert frame.loc[3, "key"] == "joint_scores" and frame.loc[3, "tag"] == "inferred" and frame.loc[1, "verdict"] == "partly"
    assert tb.verdict_counts(frame, "full") == {"reproduced": 0, "partly": 1, "not reproduced": 0, "not tested": 0,
                                                 "not run": 0, "claims": 1}  # fmt: skip
    table = tb.markdown_table(frame).splitlines()
    assert table[2].endswith("| 1 | **reproduced**: ok | 0.5 | **partly**: m |") and table[3].endswith(
        "| not run | y | **reproduced**: ok |"
    )
