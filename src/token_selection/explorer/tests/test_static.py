"""Tests of the static explorer: frames for every point, sliders that compose, and where plotly.js comes from."""

from __future__ import annotations

import sys
import textwrap
import types

import pytest
from matplotlib.colors import to_hex

from token_selection.explorer.config import DEFAULT_CONFIG
from token_selection.explorer.static import (
    BOOK_PLOTLYJS,
    ELEMENT_ID,
    EXPLORER_ALT,
    GREEN,
    HEIGHT,
    LINE_CHARACTERS,
    PANEL_CENTERS,
    PANEL_TITLES,
    PLOT_BOTTOM,
    PLOT_TOP,
    SLIDER_PREFIX,
    StaticExplorer,
    _layout,
    _numbers,
    _slider_characters,
    _span,
    _traces,
    frame_name,
    point_state,
    static_explorer,
    static_figure,
    static_html,
)
from token_selection.theory.plots import CLASS_COLORS, CLASS_LABELS


def check_frames(figure, grid: dict, names: list[str], start: str) -> None:
    """One frame per grid point, named after it, each with every trace; the first frame draws its point's values."""
    assert [frame.name for frame in figure.frames] == [frame_name(*point_state(p)) for p in grid["points"]] == names
    assert all(len(frame.data) == len(figure.data) == 11 for frame in figure.frames)
    assert figure.layout.meta == start
    # the frame of a point draws that point's values after one step, one marker per token
    drawn = [y for trace in figure.frames[0].data[:3] for y in trace.y]
    assert sorted(drawn) == sorted(grid["points"][0]["ev"]) and len(drawn) == len(grid["token_class"])


def test_one_frame_per_grid_point_with_every_trace(hand_figure, hand_grid):
    figure = hand_figure
    check_frames(figure, hand_grid, ["0.1,64,4,0", "0.1,64,4,2", "0.1,64,8,0", "0.1,64,8,2"], "0.1,64,8,0")
    # and the figure starts with the start's (T = 8, seed 0, the third point), not with the other seed's
    assert [t.name for t in figure.frames[0].data][3:5] == ["fit: slope 2.5", "predicted slope 3"]
    assert [list(t.y) for t in figure.data] == [list(t.y) for t in figure.frames[2].data]
    assert [list(t.y) for t in figure.data] != [list(t.y) for t in figure.frames[3].data]


def test_each_slider_step_changes_its_own_setting_only(hand_figure):
    figure = hand_figure
    for frame in figure.frames:
        here = frame.name.split(",")
        for k, slider in enumerate(frame.layout.sliders):
            assert list(slider.steps[slider.active].args[0]) == [frame.name]  # each slider shows where the figure is
            for step in slider.steps:
                there = step.args[0][0].split(",")
                assert [a for i, a in enumerate(there) if i != k] == [a for i, a in enumerate(here) if i != k]


def test_panel_titles_sit_over_their_panels(hand_figure):
    figure = hand_figure
    titles = [a for a in figure.layout.annotations if a.text.split("<br>")[0] in PANEL_TITLES]
    assert [a.text for a in titles] == [*PANEL_TITLES[:2], "3. final scores<br>both classes on top"]
    for title, axis in zip(titles, ("xaxis", "xaxis2", "xaxis3"), strict=True):
        lo, hi = figure.layout[axis].domain
        assert title.x == pytest.approx((lo + hi) / 2, abs=1e-9)
        # the gap between panels (0.1 of the width, ~100 px on a book page) needs title lines under ~30 characters
        assert all(len(line) <= 30 for line in title.text.split("<br>"))
    assert all(figure.layout[axis].automargin for axis in ("xaxis", "yaxis", "yaxis2", "yaxis3"))


def test_html_loads_plotly_from_the_book_or_from_colab(hand_grid, monkeypatch):
    bundle = static_explorer(hand_grid, start=(0.1, 64, 4, 2))._repr_mimebundle_()
    assert f'src="{BOOK_PLOTLYJS}"' in bundle["text/html"] and f'id="{ELEMENT_ID}"' in bundle["text/html"]
    assert "cdn.plot.ly" not in bundle["text/html"]
    assert len(bundle["application/vnd.plotly.v1+json"]["frames"]) == 4
    assert bundle["application/vnd.plotly.v1+json"]["config"] == {"displaylogo": False}
    assert bundle["application/vnd.plotly.v1+json"]["layout"]["meta"] == "0.1,64,4,2"  # the start asked for

    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    colab = static_explorer(hand_grid, start=(0.1, 64, 4))._repr_mimebundle_()
    assert set(colab) == {"text/html"} and '<script charset="utf-8" src="https://cdn.plot.ly/plotly-' in colab["text/html"]
    assert len(colab["text/html"]) < len(bundle["text/html"]) + 1000  # plotly.js itself is not inlined


# A grid written by hand (no explore run): two points on the T axis times two seeds, six tokens of uneven classes.

TOKEN_CLASS = [1, -1, 0, 0, 1, 0]


def _point(T: int, **changes) -> dict:
    """The payload of (delta=0.1, d=64, T, seed 0): every number chosen so that what the panels show is known."""
    point = {
        "delta": 0.1, "d": 64, "T": T, "seed": 0, "eta_star": 4.0, "eta": 10.0,
        "alpha": [0.5, -0.25, 0.0, 0.125, 0.75, -0.125],  # mean 1/6
        "ev": [1.0, -0.5, 0.25, 0.5, 2.0, -0.25],  # mean 0.5
        "ep": [3.0, 2.0, -1.0, -1.5, 4.0, -0.5],
        "step": [0, 1, 10, 1000], "cos": [None, 0.5, 0.9, 0.96],
        "att_mean": [0.3, 0.4, 0.8, 0.99], "att_min": [0.1, 0.2, 0.6, 0.95],
        "corr": 0.98765, "corr_pred": 0.92847, "slope": 2.5, "pred": 3.0,
        "cos_final": 0.96, "cos_own": 0.96, "rel": 1.5, "sel": 1.25, "lost": 0.0, "msg": "", "notice": f"sentence {T}",
    }  # fmt: skip
    return point | changes


@pytest.fixture
def hand_grid():
    # seed 2 at T = 8 ends one-sided: other values after the step and after training
    other_seed = dict(seed=2, ev=[0.9, -0.4, 0.2, 0.6, 1.8, -0.3], ep=[3.0, -2.0, -1.0, -1.5, 4.0, -0.5], lost=0.5)
    return {
        "config": {"axes": {"delta": [0.1], "d": [64], "T": [4, 8], "seed": [0, 2]}, "settings": {"step_factor": 2.5}},
        "token_class": TOKEN_CLASS,
        "points": [
            _point(4, cos=None, cos_final=None, cos_own=None, msg="none"),
            _point(4, seed=2),
            _point(8),
            _point(8, **other_seed),
        ],
    }


@pytest.fixture
def hand_figure(hand_grid):
    """Built anew for each test, so that each test that reads the figure also builds it."""
    return static_figure(hand_grid, start=(0.1, 64, 8))


def test_a_grid_whose_token_classes_do_not_match_its_points_is_refused(hand_grid):
    # a point of seven tokens against six token classes: an error, not a panel that silently drops a token
    point = _point(8, alpha=[*_point(8)["alpha"], 0.3], ev=[*_point(8)["ev"], 1.0], ep=[*_point(8)["ep"], 1.0])
    with pytest.raises(ValueError):
        _traces(point, TOKEN_CLASS)


@pytest.mark.parametrize(("slope", "shown"), [(94.65, "94.65"), (94.64, "94.64"), (2.5, "2.5"), (1234.5, "1234")])
def test_the_legend_prints_the_slopes_as_the_grid_stores_them(slope, shown):
    # four significant digits, the grid's: 94.65 is not rounded a second time to 94.7 beside a printed 94.65
    fit, predicted = _traces(_point(8, slope=slope, pred=slope), TOKEN_CLASS)[3:5]
    assert (fit["name"], predicted["name"]) == (f"fit: slope {shown}", f"predicted slope {shown}")


def test_span_pads_six_percent_of_the_range_and_skips_missing_values():
    assert _span([1.0, None, 3.0]) == pytest.approx([0.88, 3.12])  # range 2: 0.12 each side
    assert _span([2.0, 2.0]) == pytest.approx([1.94, 2.06])  # no range: 6% of 1
    assert _span([-1.0, 1.0], pad=0.5) == [-2.0, 2.0]


def test_the_eleven_traces_draw_each_class_the_lines_and_the_training(hand_grid):
    traces = _traces(_point(8), TOKEN_CLASS)
    names = [t["name"] for t in traces]
    assert names == [
        CLASS_LABELS[1], CLASS_LABELS[-1], CLASS_LABELS[0], "fit: slope 2.5", "predicted slope 3",
        "cos(p, p_mm)", "mean relevant attention", "min relevant attention", *(CLASS_LABELS[c] for c in (1, -1, 0)),
    ]  # fmt: skip
    step = traces[:3]
    assert [(t["x"], t["y"]) for t in step] == [
        ([0.5, 0.75], [1.0, 2.0]),
        ([-0.25], [-0.5]),
        ([0.0, 0.125, -0.125], [0.25, 0.5, -0.25]),
    ]
    scores = traces[8:]
    assert [(t["x"], t["y"]) for t in scores] == [
        ([0.5, 0.75], [3.0, 4.0]),
        ([-0.25], [2.0]),
        ([0.0, 0.125, -0.125], [-1.0, -1.5, -0.5]),
    ]
    for panel, axes in ((step, ("x", "y")), (scores, ("x3", "y3"))):
        assert [t["marker"]["color"] for t in panel] == [to_hex(CLASS_COLORS[c]) for c in (1, -1, 0)]
        assert all((t["xaxis"], t["yaxis"], t["mode"], t["marker"]["size"]) == (*axes, "markers", 7) for t in panel)
        assert [t["legendgroup"] for t in panel] == [CLASS_LABELS[c] for c in (1, -1, 0)]
    # one legend entry per class: the score panel's markers stay out of the legend
    assert all(t["showlegend"] is False for t in scores) and all("showlegend" not in t for t in step)
    fit, predicted = traces[3:5]
    # the fit passes through (mean alpha, mean E.v) = (1/6, 0.5) with slope 2.5; the prediction through 0 with slope 3
    assert fit["x"] == predicted["x"] == [-0.25, 0.75]
    assert fit["y"] == pytest.approx([0.5 + 2.5 * (-0.25 - 1 / 6), 0.5 + 2.5 * (0.75 - 1 / 6)])
    assert predicted["y"] == [-0.75, 2.25]
    assert fit["line"] == {"color": "black"} and predicted["line"] == {"color": "black", "dash": "dash"}
    # two plain lines in panel 1 (plotly's default mode for a few points would add markers at the ends)
    assert all((t["xaxis"], t["yaxis"], t["mode"]) == ("x", "y", "lines") for t in (fit, predicted))
    cos, mean, low = traces[5:8]
    for trace in (cos, mean, low):
        assert trace["x"] == [1, 10, 1000] and (trace["xaxis"], trace["yaxis"], trace["mode"]) == ("x2", "y2", "lines")
    # step 0 is off the log axis
    assert (cos["y"], mean["y"], low["y"]) == ([0.5, 0.9, 0.96], [0.4, 0.8, 0.99], [0.2, 0.6, 0.95])
    assert cos["line"] == {"color": "black", "dash": "dashdot"} and mean["line"] == {"color": GREEN}  # not the fit's style
    assert low["line"] == {"color": GREEN, "dash": "dot"}
    empty = _traces(_point(4, cos=None), TOKEN_CLASS)[5]  # no p_mm: no cosine curve
    assert (empty["x"], empty["y"]) == ([], [])
    assert all(t["type"] == "scatter" for t in traces)


@pytest.mark.parametrize(
    ("changes", "training"),
    [
        ({}, "training p: cos(p, p_mm) = 0.960"),
        ({"cos_own": None}, "training p: cos(p, p_mm) = 0.960"),
        (
            {"cos_own": 0.9991},
            "training p: cos(p, p_mm) = 0.960; cos with the max-margin direction of the tokens p does select: 0.999",
        ),
        ({"cos_final": None, "cos_own": None}, "training p: no max-margin direction p_mm"),
    ],
)
def test_the_numbers_under_the_panels(changes, training):
    attended = "1.25\u00a0attended (≥\u00a01% of the attention each)"
    lines = [f"{training}; relevant tokens per sequence, on average: 1.50 present, {attended}"]
    assert _numbers(_point(8, **changes), 2.5) == "<br>".join(
        ["one step of 2.5 η* (η* = 4, η = 10): corr(E·v, α) = 0.9877, predicted 0.9285"]
        + textwrap.wrap(lines[0], LINE_CHARACTERS)
    )
    assert all(len(line) <= LINE_CHARACTERS for line in _numbers(_point(8, **changes), 2.5).split("<br>"))


@pytest.mark.parametrize(("present", "shown"), [(1.0, False), (1.005, True), (0.5, False)])
def test_the_attended_count_shows_only_where_a_sequence_holds_several_relevant_tokens(present, shown):
    numbers = _numbers(_point(8, rel=present), 2.5)
    assert ("attended" in numbers) is shown and ("present" in numbers) is shown
    if shown:
        assert "1.00\u00a0present" not in numbers and f"{present:.2f}" in numbers.replace("<br>", " ")


def test_the_layout_of_a_point_its_ranges_titles_and_sentence(hand_grid):
    layout = _layout(hand_grid, _point(8, notice="word " * 40))
    assert layout["meta"] == "0.1,64,8,0"
    assert layout["xaxis"]["range"] == layout["xaxis3"]["range"] == pytest.approx([-0.31, 0.81])  # alpha: -0.25..0.75
    assert layout["yaxis"]["range"] == pytest.approx([-0.75 - 0.18, 2.25 + 0.18])  # E.v and the predicted line: -0.75..2.25
    assert layout["yaxis3"]["range"] == pytest.approx([-1.5 - 0.33, 4.0 + 0.33])
    assert layout["xaxis2"]["range"] == pytest.approx([0.0, 3.05])  # log10 of the last step, 1000
    titles, numbers = layout["annotations"][:3], layout["annotations"][3]
    expected = [*PANEL_TITLES[:2], "3. final scores<br>both classes on top"]
    assert [(a["text"], a["x"], a["y"]) for a in titles] == list(zip(expected, PANEL_CENTERS, [1.0] * 3, strict=True))
    for title in titles:
        assert (title["xref"], title["yref"], title["xanchor"], title["yanchor"]) == ("paper", "paper", "center", "bottom")
        assert title["showarrow"] is False and title["font"] == {"size": 14}
    # the sentence is wrapped at LINE_CHARACTERS: "What to notice: " and 40 words of 5 characters
    notice = textwrap.wrap("What to notice: " + "word " * 40 + ".", LINE_CHARACTERS)
    assert numbers["text"] == _numbers(_point(8), 2.5) + "<br>" + "<br>".join(notice) and len(notice) == 3
    where = (numbers["x"], numbers["y"], numbers["xanchor"], numbers["yanchor"], numbers["align"])
    assert where == (0.0, -0.7, "left", "top", "left")
    assert (numbers["xref"], numbers["yref"]) == ("paper", "paper")  # placed on the figure, not in panel 1's data units
    assert numbers["showarrow"] is False and numbers["font"] == {"size": 14} and len(layout["annotations"]) == 5
    # a point with p_mm keeps the note, hidden: every frame holds the same annotations, so none stays from another
    assert layout["annotations"][4]["text"] == "no max-margin direction" and layout["annotations"][4]["visible"] is False


def test_a_point_without_p_mm_says_so_in_panel_two(hand_grid):
    layout = _layout(hand_grid, hand_grid["points"][0])
    note = layout["annotations"][-1]
    assert note["text"] == "no max-margin direction" and len(layout["annotations"]) == 5
    assert (note["x"], note["y"], note["xref"], note["yref"]) == (0.5, 0.7, "x2 domain", "y2 domain")
    assert note["bgcolor"].startswith("rgba(255, 255, 255")  # legible over the curves
    assert note["showarrow"] is False and note["font"] == {"color": "#8b0000"} and note["visible"] is True
    assert _layout(hand_grid, _point(4, step=[0]))["xaxis2"]["range"] == [0.0, 1.0]  # no step to show: one decade
    # step 1 alone is shown: log10(1) = 0, and the axis ends 0.05 decade past it
    assert _layout(hand_grid, _point(4, step=[0, 1]))["xaxis2"]["range"] == pytest.approx([0.0, 0.05])


def test_the_sliders_sit_side_by_side_below_the_legend_and_above_the_sentences(hand_figure):
    sliders = hand_figure.layout.sliders
    assert [s.currentvalue.prefix for s in sliders] == [SLIDER_PREFIX[name] for name in ("delta", "d", "T", "seed")]
    assert all(s.currentvalue.font.size == 13 for s in sliders)
    assert [[step.label for step in s.steps] for s in sliders] == [["0.1"], ["64"], ["4", "8"], ["0", "2"]]
    assert [s.active for s in sliders] == [0, 0, 1, 0]
    for left, right in zip(sliders, sliders[1:], strict=False):
        assert left.x + left.len < right.x  # no overlap
    assert sliders[0].x == 0 and sliders[-1].x + sliders[-1].len <= 1
    # widths in proportion to the characters each needs (prefix and value: 24 + 3, 21 + 2, 22 + 1; the seed's 7 + 1
    # raised to the minimum of 14), over the width left by three gaps of 0.05
    lengths = [0.85 * n / 87 for n in (27, 23, 23, 14)]
    assert [s.len for s in sliders] == pytest.approx(lengths)
    assert [s.x for s in sliders] == pytest.approx([0, lengths[0] + 0.05, sum(lengths[:2]) + 0.1, sum(lengths[:3]) + 0.15])
    # top to bottom: panels, legend, sliders, then the numbers and the sentence
    numbers = next(a for a in hand_figure.layout.annotations if a.text.startswith("one step"))
    assert 0 > hand_figure.layout.legend.y > sliders[0].y > numbers.y
    assert all((s.y, s.yanchor, s.pad.t, s.pad.b) == (sliders[0].y, "top", 0, 0) for s in sliders)
    step = sliders[2].steps[0]
    assert step.method == "animate" and list(step.args[0]) == ["0.1,64,4,0"]
    assert list(sliders[3].steps[1].args[0]) == ["0.1,64,8,2"]  # the seed slider keeps T
    # a slider jumps to its frame at once: no animation, and the frame redraws
    assert step.args[1] == {"mode": "immediate", "frame": {"duration": 0, "redraw": True}, "transition": {"duration": 0}}


def test_the_figure_axes_titles_and_size(hand_figure):
    layout = hand_figure.layout
    titles = [(layout[f"xaxis{k}"].title.text, layout[f"yaxis{k}"].title.text) for k in ("", "2", "3")]
    assert titles == [
        ("signed frequency \u03b1\u209b", "E\u209b \u00b7 v after one step"),
        ("normalised-GD steps on p (log scale)", "cosine / attention mass"),
        ("signed frequency \u03b1\u209b", "E\u209b \u00b7 p / \u2016p\u2016 after training"),
    ]
    assert (
        layout.xaxis2.type == "log"
        and layout.xaxis2.dtick == 1
        and layout.xaxis.type is None
        and layout.yaxis2.range == (-0.05, 1.05)
    )
    # one row of three panels, each the full height of the plotting area
    assert all(layout[f"yaxis{k}"].domain == (0.0, 1.0) for k in ("", "2", "3"))
    assert "xaxis4" not in layout.to_plotly_json()
    # the figure opens with the start point's ranges (as its frame sets them): only panel 2 has a fixed y range
    assert layout.xaxis.range == layout.xaxis3.range == pytest.approx((-0.31, 0.81))
    assert layout.yaxis.range == pytest.approx((-0.93, 2.43)) and layout.yaxis3.range == pytest.approx((-1.83, 4.33))
    assert layout.xaxis2.range == pytest.approx((0.0, 3.05))
    assert all(layout[f"{a}axis{k}"].automargin for a in "xy" for k in ("", "2", "3"))
    assert (
        layout.height == HEIGHT == 800
        and HEIGHT - PLOT_TOP - PLOT_BOTTOM == 320
        and (layout.margin.t, layout.margin.b) == (PLOT_TOP, PLOT_BOTTOM)
    )
    assert (layout.margin.l, layout.margin.r) == (60, 20) and layout.font.size == 12
    # room below the panels for the longest block under the sliders: six lines of 14 px text from y = -0.7
    assert PLOT_BOTTOM - 0.7 * 320 >= 6 * 14 * 1.3 + 20, "the sentence under the sliders would be clipped"
    assert layout.template.layout.plot_bgcolor == "white"  # plotly_white
    assert (layout.legend.orientation, layout.legend.x, layout.legend.yanchor, layout.legend.font.size) == ("h", 0.0, "top", 11)
    # the legend 0.2 of the plot height under it, the sliders 0.4: rotated tick labels and the x-axis titles fit above
    assert (layout.legend.y, layout.sliders[0].y) == (-0.2, -0.4)
    # at most six ticks on the y axes of panels 1 and 3 (short labels keep their titles out of the next panel)
    assert (layout.yaxis.nticks, layout.yaxis2.nticks, layout.yaxis3.nticks) == (6, None, 6)
    # the starting point's traces, and the panel layout of that point
    assert layout.meta == "0.1,64,8,0" and [t.name for t in hand_figure.data][3] == "fit: slope 2.5"
    assert [f.name for f in hand_figure.frames] == ["0.1,64,4,0", "0.1,64,4,2", "0.1,64,8,0", "0.1,64,8,2"]
    assert (
        hand_figure.frames[0].layout.meta == "0.1,64,4,0"
        and hand_figure.frames[0].layout.annotations[-1].text == "no max-margin direction"
    )
    # every frame sets every annotation: a frame after one without p_mm hides its note
    assert {len(f.layout.annotations) for f in hand_figure.frames} == {5}
    assert [f.layout.annotations[-1].visible for f in hand_figure.frames] == [True, False, False, False]


def test_the_figure_starts_at_the_live_explorer_s_defaults():
    start = (DEFAULT_CONFIG.delta, DEFAULT_CONFIG.d, DEFAULT_CONFIG.T, DEFAULT_CONFIG.seed)
    axes = {"delta": [start[0]], "d": [start[1], 1024], "T": [4, start[2]], "seed": [1, start[3]]}
    points = [
        _point(T) | {"delta": start[0], "d": d, "seed": seed} for d in axes["d"] for T in axes["T"] for seed in axes["seed"]
    ]
    grid = {"config": {"axes": axes, "settings": {"step_factor": 2.5}}, "token_class": TOKEN_CLASS, "points": points}
    assert static_figure(grid).layout.meta == frame_name(*start) == "0,512,8,0"


def test_html_options(hand_figure):
    text = static_html(hand_figure, plotlyjs=False)
    assert f'id="{ELEMENT_ID}"' in text and "<html>" not in text and "<script src=" not in text
    assert '{"displaylogo": false, "responsive": true}' in text  # the whole config: these two settings, nothing else
    assert "Plotly.animate" not in text  # no auto-play: the figure opens at its starting point


def test_the_sentence_is_wrapped_at_95_characters_on_the_boundary(hand_grid):
    # "What to notice: " (16) + the sentence + "." : 95 characters fit on one line, 96 do not
    assert LINE_CHARACTERS == 95
    fits = _layout(hand_grid, _point(8, notice="a" * 76 + " b"))["annotations"][3]["text"]
    assert fits.endswith("<br>What to notice: " + "a" * 76 + " b.")
    broken = _layout(hand_grid, _point(8, notice="a" * 77 + " b"))["annotations"][3]["text"]
    assert broken.endswith("<br>What to notice: " + "a" * 77 + "<br>b.")


@pytest.mark.parametrize(
    ("ep", "words"),
    [
        ([3.0, 2.0, -1.0, -1.5, 4.0, -0.5], "both classes on top"),
        ([3.0, -2.0, -1.0, -1.5, 4.0, -0.5], "no negative token on top"),  # the negative token sinks
        ([-3.0, 2.0, -1.0, -1.5, -4.0, -0.5], "no positive token on top"),
        ([3.0, 2.0, -1.0, -1.5, -4.0, -0.5], "some of both classes on top"),  # one positive token below
        ([-3.0, -2.0, -1.0, -1.5, -4.0, -0.5], "no relevant token on top"),
    ],
)
def test_panel_three_title_says_what_the_point_scores_show(hand_grid, ep, words):
    # computed per point from its own scores: a title never claims a shape its panel does not show
    title = _layout(hand_grid, _point(8, ep=ep))["annotations"][2]["text"]
    assert title == f"3. final scores<br>{words}"


def test_each_frame_carries_its_own_panel_three_title(hand_grid):
    hand_grid["points"][0]["ep"] = [3.0, -2.0, -1.0, -1.5, 4.0, -0.5]
    figure = static_figure(hand_grid, start=(0.1, 64, 8))
    titles = [frame.layout.annotations[2].text for frame in figure.frames]
    assert titles == [
        "3. final scores<br>no negative token on top",
        "3. final scores<br>both classes on top",
        "3. final scores<br>both classes on top",
        "3. final scores<br>no negative token on top",  # seed 2 at T = 8
    ]


def test_a_point_with_a_missing_score_gets_the_neutral_title(hand_grid):
    title = _layout(hand_grid, _point(8, ep=[3.0, 2.0, None, -1.5, 4.0, -0.5]))["annotations"][2]["text"]
    assert title == PANEL_TITLES[2]


def test_the_text_alternative_and_the_element_id_reach_the_page_in_both_modes(hand_figure, monkeypatch):
    alt = 'Three panels; "selected" <per sequence>'
    announced = 'role="figure" aria-label="Three panels; &quot;selected&quot; &lt;per sequence&gt;"'
    shown = StaticExplorer(hand_figure, div_id="chapter-3-slider", alt=alt)
    book = shown._repr_mimebundle_()["text/html"]
    assert announced in book and 'id="chapter-3-slider"' in book and f'id="{ELEMENT_ID}"' not in book
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    colab = shown._repr_mimebundle_()["text/html"]
    assert announced in colab and 'id="chapter-3-slider"' in colab and "https://cdn.plot.ly/plotly-" in colab
    assert 'role="figure"' not in StaticExplorer(hand_figure)._repr_mimebundle_()["text/html"]  # no alt, no wrapper


def test_the_explorer_announces_itself_as_a_figure_with_its_text_alternative(hand_grid):
    page = static_explorer(hand_grid, start=(0.1, 64, 4, 2))._repr_mimebundle_()["text/html"]
    assert page.startswith('<div role="figure" aria-label="Interactive figure with three panels and four sliders')
    for setting in ("delta", "dimension d", "sequence length T", "seed"):
        assert setting in EXPLORER_ALT, f"the text alternative names the slider for {setting}"


@pytest.mark.parametrize(
    ("eta", "eta_star", "shown"),
    [
        (10020.4, 668.0, "η* = 668, η = 10,020"),
        (209.44, 13.96, "η* = 13.96, η = 209.4"),
        (0.012346, 0.5, "η* = 0.5, η = 0.01235"),
        (199.6, 13.957, "η* = 13.96, η = 199.6"),  # η* to four significant digits, not five
    ],
)
def test_the_steps_are_printed_without_an_exponent(eta, eta_star, shown):
    point = _point(8) | {"eta": eta, "eta_star": eta_star}
    assert f"({shown}):" in _numbers(point, 15.0).split("<br>")[0]


@pytest.mark.parametrize(
    ("name", "labels", "characters"),
    [
        ("d", ["16", "64", "256", "512", "1024"], 35),  # five stops of a 4-character label and 3 of room
        ("delta", ["0", "0.1", "0.3", "0.5"], 27),  # the line "delta (relevant rate) = 0.1"
        ("seed", ["0", "1", "2"], 14),  # three stops of 4 and "seed = 0" (8): the minimum
        ("seed", [str(k) for k in range(4)], 16),  # one more stop, past the minimum
        ("T", ["4", "8"], 23),
    ],
)
def test_a_slider_is_as_wide_as_its_line_or_its_stops_ask(name, labels, characters):
    assert _slider_characters(name, labels) == characters
