"""Browser test of the static explorer of chapter 5: its sliders redraw the figure, offline.

Uses the fixtures of ``conftest.py``: ``built_site`` (the built HTML root) and
``open_page`` (a page served locally, with every external request blocked).
The explorer is one plotly figure (``div#ch5-explorer``) with one frame per grid point and
four plotly sliders; its ``layout.meta`` names the point shown as ``"delta,d,T,seed"``.
"""

from __future__ import annotations

from test_site import PLOTLY_LABEL_BOXES, overlapping_labels

PAGE = "notebooks/05_explorer.html"
PLOT_ID = "ch5-explorer"
MAX_PAGE_BYTES = 5 * 1024 * 1024
SLIDERS = {"delta": 0, "d": 1, "T": 2, "seed": 3}

STATE = """() => {
  const plot = document.getElementById("ch5-explorer");
  return {
    point: plot.layout.meta,
    panels: ["xaxis", "xaxis2", "xaxis3"].filter((axis) => plot._fullLayout && plot._fullLayout[axis]).length,
    sliders: plot._fullLayout.sliders.map((slider) => slider.active),
    ys: plot.data.map((trace) => Array.from(trace.y || [])),
    texts: Array.from(plot.querySelectorAll(".annotation-text")).map((a) => a.textContent),
  };
}"""


DRAWN = """() => {
  const plot = document.getElementById("ch5-explorer");
  const shown = Array.from(plot.querySelectorAll(".annotation-text")).map((a) => a.textContent);
  const wanted = plot.layout.annotations.filter((a) => a.visible !== false).map((a) => a.text.replace(/<br>/g, ""));
  return shown.length === wanted.length && shown.every((text, i) => text === wanted[i]);
}"""
"""True once the annotations drawn on the page are those of ``layout.meta``'s point (plotly draws lines as tspans)."""


def _open_explorer(open_page):
    page = open_page(PAGE)
    page.wait_for_function(
        "() => { const p = document.getElementById('ch5-explorer'); return p && p._fullLayout && p.data && p.data.length > 0; }"
    )
    page.wait_for_function(DRAWN)
    return page


def _move(page, name: str, where: str) -> None:
    """Click the first or last stop of a slider's rail, as a reader would, and wait for the redraw."""
    before = page.evaluate(STATE)["point"]
    rail = page.query_selector_all(f"#{PLOT_ID} .slider-group")[SLIDERS[name]].query_selector(".slider-rail-touch-rect")
    rail.scroll_into_view_if_needed()  # the mouse only reaches what the viewport shows
    box = rail.bounding_box()
    page.mouse.click(box["x"] + (box["width"] - 3 if where == "max" else 3), box["y"] + box["height"] / 2)
    page.wait_for_function("(before) => document.getElementById('ch5-explorer').layout.meta !== before", arg=before)
    # plotly updates layout.meta before it redraws the annotations: wait until the page shows the new point's text
    page.wait_for_function(DRAWN)


def _overlaps(page) -> list[str]:
    overlaps = overlapping_labels(page.evaluate(PLOTLY_LABEL_BOXES))
    point = page.evaluate(STATE)["point"]
    return [f"static explorer at (delta, d, T, seed) = ({point}): {overlap}" for overlap in overlaps]


def test_static_explorer_sliders_redraw_the_figure_and_no_labels_overlap(built_site, open_page):
    # one page for both (loading it typesets the chapter's math): the sliders' redraws, and the layout at the
    # corners of the grid, as the numbers and the sentence change with the grid point
    assert (built_site / PAGE).is_file(), f"{PAGE} is missing from the built book"
    page = _open_explorer(open_page)
    before = page.evaluate(STATE)
    assert before["panels"] == 3, "the figure should have three panels"
    assert before["point"] == "0,512,8,0", "the explorer should open at the live explorer's defaults"
    assert any("What to notice:" in text for text in before["texts"]), "the sentence should sit under the panels"
    overlaps = _overlaps(page)

    # the seed slider: at the defaults seed 2 reaches p_mm as seed 0 does, with its own values
    _move(page, "seed", "max")
    seeded = page.evaluate(STATE)
    assert seeded["point"] == "0,512,8,2", "the seed slider should move the seed only"
    assert seeded["ys"][0] != before["ys"][0] and seeded["sliders"] == [0, 3, 1, 2]
    overlaps += _overlaps(page)
    _move(page, "seed", "0")

    _move(page, "T", "max")
    after = page.evaluate(STATE)
    assert after["point"] == "0,512,64,0", "the T slider should move T only"
    assert after["ys"][0] != before["ys"][0], "the values of panel 1 should change with T"
    assert after["texts"] != before["texts"], "the numbers and the sentence should follow the setting"
    overlaps += _overlaps(page)

    for name, where in [("d", "0"), ("delta", "max")]:
        _move(page, name, where)
        overlaps += _overlaps(page)
    moved = page.evaluate(STATE)
    assert moved["point"] == "0.5,16,64,0", "each slider should keep the settings of the others"
    assert "no max-margin direction" in moved["texts"], "d = 16 has no p_mm: panel 2 should say so"
    assert moved["sliders"] == [3, 0, 4, 0] and moved["ys"] != after["ys"]

    for name, where in [("T", "0"), ("d", "max"), ("seed", "max")]:
        _move(page, name, where)
        overlaps += _overlaps(page)
    corner = page.evaluate(STATE)
    assert corner["point"] == "0.5,1024,4,2", "the corner of the grid: the largest delta, d and seed, the smallest T"
    assert "no max-margin direction" not in corner["texts"], "the note of d = 16 stays after moving to d = 1024"
    assert not overlaps, "overlapping labels:\n" + "\n".join(overlaps)
    assert not page.external_requests, f"the page tried to leave the machine: {page.external_requests}"


def test_static_explorer_page_weight(built_site):
    page_bytes = (built_site / PAGE).stat().st_size
    assert page_bytes < MAX_PAGE_BYTES, f"{PAGE} weighs {page_bytes / 1e6:.1f} MB, expected < 5 MB"
    # plotly.js is served once for the whole site, from the site itself
    assert (built_site / "_static" / "plotly.min.js").is_file()
