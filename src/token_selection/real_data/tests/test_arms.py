"""The chapters' arms: which they are, their labels, how they run, and their table and notes from fast and full records."""

from __future__ import annotations

import html
import math

import pytest

from token_selection.real_data import arms as arms_module
from token_selection.real_data.arms import (
    CHAPTER_ARMS,
    TABLE_COLUMNS,
    arm_label,
    arms_table,
    markdown_text,
    records_notes,
    run_arms,
)
from token_selection.real_data.pipeline import FAST_COMMAND, FULL_COMMAND
from token_selection.real_data.settings import real_data_settings
from token_selection.results import RECORDS_VARIABLE, read_record, write_record


@pytest.fixture
def records(tmp_path, monkeypatch):
    monkeypatch.setenv(RECORDS_VARIABLE, str(tmp_path))
    return tmp_path


def test_the_chapter_arms_and_columns():
    assert CHAPTER_ARMS == (
        ("one_layer", "joint"),
        ("two_layer", "joint"),
        ("one_layer", "one_step_frozen"),
        ("one_layer", "frozen_random"),
    )
    assert TABLE_COLUMNS == ("test accuracy", "E.v shape", "score shape")


def test_arm_labels_name_the_kind_and_the_mode():
    assert [arm_label(kind, mode) for kind, mode in CHAPTER_ARMS] == [
        "one-layer, joint",
        "two-layer (ours), joint",
        "one-layer, one step, then E frozen",
        "one-layer, E frozen at random",
    ]
    with pytest.raises(KeyError):
        arm_label("lstm", "joint")


def test_run_arms_runs_every_arm_once_on_the_same_data(monkeypatch):
    calls = []

    def fake_run(kind, mode, settings, *, data, progress):
        calls.append((kind, mode, settings, data, progress))
        return f"{kind}/{mode}"

    monkeypatch.setattr(arms_module, "run_experiment", fake_run)
    settings, data = real_data_settings("fast"), object()
    runs = run_arms(settings, data)
    assert runs == {arm: f"{arm[0]}/{arm[1]}" for arm in CHAPTER_ARMS}
    assert [c[:2] for c in calls] == list(CHAPTER_ARMS)
    assert all(c[2] is settings and c[3] is data and c[4] is False for c in calls)
    calls.clear()
    assert list(run_arms(settings, data, (("mlp", "joint"),), progress=True)) == [("mlp", "joint")]
    assert calls[0][4] is True


def test_arms_table_one_row_per_arm_fast_and_full_side_by_side(records):
    write_record("imdb-one_layer-joint", "fast", protocol="p", settings={}, metrics={"test_accuracy": 0.8})
    full = {"test_accuracy": 0.9, "values": {"shape": "U"}}
    write_record("imdb-one_layer-joint", "full", protocol="p", settings={}, metrics=full)
    write_record("yelp_polarity-one_layer-joint", "fast", protocol="p", settings={}, metrics={"test_accuracy": 0.1})
    lines = arms_table("imdb").splitlines()
    assert lines[0] == (
        "| model | record | test accuracy (fast) | test accuracy (full) | E.v shape (fast) | E.v shape (full) "
        "| score shape (fast) | score shape (full) |"
    )
    assert lines[2] == (
        "| one-layer, joint | imdb-one_layer-joint | 80.0 % | 90.0 % | not measured | U | not measured | not measured |"
    )
    assert lines[3].startswith("| two-layer (ours), joint | imdb-two_layer-joint | no record | no record |")
    assert [line.split(" | ")[1] for line in lines[2:]] == [f"imdb-{k}-{m}" for k, m in CHAPTER_ARMS]
    chosen = arms_table("yelp_polarity", arms=(("one_layer", "joint"),), columns=("test accuracy",)).splitlines()
    assert chosen[2] == "| one-layer, joint | yelp_polarity-one_layer-joint | 10.0 % | no record |" and len(chosen) == 3
    # a shape is read with its effect size: a significant rise of Spearman 0.02 reads flat
    faint = {"shape": "increasing", "spearman": 0.02, "spearman_ci": [0.01, 0.03], "left_spearman": math.nan,
             "right_spearman": math.nan, "n_points": 5000}  # fmt: skip
    metrics = {"test_accuracy": 0.9, "values": {"shape": "increasing", "verdict": faint}}
    write_record("imdb-two_layer-joint", "fast", protocol="p", settings={}, metrics=metrics)
    row = arms_table("imdb", arms=(("two_layer", "joint"),), columns=("E.v shape",), scales=("fast",)).splitlines()[2]
    assert row == "| two-layer (ours), joint | imdb-two_layer-joint | flat; by significance alone increasing |"


def test_records_notes_give_full_protocols_and_how_to_make_missing_records(records):
    write_record("imdb-one_layer-joint", "fast", protocol="fast protocol", settings={}, metrics={})
    write_record("imdb-one_layer-joint", "full", protocol="full protocol", settings={}, metrics={})
    write_record("imdb-two_layer-joint", "full", protocol="two-layer protocol", settings={}, metrics={})
    created, created_two = (read_record(f"imdb-{k}-joint", "full")["created"] for k in ("one_layer", "two_layer"))
    notes = records_notes("imdb", arms=CHAPTER_ARMS[:3]).splitlines()
    assert notes == [
        f"- `imdb-one_layer-joint` (full, {created}): full protocol",  # a present fast record adds no line
        "- No fast-scale record 'imdb-two_layer-joint' yet (token_selection/records/imdb-two_layer-joint.fast.json). "
        f"Produce it with: {FAST_COMMAND}",
        f"- `imdb-two_layer-joint` (full, {created_two}): two-layer protocol",
        "- No fast-scale record 'imdb-one_layer-one_step_frozen' yet "
        f"(token_selection/records/imdb-one_layer-one_step_frozen.fast.json). Produce it with: {FAST_COMMAND}",
        "- No full-scale record 'imdb-one_layer-one_step_frozen' yet "
        f"(token_selection/records/imdb-one_layer-one_step_frozen.full.json). Produce it with: {FULL_COMMAND}",
    ]
    assert records_notes("imdb", arms=()) == ""
    assert len(records_notes("yelp_polarity").splitlines()) == 2 * len(CHAPTER_ARMS)  # nothing written for Yelp


PROTOCOL_WITH_MARKUP = "vocabulary V = 7,766 words plus <pad> and <unk> (min_count >= 10); a step of 2 eta*, then `Adam` & [x] $5"


def test_markdown_text_escapes_html_and_markdown_markup():
    escaped = markdown_text(PROTOCOL_WITH_MARKUP)
    assert "<pad>" not in escaped and "&lt;pad&gt; and &lt;unk&gt;" in escaped
    assert "min\\_count &gt;= 10" in escaped and "2 eta\\*," in escaped and "\\`Adam\\` &amp; \\[x\\] \\$5" in escaped
    assert markdown_text("") == "" and markdown_text("plain words, 1.5") == "plain words, 1.5"
    assert markdown_text("a\\b") == "a\\\\b"  # a backslash stays a backslash
    with pytest.raises(TypeError, match="^text must be a str, got NoneType$"):
        markdown_text(None)
    with pytest.raises(TypeError, match="^text must be a str, got int$"):
        markdown_text(7)
    assert markdown_text('"said" it\'s') == '"said" it\'s', "quotes need no escaping in Markdown text"


def test_markdown_text_renders_as_the_text_itself():
    markdown_it = pytest.importorskip("markdown_it")
    renderer = markdown_it.MarkdownIt("commonmark")
    for text in (PROTOCOL_WITH_MARKUP, "*emphasis?* _no_ <b>bold</b> a\\b", "<pad>"):
        assert renderer.render(markdown_text(text)) == f"<p>{html.escape(text, quote=False)}</p>\n"
    # unescaped, the same text reaches the HTML as a tag <pad>, which a browser does not show
    assert "plus <pad> and <unk> (" in renderer.render(PROTOCOL_WITH_MARKUP)


def test_records_notes_escape_the_protocol(records):
    write_record("imdb-one_layer-joint", "full", protocol=PROTOCOL_WITH_MARKUP, settings={}, metrics={})
    created = read_record("imdb-one_layer-joint", "full")["created"]
    notes = records_notes("imdb", arms=CHAPTER_ARMS[:1]).splitlines()
    assert notes[-1] == f"- `imdb-one_layer-joint` (full, {created}): {markdown_text(PROTOCOL_WITH_MARKUP)}"
    assert "&lt;pad&gt; and &lt;unk&gt;" in notes[-1]


def test_an_arms_table_of_one_scale_has_that_scale_s_columns_only(records):
    write_record("imdb-one_layer-joint", "full", protocol="p", settings={}, metrics={"test_accuracy": 0.9})
    header = arms_table("imdb", arms=CHAPTER_ARMS[:1], scales=("full",)).splitlines()[0]
    assert header == "| model | record | test accuracy (full) | E.v shape (full) | score shape (full) |"
    both = arms_table("imdb", arms=CHAPTER_ARMS[:1]).splitlines()[2]
    assert both.count("|") == 9 and "90.0 %" in both  # model, record and three columns at two scales
