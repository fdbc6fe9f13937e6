"""Tests of chapter 3's tau slider: one frame per step size, the readout, and its own div."""

from __future__ import annotations

import numpy as np
import pytest

from token_selection.explorer import step_slider as step_slider_module
from token_selection.explorer.static import BOOK_PLOTLYJS, static_html
from token_selection.explorer.step_slider import (
    ELEMENT_ID,
    FIXED_AXIS_UP_TO,
    frame_name,
    opening_frame,
    step_slider,
    step_slider_figure,
)
from token_selection.theory.step_frames import step_frames


@pytest.fixture(scope="module")
def frames():
    return step_frames(taus=np.geomspace(0.1, 30, 7))


def test_one_frame_per_tau_each_with_every_trace(frames):
    fig = step_slider_figure(frames)
    assert [f.name for f in fig.frames] == [frame_name(t) for t in frames.taus]
    assert all(len(f.data) == len(fig.data) == 8 for f in fig.frames)
    assert len(fig.layout.sliders) == 1 and len(fig.layout.sliders[0].steps) == 7
    assert [list(s.args[0]) for s in fig.layout.sliders[0].steps] == [[frame_name(t)] for t in frames.taus]
    assert fig.layout.xaxis2.type == "log" and fig.layout.xaxis2.dtick == 1, "tau's axis: a tick per power of ten"


def test_start_frame_is_nearest_tau_one_and_shows_its_values(frames):
    fig = step_slider_figure(frames)
    k = int(np.argmin(np.abs(np.log(frames.taus))))
    assert fig.layout.meta == frame_name(frames.taus[k]) and fig.layout.sliders[0].active == k
    shown = np.concatenate([np.asarray(fig.data[i].y) for i in (1, 2, 3)])
    expected = np.concatenate([frames.values[k][frames.token_class == c] for c in (1, -1, 0)])
    assert np.allclose(shown, expected)
    assert list(fig.data[7].y) == [pytest.approx(frames.correlation[k])]
    assert f"{frames.correlation[k]:.4f}" in fig.layout.annotations[0].text


def test_opening_frame_is_the_nearest_tau_on_a_log_scale_and_refuses_a_step_that_is_not_positive(frames):
    taus = frames.taus  # 0.1, 0.26, 0.67, 1.73, ..., 30: seven steps evenly spaced in log, none at 1
    assert opening_frame(frames) == 2  # 0.67 is nearer 1 than 1.73 on the log scale
    assert opening_frame(frames, 30) == 6 and opening_frame(frames, 1e6) == 6 and opening_frame(frames, 1e-6) == 0
    middle = float(np.sqrt(taus[3] * taus[4]))  # halfway between two frames on the log scale
    assert opening_frame(frames, middle * 0.999) == 3 and opening_frame(frames, middle * 1.001) == 4
    for bad in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="start must be a positive step tau"):
            opening_frame(frames, bad)


def test_each_frame_moves_the_point_and_the_line(frames):
    fig = step_slider_figure(frames, start=30)
    assert fig.layout.sliders[0].active == len(frames.taus) - 1
    for k, frame in enumerate(fig.frames):
        assert frame.data[7].x == (pytest.approx(frames.taus[k]),)
        line = frame.data[4]
        assert line.y[1] == pytest.approx(frames.slopes[k] * frames.alpha.max())
        low, high = frame.layout.yaxis.range
        assert low <= frames.values[k].min() and frames.values[k].max() <= high


def test_html_has_its_own_div_and_the_book_plotlyjs(frames):
    bundle = step_slider(frames)._repr_mimebundle_()
    assert f'id="{ELEMENT_ID}"' in bundle["text/html"] and f'src="{BOOK_PLOTLYJS}"' in bundle["text/html"]
    assert "application/vnd.plotly.v1+json" in bundle
    assert bundle["text/html"].startswith('<div role="figure" aria-label="Interactive figure with a slider')


def test_html_without_alt_is_the_bare_fragment(frames):
    text = static_html(step_slider_figure(frames), plotlyjs=False, div_id=ELEMENT_ID)
    assert text.startswith("<div") and f'id="{ELEMENT_ID}"' in text and 'role="figure"' not in text
    quoted = static_html(step_slider_figure(frames), plotlyjs=False, alt='a "quoted" <alt>')
    assert 'aria-label="a &quot;quoted&quot; &lt;alt&gt;"' in quoted


def test_the_vertical_range_is_fixed_up_to_its_bar_and_follows_the_step_above(frames):
    fig = step_slider_figure(frames)
    ranges = {float(t): tuple(f.layout.yaxis.range) for t, f in zip(frames.taus, fig.frames, strict=True)}
    small = [r for t, r in ranges.items() if t <= FIXED_AXIS_UP_TO]
    large = [r for t, r in ranges.items() if t > FIXED_AXIS_UP_TO]
    assert len(small) >= 3 and len(set(small)) == 1, "one range up to the bar"
    assert small[0][1] < large[0][1] < large[-1][1], "above the bar the range grows with the step"
    assert all(low == -high for low, high in ranges.values())


@pytest.mark.parametrize(("bar", "same"), [(1.5, True), (1.49, False)])
def test_the_bar_of_the_fixed_range_is_inclusive(monkeypatch, bar, same):
    frames = step_frames(taus=np.array([0.1, 1.5, 3.0]))
    monkeypatch.setattr(step_slider_module, "FIXED_AXIS_UP_TO", bar)
    first, second, _ = (f.layout.yaxis.range[1] for f in step_slider_figure(frames).frames)
    assert (first == second) is same and first <= second
