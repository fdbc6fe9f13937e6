"""scripts/reading_times.py: --check names the chapters whose Time line is off, --write fixes them and keeps the rest."""

from __future__ import annotations

import json
from pathlib import Path

import reading_times

from token_selection import reading_time as rt


def chapter(path: Path, words: int, pen: int, coding: int, time: str) -> Path:
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": f"# A chapter\n\n{time}\nRunning: about 10 s.\n\nMore."},
        {"cell_type": "code", "metadata": {}, "source": "# setup\n" * 40, "outputs": [], "execution_count": None},
        {"cell_type": "markdown", "metadata": {}, "source": "word " * words},
    ]
    for i in range(coding):
        cells.append({"cell_type": "markdown", "metadata": {}, "source": f"```{{exercise}} Code {i}\nWrite it.\n```"})
        stub = {"cell_type": "code", "metadata": {}, "source": "def f():\n    pass", "outputs": [], "execution_count": None}
        cells.append(stub)
    for i in range(pen):
        cells.append({"cell_type": "markdown", "metadata": {}, "source": f"```{{exercise}} Pen {i}\nProve it.\n```"})
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def test_check_fails_on_an_off_line_and_write_fixes_it_keeping_the_running_sentence(tmp_path, capsys):
    # uneven chapters: one long with pen-and-paper exercises only, one short with coding ones only
    long = chapter(tmp_path / "01_long.ipynb", 7321, pen=5, coding=0, time="**Time.** About 45 minutes to read.")
    short = chapter(tmp_path / "02_short.ipynb", 333, pen=0, coding=3, time="**Time.** About 40 minutes to read.")
    assert reading_times.main(["--check", str(long), str(short)]) == 1
    out = capsys.readouterr().out
    assert "01_long.ipynb: Time line states 45 minutes, the formula gives 125" in out  # 7321 / 85 + 5 * 8 = 126.1 -> 125
    assert "02_short" in out  # 333 / 85 + 3 * 10 = 33.9 -> 35
    assert reading_times.main(["--write", str(long), str(short)]) == 0
    assert reading_times.main(["--check", str(long), str(short)]) == 0
    first = json.loads(short.read_text())["cells"][0]["source"]
    first = "".join(first)
    assert "about 35 minutes (formula: " in first and first.endswith("Running: about 10 s.\n\nMore.")
    assert rt.FORMULA_TEXT in first
    capsys.readouterr()
    assert reading_times.main(["--write", str(short)]) == 0 and capsys.readouterr().out == ""  # settled


def test_a_chapter_without_a_time_line_fails(tmp_path, capsys):
    path = chapter(tmp_path / "03_none.ipynb", 100, pen=1, coding=0, time="No time here.")
    assert reading_times.main(["--check", str(path)]) == 1
    assert "no **Time.** paragraph" in capsys.readouterr().out


def test_a_line_already_in_the_formulas_words_is_rewritten_when_the_chapter_changes(tmp_path, capsys):
    written = reading_times.time_line(100).replace("about 100 minutes", "about 100 minutes")
    path = chapter(tmp_path / "01_grown.ipynb", 333, pen=0, coding=3, time=written)  # the formula gives 35
    assert reading_times.main(["--write", str(path)]) == 0
    first = "".join(json.loads(path.read_text())["cells"][0]["source"])
    assert "about 35 minutes (formula: " in first and "about 100" not in first
    assert first.count("**Time.**") == 1 and first.endswith("Running: about 10 s.\n\nMore.")
    assert reading_times.main(["--check", str(path)]) == 0
