"""The front page's figure is current: drawn by ``draw_hero_figure.py`` from the package as it is now."""

import importlib.util
import json
import shutil
from pathlib import Path

SPEC = importlib.util.spec_from_file_location("draw_hero_figure", Path(__file__).with_name("draw_hero_figure.py"))
draw_hero_figure = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(draw_hero_figure)


def test_the_committed_hero_figure_is_current():
    found = draw_hero_figure.problems()
    assert not found, "book/figures/hero.png is stale: run `python scripts/draw_hero_figure.py`\n" + "\n".join(found)


def test_a_replaced_image_or_an_edited_record_is_stale(tmp_path):
    figure = tmp_path / "hero.png"
    shutil.copy(draw_hero_figure.FIGURE, figure)
    shutil.copy(draw_hero_figure.record_path(draw_hero_figure.FIGURE), tmp_path / "hero.json")
    figure.write_bytes(figure.read_bytes() + b"\0")
    assert draw_hero_figure.problems(figure) == ["the PNG is not the one its record describes (edited or replaced by hand)"]
    record = json.loads((tmp_path / "hero.json").read_text())
    record["config"]["seed"] = 1
    (tmp_path / "hero.json").write_text(json.dumps(record))
    assert "config differs from a fresh run" in draw_hero_figure.problems(figure)
    (tmp_path / "hero.json").unlink()
    assert draw_hero_figure.problems(figure) == [f"{figure} or {tmp_path / 'hero.json'} is missing"]
