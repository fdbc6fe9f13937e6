"""The chapters' opening figures are current: drawn by ``draw_opening_figures.py`` from the chapters' own cells."""

import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

SPEC = importlib.util.spec_from_file_location("draw_opening_figures", Path(__file__).with_name("draw_opening_figures.py"))
draw_opening_figures = importlib.util.module_from_spec(SPEC)
sys.modules.setdefault("draw_opening_figures", draw_opening_figures)
SPEC.loader.exec_module(draw_opening_figures)


def test_the_committed_opening_figures_are_current():
    found = draw_opening_figures.problems()
    assert not found, "an opening figure is stale: run `python scripts/draw_opening_figures.py`\n" + "\n".join(found)


def test_every_image_is_small_and_every_chapter_opens_with_its_figure():
    for opening in draw_opening_figures.OPENINGS:
        assert draw_opening_figures.image(opening).stat().st_size < draw_opening_figures.MAX_BYTES
        assert draw_opening_figures.cell_problems(opening) == []


def test_a_replaced_image_an_edited_record_or_a_changed_chapter_is_stale(tmp_path, monkeypatch):
    opening = next(o for o in draw_opening_figures.OPENINGS if o.chapter == "01_model")
    record = tmp_path / "openings.json"
    shutil.copy(draw_opening_figures.image(opening), tmp_path / "01_model.png")
    entries = json.loads(draw_opening_figures.RECORD.read_text())
    record.write_text(json.dumps({"01_model": entries["01_model"]}))
    assert draw_opening_figures.problems([opening], record) == []
    png = tmp_path / "01_model.png"
    png.write_bytes(png.read_bytes() + b"\0")
    assert draw_opening_figures.problems([opening], record) == [
        "01_model: the PNG is not the one its record describes (edited or replaced by hand)"
    ]
    assert draw_opening_figures.problems([opening], record, rerun=True) == [
        "01_model: the PNG is not the one its record describes (edited or replaced by hand)"
    ], "a fresh run agrees with the recorded numbers"
    shutil.copy(draw_opening_figures.image(opening), png)
    entry = dict(entries["01_model"], numbers=dict(entries["01_model"]["numbers"], logit_great_at_300=0.9))
    record.write_text(json.dumps({"01_model": entry}))
    assert draw_opening_figures.problems([opening], record, rerun=True) == [
        "01_model: numbers.logit_great_at_300 differs from a fresh run"
    ]
    assert draw_opening_figures.problems([opening], record) == [], "without a rerun the numbers are not compared"
    # a chapter whose cell changes (here: its vocabulary) makes the figure stale
    original = draw_opening_figures.chapter_cells
    monkeypatch.setattr(
        draw_opening_figures,
        "chapter_cells",
        lambda o: [s.replace('"great": [1.0, 1.0,', '"great": [1.0, 0.9,') for s in original(o)],
    )
    record.write_text(json.dumps({"01_model": entries["01_model"]}))
    found = draw_opening_figures.problems([opening], record, rerun=True)
    assert "01_model: chapter_cells_sha256 differs from a fresh run" in found
    assert "01_model: numbers.logit_great_at_300 differs from a fresh run" in found
    assert draw_opening_figures.problems([opening], record) == ["01_model: chapter_cells_sha256 differs from a fresh run"]


def test_a_changed_record_makes_a_figure_that_reads_it_stale(tmp_path, monkeypatch):
    opening = next(o for o in draw_opening_figures.OPENINGS if o.chapter == "06_imdb")
    assert opening.records == ("imdb-one_layer-joint.fast.json",)
    before = draw_opening_figures.code_sha256(opening, ["x = 1"])
    copy = tmp_path / "records"
    copy.mkdir()
    (copy / opening.records[0]).write_text((draw_opening_figures.RECORDS / opening.records[0]).read_text() + " ")
    monkeypatch.setattr(draw_opening_figures, "RECORDS", copy)
    after = draw_opening_figures.code_sha256(opening, ["x = 1"])
    assert after["records_sha256"] != before["records_sha256"]
    assert after["chapter_cells_sha256"] == before["chapter_cells_sha256"]


def test_running_a_chapter_s_cells_leaves_the_scale_glue_and_show_as_they_were(monkeypatch):
    import matplotlib.pyplot as plt

    import token_selection.prose as prose

    monkeypatch.setenv("TOKEN_SELECTION_SCALE", "full")
    glue, show = prose._myst_glue, plt.show
    namespace = draw_opening_figures.run_cells(["import os\nseen = os.environ['TOKEN_SELECTION_SCALE']\nprint('quiet')"])
    assert namespace["seen"] == "fast"
    assert os.environ["TOKEN_SELECTION_SCALE"] == "full"
    assert prose._myst_glue is glue and plt.show is show


def test_a_marker_that_names_no_cell_or_two_is_an_error():
    opening = next(o for o in draw_opening_figures.OPENINGS if o.chapter == "01_model")
    for marker in ("no cell holds this line", "import"):
        bad = draw_opening_figures.Opening(**{**opening.__dict__, "cells": (marker,)})
        try:
            draw_opening_figures.chapter_cells(bad)
        except ValueError as error:
            assert marker in str(error) and "exactly one must" in str(error)
        else:
            raise AssertionError(f"{marker!r} should not pick a cell")


def test_every_caption_names_a_section_its_chapter_has():
    import nbformat

    for opening in draw_opening_figures.OPENINGS:
        chapter = nbformat.read(draw_opening_figures.NOTEBOOKS / f"{opening.chapter}.ipynb", as_version=4)
        headings = {
            line.lstrip("#").strip()
            for cell in chapter.cells
            if cell.cell_type == "markdown"
            for line in cell.source.splitlines()
            if line.startswith("#")
        }
        assert opening.section in headings, f"{opening.chapter}: no section named {opening.section!r}"


def test_only_with_a_name_that_is_no_chapter_is_an_error_naming_it(monkeypatch, capsys):
    # a short name ("04b") is not a notebook stem: it must not draw or check nothing and succeed
    monkeypatch.setattr(sys, "argv", ["draw_opening_figures.py", "--check", "--only", "04b", "01_model"])
    try:
        draw_opening_figures.main()
    except SystemExit as stop:
        assert stop.code == 2
    else:
        raise AssertionError("--only 04b should be refused")
    message = capsys.readouterr().err
    assert "04b" in message.split("allowed:")[0] and "01_model" not in message.split("allowed:")[0]
    assert "04b_numerics" in message.split("allowed:")[1]
