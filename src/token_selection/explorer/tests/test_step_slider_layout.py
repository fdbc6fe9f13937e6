"""Tests of the tau slider's drawing: every trace, the axes, the slider, the play button and the readout of each frame.

The frames are built by hand (five tokens, three steps) so that each of the three terms of the left panel's vertical
reach (the frame's values, the line at the largest alpha, the noise band) is the largest on one frame. The range
kept up to ``FIXED_AXIS_UP_TO`` is set below the first step here, so that each frame's range is its own reach
(``test_step_slider.py`` tests the kept range).
"""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.colors import to_hex

from token_selection.explorer import step_slider as step_slider_module
from token_selection.explorer.step_slider import HEIGHT, RED, frame_name, step_slider_figure
from token_selection.theory.one_step import predicted_correlation
from token_selection.theory.plots import CLASS_COLORS, CLASS_LABELS
from token_selection.theory.step_frames import StepFrames

ALPHA = np.array([-0.3, 0.1, 0.0, 0.0, 0.2])
CLASSES = np.array([-1, 1, 0, 0, 1])
VALUES = np.array([
    [2.0, -0.4, 0.1, -0.2, 0.3],  # the values reach furthest: 2.0
    [0.1, -0.05, 0.0, 0.02, 0.08],  # the noise band does: 2 sd x 1.5 = 0.6
    [-0.5, 0.2, 0.0, 0.1, 0.5],  # the line does: slope 4 x 0.3 = 1.2
])  # fmt: skip
REACH = [2.0, 0.6, 1.2]


@pytest.fixture(autouse=True)
def _each_frame_its_own_range(monkeypatch):
    monkeypatch.setattr(step_slider_module, "FIXED_AXIS_UP_TO", 0.1)


@pytest.fixture(scope="module")
def frames() -> StepFrames:
    return StepFrames(
        taus=np.array([0.5, 2.0, 8.0]), alpha=ALPHA, token_class=CLASSES, values=VALUES,
        correlation=np.array([0.31, 0.72, 0.96]), eta_star=1.0, v_norm2=1.0, noise_sd=0.2, initial=np.zeros(5),
    )  # fmt: skip


def _readout(tau: float, eta: float, corr: float, law: float) -> str:
    return f"τ = {tau:.3g}, so η = τ η* = {eta:.4g}.   corr(E<sub>s</sub>(1)·v, α<sub>s</sub>) = {corr:.4f}, law {law:.4f}"


def _frame_layout(frames: StepFrames, k: int) -> dict:
    tau = float(frames.taus[k])
    return {
        "meta": frame_name(tau),
        "yaxis": {"range": [-1.1 * REACH[k], 1.1 * REACH[k]]},
        "annotations": [{
            "text": _readout(tau, tau * frames.eta_star, frames.correlation[k], tau / np.sqrt(1 + tau**2)),
            "x": 0.0, "y": 1.06, "xref": "paper", "yref": "paper", "xanchor": "left", "yanchor": "bottom",
            "showarrow": False, "font": {"size": 14},
        }],
    }  # fmt: skip


def _plain(value):
    """Plotly's JSON with tuples and arrays as lists and floats compared approximately."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_plain(v) for v in value]
    if isinstance(value, (float, np.floating)):
        return pytest.approx(float(value), rel=1e-12, abs=1e-15)
    return value


@pytest.mark.parametrize("k", [0, 1, 2])
def test_each_frame_sets_its_range_its_readout_and_its_name(frames, k):
    fig = step_slider_figure(frames)
    layout = fig.frames[k].layout.to_plotly_json()
    assert _plain(layout) == _frame_layout(frames, k)
    assert fig.frames[k].name == frame_name(frames.taus[k])


def test_the_figure_opens_on_its_start_frame_with_that_frame_s_layout(frames):
    fig = step_slider_figure(frames, start=2.2)  # nearest on a log scale: tau = 2
    layout = fig.layout.to_plotly_json()
    assert layout["meta"] == "2"
    assert layout["annotations"][0]["text"] == (
        "τ = 2, so η = τ η* = 2.   corr(E<sub>s</sub>(1)·v, α<sub>s</sub>) = 0.7200, law 0.8944"
    )  # the law at tau = 2: 2 / sqrt(5)
    assert _plain(layout["annotations"]) == _frame_layout(frames, 1)["annotations"]
    assert _plain(layout["yaxis"]["range"]) == [-1.1 * 0.6, 1.1 * 0.6]
    assert fig.layout.sliders[0].active == 1


def test_the_traces_of_a_frame(frames):
    fig = step_slider_figure(frames)
    band, positive, negative, irrelevant, line, law, measured, point = (_plain(t.to_plotly_json()) for t in fig.frames[2].data)
    assert band == {
        "type": "scatter", "mode": "lines", "x": [-0.3, 0.2, 0.2, -0.3, -0.3], "y": [-0.4, -0.4, 0.4, 0.4, -0.4],
        "fill": "toself", "fillcolor": "rgba(128,128,128,0.15)", "line": {"width": 0}, "hoverinfo": "skip",
        "name": "noise: ±2 sd of E<sub>s</sub>(0)·v", "xaxis": "x", "yaxis": "y",
    }  # fmt: skip
    for trace, cls in ((positive, 1), (negative, -1), (irrelevant, 0)):
        pick = CLASSES == cls
        assert trace == {
            "type": "scatter", "mode": "markers", "name": CLASS_LABELS[cls], "x": _plain(ALPHA[pick]),
            "y": _plain(VALUES[2][pick]), "marker": {"color": to_hex(CLASS_COLORS[cls]), "size": 8},
            "xaxis": "x", "yaxis": "y",
        }  # fmt: skip
    assert line == {
        "type": "scatter", "mode": "lines", "name": "line (η/2)|v|²α<sub>s</sub>",
        "line": {"color": "black", "dash": "dash"}, "x": [-0.3, 0.2], "y": [4 * -0.3, 4 * 0.2], "xaxis": "x", "yaxis": "y",
    }  # fmt: skip
    fine = np.geomspace(0.5, 8.0, 120)
    assert law == {
        "type": "scatter", "mode": "lines", "name": "law τ/√(1+τ²)", "line": {"color": "black", "dash": "dot"},
        "xaxis": "x2", "yaxis": "y2", "x": _plain(fine), "y": _plain(predicted_correlation(fine)),
    }  # fmt: skip
    assert measured == {
        "type": "scatter", "mode": "markers", "name": "measured, every τ",
        "marker": {"color": "gray", "size": 5, "opacity": 0.5}, "x": [0.5, 2.0, 8.0], "y": [0.31, 0.72, 0.96],
        "xaxis": "x2", "yaxis": "y2",
    }  # fmt: skip
    assert point == {
        "type": "scatter", "mode": "markers", "name": "this step",
        "marker": {"color": RED, "size": 14, "line": {"color": "black", "width": 1}}, "x": [8.0], "y": [0.96],
        "xaxis": "x2", "yaxis": "y2",
    }  # fmt: skip


def test_the_slider_and_the_play_button(frames):
    fig = step_slider_figure(frames)
    animate = {"mode": "immediate", "frame": {"duration": 0, "redraw": True}, "transition": {"duration": 0}}
    assert _plain(fig.layout.sliders[0].to_plotly_json()) == {
        "active": 0,  # 0.5 and 2 are equally near 1 on a log scale: the first of equals wins
        "steps": [{"label": label, "method": "animate", "args": [[name], animate]}
                  for label, name in (("0.5", "0.5"), ("2", "2"), ("8", "8"))],
        "x": 0.1, "len": 0.9, "y": -0.24, "yanchor": "top", "pad": {"t": 0, "b": 0},
        "currentvalue": {"prefix": "step τ = η/η* = ", "font": {"size": 13}},
    }  # fmt: skip
    play = {"mode": "immediate", "fromcurrent": False, "frame": {"duration": 250, "redraw": True},
            "transition": {"duration": 0}}  # fmt: skip
    assert _plain(fig.layout.updatemenus[0].to_plotly_json()) == {
        "type": "buttons", "showactive": False, "x": 0.0, "y": -0.24, "xanchor": "left", "yanchor": "top",
        "pad": {"t": 20, "r": 0}, "buttons": [{"label": "▶ play", "method": "animate", "args": [None, play]}],
    }  # fmt: skip


def test_the_axes_the_page_and_the_legend(frames):
    layout = step_slider_figure(frames).layout.to_plotly_json()
    gap, left = 0.12, 0.58 * (1 - 0.12)
    assert _plain(layout["xaxis"]) == {"anchor": "y", "domain": [0.0, left], "title": {"text": "signed frequency α<sub>s</sub>"}}
    assert _plain(layout["xaxis2"]) == {
        "anchor": "y2", "domain": [left + gap, 1.0], "title": {"text": "step τ = η/η* (log scale)"}, "type": "log",
        "dtick": 1, "range": [np.log10(0.5) - 0.1, np.log10(8.0) + 0.1],
    }  # fmt: skip
    assert layout["yaxis"]["title"] == {"text": "value E<sub>s</sub>(1)·v after the step"}
    assert layout["yaxis"]["anchor"] == "x" and layout["yaxis2"]["anchor"] == "x2"
    assert _plain({k: layout["yaxis2"][k] for k in ("title", "range")}) == {
        "title": {"text": "corr over tokens"},
        "range": [-0.35, 1.05],
    }
    assert layout["height"] == HEIGHT == 640
    assert layout["margin"] == {"l": 70, "r": 20, "t": 70, "b": 250} and layout["font"] == {"size": 12}
    assert _plain(layout["legend"]) == {"orientation": "h", "x": 0.0, "y": -0.56, "yanchor": "top", "font": {"size": 11}}
    assert layout["template"]["layout"]["plot_bgcolor"] == "white"  # plotly_white


def test_the_page_s_slider_opens_where_it_is_asked_and_at_tau_one_by_default(frames):
    from token_selection.explorer.step_slider import ALT, ELEMENT_ID, step_slider

    assert step_slider(frames).figure.layout.sliders[0].active == 0  # 0.5 and 2 tie at tau = 1: the first
    assert step_slider(frames, start=1.2).figure.layout.sliders[0].active == 1  # 2 is the nearer on a log scale
    shown = step_slider(frames, start=8.0)
    assert shown.figure.layout.sliders[0].active == 2 and shown.figure.layout.meta == "8"
    assert (shown.div_id, shown.alt) == (ELEMENT_ID, ALT)


def test_one_row_of_two_panels(frames):
    layout = step_slider_figure(frames).layout.to_plotly_json()
    assert {key for key in layout if key.startswith(("xaxis", "yaxis"))} == {"xaxis", "xaxis2", "yaxis", "yaxis2"}
    assert _plain(layout["yaxis"]["domain"]) == _plain(layout["yaxis2"]["domain"]) == [0.0, 1.0]


def test_frames_up_to_the_bar_share_the_largest_reach_of_them(frames, monkeypatch):
    """With the bar at the second step, the first two frames take the larger of their reaches (2.0 over 0.6), the
    frame at the bar included; the third keeps its own (1.2)."""
    monkeypatch.setattr(step_slider_module, "FIXED_AXIS_UP_TO", 2.0)
    ranges = [tuple(f.layout.yaxis.range) for f in step_slider_figure(frames).frames]
    assert ranges[0] == ranges[1] == pytest.approx((-2.2, 2.2))
    assert ranges[2] == pytest.approx((-1.32, 1.32))


def test_a_frame_exactly_at_the_bar_counts_its_own_reach(frames, monkeypatch):
    """With the bar at the first step, that frame alone is fixed, and its range is its own reach (2.0)."""
    monkeypatch.setattr(step_slider_module, "FIXED_AXIS_UP_TO", 0.5)
    ranges = [tuple(f.layout.yaxis.range) for f in step_slider_figure(frames).frames]
    assert ranges == [pytest.approx((-2.2, 2.2)), pytest.approx((-0.66, 0.66)), pytest.approx((-1.32, 1.32))]


def test_a_step_with_three_significant_digits_keeps_them_on_its_stop(frames):
    """The course's step, 14.3, is a stop of chapter 3's slider: its label must not round it to 14."""
    import dataclasses

    fig = step_slider_figure(dataclasses.replace(frames, taus=np.array([0.5, 14.3, 30.0])))
    steps = fig.layout.sliders[0].steps
    assert [step.label for step in steps] == ["0.5", "14.3", "30"]
    assert [step.args[0][0] for step in steps] == ["0.5", "14.3", "30"]
