"""Browser test of the static explorer of chapter 5: its sliders redraw the figure, offline.

Uses the fixtures of ``conftest.py``: ``built_site`` (the built HTML root) and
``open_page`` (a page served locally, with every external request blocked).
"""

from __future__ import annotations

PAGE = "notebooks/05_explorer.html"
ROOT_ID = "ch5-explorer"
MAX_PAGE_BYTES = 5 * 1024 * 1024

STATE = """() => {
  const root = document.getElementById("ch5-explorer");
  const plot = document.getElementById("ch5-explorer-plot");
  return {
    point: root.getAttribute("data-point"),
    error: root.getAttribute("data-error"),
    panels: ["xaxis", "xaxis2", "xaxis3"].filter((axis) => plot._fullLayout && plot._fullLayout[axis]).length,
    ys: plot.data.map((trace) => Array.from(trace.y || [])),
    notice: document.getElementById("ch5-explorer-notice").textContent,
  };
}"""

MOVE = """([name, where]) => {
  const slider = document.getElementById("ch5-explorer-" + name);
  slider.value = where === "max" ? slider.max : where;
  slider.dispatchEvent(new Event("input", {bubbles: true}));
  slider.dispatchEvent(new Event("change", {bubbles: true}));
  return document.getElementById("ch5-explorer-" + name + "-value").textContent;
}"""


def _open_explorer(open_page):
    page = open_page(PAGE)
    page.wait_for_function(
        "() => { const p = document.getElementById('ch5-explorer-plot'); return p && p.data && p.data.length > 0; }"
    )
    return page


def test_static_explorer_slider_redraws_the_figure(built_site, open_page):
    assert (built_site / PAGE).is_file(), f"{PAGE} is missing from the built book"
    page = _open_explorer(open_page)
    before = page.evaluate(STATE)
    assert before["error"] is None, f"the explorer script failed: {before['error']}"
    assert before["panels"] == 3, "the figure should have three panels"
    assert before["point"] == "0,512,8", "the explorer should open at the live explorer's defaults"
    assert before["notice"].startswith("What to notice:")

    shown = page.evaluate(MOVE, ["T", "max"])
    after = page.evaluate(STATE)
    assert after["error"] is None, f"the explorer script failed: {after['error']}"
    assert after["point"] == f"0,512,{shown}" != before["point"]
    assert after["ys"][0] != before["ys"][0], "the values of panel 1 should change with T"
    assert after["ys"] != before["ys"] and after["notice"] != before["notice"]

    page.evaluate(MOVE, ["delta", "max"])
    moved = page.evaluate(STATE)
    assert moved["error"] is None and moved["point"] != after["point"]
    assert moved["ys"] != after["ys"], "the figure should change with delta"

    assert not page.external_requests, f"the page tried to leave the machine: {page.external_requests}"


def test_static_explorer_page_weight(built_site):
    page_bytes = (built_site / PAGE).stat().st_size
    assert page_bytes < MAX_PAGE_BYTES, f"{PAGE} weighs {page_bytes / 1e6:.1f} MB, expected < 5 MB"
    # plotly.js is served once for the whole site, from the site itself
    assert (built_site / "_static" / "plotly.min.js").is_file()
