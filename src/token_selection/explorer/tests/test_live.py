"""Tests of the live explorer widget (ipywidgets 7.7 and 8 alike)."""

from __future__ import annotations

import pytest

from token_selection.explorer.config import ExplorerConfig
from token_selection.explorer.live import PRIMARY, LiveExplorer
from token_selection.explorer.panels import draw_panels


def test_live_explorer_redraws_on_release_and_shows_errors_as_messages():
    live = LiveExplorer(ExplorerConfig(delta=0.0, d=64, T=4, p_steps=50))
    assert all(control.continuous_update is False for control in live.controls.values())
    assert live.more.get_title(0) == "more settings"  # set_title: the header ipywidgets 7.7 shows
    assert set(live.controls) - set(PRIMARY) == {"n", "step_factor", "p_steps", "zipf", "seed"}

    live.redraw()
    assert live.last_result is not None and live.last_png.startswith(b"\x89PNG")
    assert live.progress.value == live.progress.max and live.status.value.startswith("done in")

    live.controls["T"].value = 1  # an observer redraws, as a slider release would
    assert live.last_result is None
    assert live.last_error.startswith("T=1 leaves no room for selection")
    assert live.status.value.startswith("invalid settings")

    live.set_values(T=8, delta=0.1, step_factor=2.0)
    result = live.last_result
    assert live.last_error == "" and (result.config.T, result.config.delta, result.config.step_factor) == (8, 0.1, 2.0)
    with pytest.raises(ValueError, match="T=3 is not on the slider"):
        live.set_values(T=3)
    with pytest.raises(ValueError, match="unknown control"):
        live.set_values(width=3)


def test_live_explorer_rejects_a_start_off_its_sliders():
    with pytest.raises(ValueError, match="the live explorer offers d in"):
        LiveExplorer(ExplorerConfig(d=100))


def test_draw_panels_gives_three_labelled_panels(reference):
    fig = draw_panels(reference)
    assert len(fig.axes) == 3
    assert all(ax.get_xlabel() and ax.get_ylabel() and ax.get_title() for ax in fig.axes)
    assert fig.axes[1].get_xscale() == "log"
    assert "predicted 0.998" in fig.axes[0].get_title()
