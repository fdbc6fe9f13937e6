"""Tests of the live explorer widget (ipywidgets 7.7 and 8 alike)."""

from __future__ import annotations

import dataclasses
import html
import itertools
import re
import types

import pytest

from token_selection.explorer import live as live_module
from token_selection.explorer.compute import STAGES
from token_selection.explorer.config import DEFAULT_CONFIG, ExplorerConfig
from token_selection.explorer.live import D_OPTIONS, PRIMARY, T_OPTIONS, LiveExplorer, live_explorer
from token_selection.explorer.panels import draw_panels

from .conftest import hand_made_result


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


# The widget's own logic, with explore and the drawing replaced by fakes: no run, no rendering.


class FakeOutput:
    """Stands in for the ``Output`` widget: records each clearing and what is displayed inside it."""

    def __init__(self) -> None:
        self.events: list = []

    def clear_output(self, **kwargs) -> None:
        self.events.append(("clear", kwargs))

    def __enter__(self):
        self.events.append("enter")
        return self

    def __exit__(self, *exc) -> None:
        self.events.append("exit")


@pytest.fixture
def fakes(monkeypatch):
    """explore, the drawing, display and the clock replaced: each call is recorded in ``fakes``'s lists."""
    import IPython.display

    seen = types.SimpleNamespace(settings=[], stages=[], drawn=[], shown=[], error=None, clock=itertools.count(), live=None)

    def explore(on_stage, **settings):
        seen.settings.append(settings)
        for stage in STAGES[:4]:
            on_stage(stage)
            seen.stages.append((seen.live.progress.value, seen.live.status.value))
        if seen.error is not None:
            raise seen.error
        return hand_made_result(config=ExplorerConfig(**settings), notice="p <converges>")

    def draw(result, stacked=False):
        widget = seen.live
        seen.drawn.append((result, widget.progress.value, widget.status.value, widget.progress.bar_style))
        return "stacked figure" if stacked else "figure"

    monkeypatch.setattr(live_module, "explore", explore)
    monkeypatch.setattr(live_module, "draw_panels", draw)
    monkeypatch.setattr(live_module, "figure_png", lambda figure: PNG + figure.encode())
    monkeypatch.setattr(IPython.display, "display", seen.shown.append)
    monkeypatch.setattr(live_module, "time", types.SimpleNamespace(perf_counter=lambda: next(seen.clock)))
    return seen


PNG = b"\x89PNG\r\n\x1a\n"


SMALL = ExplorerConfig(delta=0.0, d=64, T=4, p_steps=50)


def _live(fakes, config: ExplorerConfig = SMALL) -> LiveExplorer:
    """A live explorer whose output area is a ``FakeOutput``, watched by ``fakes``."""
    live = LiveExplorer(config)
    live.output = FakeOutput()
    fakes.live = live  # where the fakes read the progress bar and the status line
    return live


def test_every_setting_has_a_labelled_control_over_the_range_explore_accepts():
    live = LiveExplorer(ExplorerConfig(delta=0.35, d=128, T=16, n=40, step_factor=3.0, p_steps=70, zipf=0.5, seed=9))
    expected = {  # description, min, max, step: each control reaches only settings ExplorerConfig accepts
        "delta": ("delta (relevant rate)", 0.0, 1.0, 0.05),  # a probability
        "n": ("n (sequences)", 2, 1000, 2),  # even numbers only: label-swapped twins
        "step_factor": ("one step: eta / eta*", -2, 3, 0.1),  # exponents of 10: eta from 0.01 to 1000 eta*
        "p_steps": ("p-steps", 10, 10000, 10),
        "zipf": ("Zipf exponent", 0.0, 2.0, 0.25),
    }
    for name, (description, low, high, step) in expected.items():
        control = live.controls[name]
        assert (control.description, control.min, control.max, control.step) == (description, low, high, step), name
    assert live.controls["step_factor"].base == 10 and live.controls["step_factor"].readout_format == ".3g"
    assert live.controls["d"].options == D_OPTIONS and live.controls["d"].description == "d (embedding dim)"
    assert live.controls["T"].options == T_OPTIONS and live.controls["T"].description == "T (sequence length)"
    seed = live.controls["seed"]
    assert (seed.description, seed.min, seed.max) == ("seed", 0, 10**6)
    # each control starts at the config's value
    assert {name: control.value for name, control in live.controls.items()} == {
        "delta": 0.35, "d": 128, "T": 16, "n": 40, "step_factor": pytest.approx(3.0), "p_steps": 70, "zipf": 0.5, "seed": 9,
    }  # fmt: skip
    for control in live.controls.values():
        assert control.style.description_width == "150px" and control.layout.width == "420px"
    assert all(control.continuous_update is False for name, control in live.controls.items() if name != "seed")


def test_the_layout_primary_sliders_next_to_more_settings_then_progress_then_the_panels():
    live = LiveExplorer(ExplorerConfig(d=64, T=4))
    top, bar, output = live.widget.children
    primary, more = top.children
    assert list(primary.children) == [live.controls[name] for name in PRIMARY] and more is live.more
    assert list(more.children[0].children) == [live.controls[k] for k in ("n", "step_factor", "p_steps", "zipf", "seed")]
    assert list(bar.children) == [live.progress, live.status] and output is live.output
    assert (live.progress.value, live.progress.min, live.progress.max) == (0, 0, len(STAGES))
    assert live.progress.layout.width == "200px" and live.status.value == ""
    assert (live.last_result, live.last_png, live.last_error) == (None, b"", "")


@pytest.mark.parametrize(("d", "T"), [(100, 4), (64, 3), (100, 3)])
def test_a_start_off_the_sliders_is_refused_naming_what_they_offer(d, T):
    message = f"the live explorer offers d in {D_OPTIONS} and T in {T_OPTIONS}, got d={d}, T={T}"
    with pytest.raises(ValueError, match=re.escape(message)):
        LiveExplorer(ExplorerConfig(d=d, T=T))


def test_a_redraw_reports_each_stage_then_shows_the_panels_and_the_sentence(fakes):
    live = _live(fakes)
    fakes.clock = iter([10.0, 11.5])
    live.redraw()
    assert fakes.stages == [(k, f"computing… {stage}") for k, stage in enumerate(STAGES[:4])]
    ((result, value, status, style),) = fakes.drawn
    assert (value, status, style) == (4, "computing… drawing panels", "")
    assert live.last_result is result and live.last_png == PNG + b"figure" and live.last_error == ""
    image, sentence = fakes.shown
    assert image.data == PNG + b"figure"
    assert sentence.data == "<p><b>What to notice:</b> p &lt;converges&gt;.</p>"
    # the old panels stay until the new ones are ready (no flicker), then the new ones are drawn inside the output
    assert live.output.events == [("clear", {"wait": True}), "enter", "exit"]
    assert (live.progress.value, live.progress.bar_style, live.status.value) == (len(STAGES), "success", "done in 1.50 s")


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (ValueError("T=1 leaves <no> room"), "T=1 leaves <no> room"),  # a bad setting: its message as it is
        (RuntimeError("solver & co failed"), "RuntimeError: solver & co failed"),  # anything else: named by its type
    ],
)
def test_a_failure_becomes_a_message_in_the_panel_and_the_next_redraw_clears_it(fakes, error, text):
    live = _live(fakes)
    live.redraw()  # a good redraw first: the failure must drop its result
    fakes.error = error
    live.redraw()
    assert (live.last_result, live.last_png, live.last_error) == (None, b"", text)
    assert fakes.shown[-1].data == (f'<p style="color:#8b0000"><b>These settings cannot be drawn.</b> {html.escape(text)}</p>')
    assert live.output.events[-3:] == [("clear", {"wait": True}), "enter", "exit"]
    assert (live.progress.bar_style, live.status.value) == ("danger", "invalid settings: see the message below")
    fakes.error = None
    live.redraw()
    assert fakes.drawn[-1][3] == ""  # the red bar is reset as the new computation starts
    assert live.last_error == "" and live.progress.bar_style == "success"


def test_set_values_moves_several_controls_with_one_redraw(fakes):
    live = _live(fakes)
    live.set_values(T=8, delta=0.1, step_factor=2.0)
    assert len(fakes.settings) == 1
    assert (fakes.settings[0]["T"], fakes.settings[0]["delta"], fakes.settings[0]["step_factor"]) == (8, 0.1, 2.0)
    live.controls["seed"].value = 5  # the controls observe again: one move, one redraw
    assert len(fakes.settings) == 2 and fakes.settings[-1]["seed"] == 5


def test_set_values_refuses_unknown_controls_and_values_off_a_slider_and_keeps_observing(fakes):
    live = _live(fakes)
    with pytest.raises(ValueError) as unknown:
        live.set_values(width=3, T=8, alpha=1)
    assert str(unknown.value) == f"unknown control(s) ['alpha', 'width']; the controls are {tuple(live.controls)}"
    with pytest.raises(ValueError) as off:
        live.set_values(d=100)
    assert str(off.value) == f"d=100 is not on the slider; it offers {D_OPTIONS}"
    assert fakes.settings == [] and live.controls["d"].value == 64
    live.controls["T"].value = 8  # still observed after the refusal
    assert len(fakes.settings) == 1


def test_settings_are_the_config_with_the_controls_over_it(fakes):
    config = ExplorerConfig(d=64, T=4, vocab_size=20, p_lr=0.5, seed=2)
    live = _live(fakes, config)
    live.controls["seed"].value = 7
    settings = live.settings()
    assert settings == dataclasses.asdict(config) | {name: control.value for name, control in live.controls.items()}
    assert (settings["vocab_size"], settings["p_lr"], settings["seed"]) == (20, 0.5, 7)
    assert fakes.settings == [settings]  # what the redraw computed


def test_show_draws_the_controls_then_a_static_figure_of_the_defaults(fakes, capsys):
    live = _live(fakes)
    live.show()
    image_in_output, sentence_in_output, widget, image, sentence = fakes.shown
    assert widget is live.widget
    assert image.data == PNG + b"stacked figure" and sentence.data == sentence_in_output.data
    assert image_in_output.data == PNG + b"figure"  # the live output keeps the panels side by side
    assert capsys.readouterr().out == ("Static figure of the defaults (for pages without a kernel; the live panels are above):\n")


def test_show_of_settings_that_cannot_be_drawn_shows_the_controls_and_the_message_only(fakes, capsys):
    live = _live(fakes)
    fakes.error = ValueError("bad")
    live.show()
    message, widget = fakes.shown
    assert "bad" in message.data and widget is live.widget and capsys.readouterr().out == ""


def test_live_explorer_builds_the_widget_at_its_config():
    config = ExplorerConfig(delta=0.2, d=32, T=16)
    live = live_explorer(config)
    assert isinstance(live, LiveExplorer) and live.config is config and live.controls["delta"].value == 0.2
    assert live_explorer().config == DEFAULT_CONFIG
