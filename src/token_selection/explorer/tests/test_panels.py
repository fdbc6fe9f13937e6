"""The three panels of one explorer result: what each panel draws, its titles and labels, and the PNG and sentence around it.

The results are built by hand (``conftest.hand_made_result``, no ``explore`` run): six tokens of uneven classes (two
positive-relevant, one negative-relevant, three irrelevant) and a short training history that starts at step 0, so every
number a panel shows is known in advance.
"""

from __future__ import annotations

import html
import json
import struct

import matplotlib
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import to_hex
from matplotlib.figure import Figure

from token_selection.explorer import panels
from token_selection.explorer.config import ExplorerConfig
from token_selection.explorer.panels import draw_hero, draw_panels, figure_png, hero_record, notice_html, show_panels, stale_parts
from token_selection.theory.plots import CLASS_COLORS, CLASS_LABELS

from .conftest import hand_made_result

GREEN = "#2ca02c"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def figure():
    """Drawn anew for each test: a test that reads the panels also draws them (mutation runs map tests to what they call)."""
    return draw_panels(hand_made_result())


def _points(collection) -> list[tuple[float, float]]:
    return [tuple(map(float, xy)) for xy in collection.get_offsets()]


@pytest.mark.parametrize(("panel", "key"), [(0, "values"), (2, "scores")])
def test_panels_one_and_three_scatter_each_class_against_alpha(figure, panel, key):
    result = hand_made_result()
    ax = figure.axes[panel]
    drawn = {c.get_label(): c for c in ax.collections}
    assert list(drawn) == [CLASS_LABELS[1], CLASS_LABELS[-1], CLASS_LABELS[0]]
    for cls, label in CLASS_LABELS.items():
        chosen = result.token_class == cls
        assert _points(drawn[label]) == list(zip(result.alpha[chosen], getattr(result, key)[chosen], strict=True))
        assert to_hex(drawn[label].get_facecolor()[0]) == to_hex(CLASS_COLORS[cls])


def test_panel_one_draws_the_fitted_and_the_predicted_line_over_the_range_of_alpha(figure):
    fit, predicted = figure.axes[0].get_lines()
    # alpha runs from -0.25 to 0.75 with mean 1/6, values have mean 0.5: the fit passes through (1/6, 0.5) with slope 2.5
    assert fit.get_xdata().tolist() == [-0.25, 0.75]
    np.testing.assert_allclose(fit.get_ydata(), [0.5 + 2.5 * (-0.25 - 1 / 6), 0.5 + 2.5 * (0.75 - 1 / 6)])
    assert fit.get_label() == "fit: slope 2.5" and fit.get_linestyle() == "-"
    # the one-step formula goes through the origin: values = predicted_slope * alpha
    assert predicted.get_xdata().tolist() == [-0.25, 0.75]
    np.testing.assert_allclose(predicted.get_ydata(), [-0.75, 2.25])
    assert predicted.get_label() == "predicted 3" and predicted.get_linestyle() == "--"
    for line in (fit, predicted):
        assert to_hex(line.get_color()) == "#000000" and line.get_linewidth() == 1.2


def test_panel_one_titles_and_labels(figure):
    ax = figure.axes[0]
    assert ax.get_title() == "1. one step of 2.5 $\\eta^*$\ncorr(E.v, alpha) = 0.988 (predicted 0.929)"
    assert ax.get_xlabel() == r"signed frequency $\alpha_s$"
    assert ax.get_ylabel() == r"$E_s \cdot v$ after one step"
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [*CLASS_LABELS.values(), "fit: slope 2.5", "predicted 3"]
    assert legend._loc == 2 and legend.get_texts()[0].get_fontsize() == 9.5  # 2: matplotlib's code of "upper left"


def test_panel_two_draws_training_from_step_one_on_a_log_axis(figure):
    ax = figure.axes[1]
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert list(lines) == [r"cos$(p, p_{mm})$", "mean relevant attention", "min relevant attention"]
    for line in lines.values():
        assert line.get_xdata().tolist() == [1, 10, 100]  # step 0 cannot show on the log axis
    assert lines[r"cos$(p, p_{mm})$"].get_ydata().tolist() == [0.5, 0.9, 0.96]
    assert to_hex(lines[r"cos$(p, p_{mm})$"].get_color()) == "#000000"
    assert lines["mean relevant attention"].get_ydata().tolist() == [0.4, 0.8, 0.99]
    assert lines["min relevant attention"].get_ydata().tolist() == [0.2, 0.6, 0.95]
    assert lines["mean relevant attention"].get_linestyle() == "-" and lines["min relevant attention"].get_linestyle() == ":"
    assert {to_hex(lines[k].get_color()) for k in ("mean relevant attention", "min relevant attention")} == {GREEN}
    assert ax.get_xscale() == "log" and ax.get_ylim() == (-0.05, 1.05)
    assert ax.get_xlabel() == "normalised-GD steps on p (log scale)" and ax.get_ylabel() == "cosine / attention mass"
    assert ax.get_title() == "2. training p\ncos(p, p_mm) = 0.960"
    legend = ax.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == list(lines)
    assert legend._loc == 4 and legend.get_texts()[0].get_fontsize() == 9.5  # 4: "lower right"
    assert not ax.texts


@pytest.mark.parametrize(
    ("own", "title"),
    [
        (0.96, "2. training p\ncos(p, p_mm) = 0.960"),  # p selects the relevant tokens: nothing to add
        (None, "2. training p\ncos(p, p_mm) = 0.960"),  # no max-margin direction of p's own selection
        (0.9991, "2. training p\ncos(p, p_mm) = 0.960; own selection: 0.999"),
    ],
)
def test_panel_two_names_the_cosine_of_p_s_own_selection_only_when_it_differs(own, title):
    assert draw_panels(hand_made_result(selection_cosine=own)).axes[1].get_title() == title


def test_without_p_mm_panel_two_says_why_and_draws_only_the_attention():
    # a 34-character line fits, a 35-character one is broken: "a"*32 + " b" is 34, "c"*33 + " d" is 35
    message = "a" * 32 + " b " + "c" * 33 + " d"
    result = hand_made_result(final_cosine=None, selection_cosine=None, max_margin_message=message)
    ax = draw_panels(result).axes[1]
    assert ax.get_title() == "2. training p\nno p_mm"
    assert [line.get_label() for line in ax.get_lines()] == ["mean relevant attention", "min relevant attention"]
    (text,) = ax.texts
    assert text.get_text() == "\n".join(["no max-margin direction:", "a" * 32 + " b", "c" * 33, "d"])
    assert text.get_position() == (0.5, 0.62) and text.get_transform() == ax.transAxes
    assert text.get_bbox_patch().get_facecolor()[:3] == (1.0, 1.0, 1.0)  # on white, over the curves
    assert (text.get_horizontalalignment(), text.get_verticalalignment()) == ("center", "center")
    assert text.get_fontsize() == 9.5 and to_hex(text.get_color()) == "#8b0000"


def test_panel_three_and_the_figure_title(figure):
    ax = figure.axes[2]
    assert ax.get_xlabel() == r"importance: signed frequency $\alpha_s$"
    assert ax.get_ylabel() == r"$E_s \cdot p/\|p\|$ after training p"
    # scores 3, 4 (positive), 2 (negative) against irrelevant -1, -1.5, -0.5: both classes above every irrelevant token
    assert ax.get_title() == "3. final scores (colours as in 1)\nboth classes on top"
    assert not ax.get_lines() and ax.get_legend() is None
    assert figure._suptitle.get_text() == "delta=0.25, d=64, T=6, n=10, one step eta=2.5 eta*, p-steps=100, seed=3"
    assert figure._suptitle.get_fontsize() == 10.5


def test_the_figure_title_is_10_5_points_whatever_the_default_font_size():
    with matplotlib.rc_context({"font.size": 14, "figure.titlesize": 16}):
        figure = draw_panels(hand_made_result())
    assert figure._suptitle.get_fontsize() == 10.5


def test_the_panels_fill_the_width_and_no_text_overlaps_another_panel_or_the_title():
    figure = draw_panels(hand_made_result())  # the default width: 11 inches
    assert tuple(figure.get_size_inches()) == pytest.approx((11.0, 3.3))
    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw(renderer)
    boxes = [ax.get_tightbbox(renderer) for ax in figure.axes]  # each panel with its titles, labels and ticks
    frames = [ax.get_window_extent(renderer) for ax in figure.axes]
    assert [f.x0 for f in frames] == sorted(f.x0 for f in frames)  # left to right: step, training, scores
    width, height = figure.bbox.width, figure.bbox.height
    assert frames[0].x0 < 0.08 * width and frames[2].x1 > 0.98 * width  # the three panels use the figure's width
    for box in boxes:
        assert box.x0 >= 0 and box.x1 <= width and box.y0 >= 0 and box.y1 <= height  # nothing cut off
    assert all(frame.width >= 0.24 * width for frame in frames)  # three panels share the width, little lost to gaps
    for left, right in zip(boxes, boxes[1:], strict=False):
        assert right.x0 - left.x1 >= 0.02 * width  # a panel's labels stay clear of the next one's, with a visible gap
    assert all(box.y0 >= 0.03 * height for box in boxes)  # the x labels are not flush with the lower edge
    title = figure._suptitle.get_window_extent(renderer)
    assert all(title.y0 > box.y1 for box in boxes)  # the two-line panel titles stay under the figure's title


def test_figure_png_is_a_png_at_80_dots_per_inch():
    figure = Figure(figsize=(2.5, 1.0))  # an empty figure: the size in pixels is all this test reads
    png = figure_png(figure)
    assert png.startswith(PNG_SIGNATURE)
    # the IHDR chunk holds the size in pixels: 2.5 x 1 inches at 80 dpi, then at 10 dpi
    assert struct.unpack(">II", png[16:24]) == (200, 80)
    assert struct.unpack(">II", figure_png(figure, dpi=10)[16:24]) == (25, 10)
    with matplotlib.rc_context({"savefig.format": "svg"}):  # PNG whatever the default format
        assert figure_png(figure).startswith(PNG_SIGNATURE)


def test_notice_html_escapes_the_sentence():
    assert notice_html("a <b> & c").data == "<p><b>What to notice:</b> a &lt;b&gt; &amp; c.</p>"


def test_show_panels_displays_the_figure_then_the_sentence(monkeypatch):
    import IPython.display

    shown, drawn = [], []
    monkeypatch.setattr(IPython.display, "display", shown.append)
    monkeypatch.setattr(panels, "figure_png", lambda fig: drawn.append(fig) or PNG_SIGNATURE + b"panels")
    result = hand_made_result(config=ExplorerConfig(d=32, T=4))
    show_panels(result)
    image, sentence = shown
    assert isinstance(image, IPython.display.Image) and image.data == PNG_SIGNATURE + b"panels"
    (figure,) = drawn  # the PNG is of this result's panels
    assert len(figure.axes) == 3 and figure._suptitle.get_text() == result.config.label()
    assert sentence.data == f"<p><b>What to notice:</b> {html.escape(result.notice)}.</p>"


@pytest.mark.parametrize(
    ("scores", "words"),
    [
        ([3.0, 2.0, -1.0, -1.5, 4.0, -0.5], "both classes on top"),
        ([3.0, 2.0, -1.0, -1.5, -0.6, -0.5], "some of both classes on top"),  # one positive token below -0.5
        ([3.0, -2.0, -1.0, -1.5, 4.0, -0.5], "no negative token on top"),
        ([-3.0, 2.0, -1.0, -1.5, -4.0, -0.5], "no positive token on top"),
        ([-3.0, -2.0, -1.0, -1.5, -4.0, -0.5], "no relevant token on top"),
        ([-0.5, 2.0, -1.0, -1.5, 4.0, -0.5], "some of both classes on top"),  # a tie with the best irrelevant is not above it
    ],
)
def test_score_pattern_says_which_relevant_tokens_end_above_every_irrelevant_one(scores, words):
    token_class = hand_made_result().token_class  # [1, -1, 0, 0, 1, 0]
    assert panels.score_pattern(np.array(scores), token_class) == words
    assert panels.score_pattern(scores, token_class.tolist()) == words  # lists, as the grid stores them
    assert draw_panels(hand_made_result(scores=np.array(scores))).axes[2].get_title().endswith("\n" + words)


def test_score_pattern_claims_nothing_without_a_score_or_a_class():
    token_class = [1, -1, 0, 0, 1, 0]
    assert panels.score_pattern([3.0, 2.0, None, -1.5, 4.0, -0.5], token_class) == ""
    assert panels.score_pattern([3.0, 2.0, np.nan, -1.5, 4.0, -0.5], token_class) == ""
    assert panels.score_pattern([3.0, 2.0, 1.0], [1, 1, 0]) == ""  # no negative class
    assert panels.score_pattern([3.0, 2.0], [1, -1]) == ""  # no irrelevant token to rank against
    assert panels.scores_title([3.0, 2.0], [1, -1]) == "3. final scores"
    assert panels.scores_title([3.0, 2.0, 1.0], [1, -1, 0], newline="<br>") == "3. final scores<br>both classes on top"


def test_score_pattern_refuses_mismatched_or_unknown_classes():
    with pytest.raises(ValueError, match="same length, got 3 and 2"):
        panels.score_pattern([1.0, 2.0, 3.0], [1, 0])
    with pytest.raises(ValueError, match=r"only -1, 0 and \+1, got \[0, 1, 2\]"):
        panels.score_pattern([1.0, 2.0, 3.0], [1, 0, 2])


def test_every_pattern_fits_a_panel_title():
    assert all(len(words) <= 30 for words in panels.SCORE_PATTERNS.values())


# The front page's figure (draw_hero) and the record kept beside its image.


def test_three_panels_with_plain_titles_and_panel_three_from_the_scores():
    ax_step, ax_train, ax_score = draw_hero(hand_made_result()).axes
    assert ax_step.get_title() == "1. one gradient step on $E$:\nvalues line up with importance"
    assert ax_train.get_title() == "2. training $p$: attention moves\nonto the relevant tokens"
    # scores 3, 4 (positive) and 2 (negative) above the irrelevant -1, -1.5, -0.5
    assert ax_score.get_title() == "3. final scores $E_s\\cdot p/\\|p\\|$:\nboth classes on top"
    one_class = hand_made_result(scores=np.array([3.0, -2.0, -1.0, -1.5, 4.0, -0.5]))
    assert draw_hero(one_class).axes[2].get_title().endswith("\nno negative token on top")


def test_panel_one_shows_the_fit_and_the_correlation():
    ax = draw_hero(hand_made_result()).axes[0]
    (fit,) = ax.get_lines()
    assert fit.get_xdata().tolist() == [-0.25, 0.75]
    np.testing.assert_allclose(fit.get_ydata(), [0.5 + 2.5 * (-0.25 - 1 / 6), 0.5 + 2.5 * (0.75 - 1 / 6)])
    assert [t.get_text() for t in ax.texts] == ["correlation 0.988"]


def test_panel_two_draws_attention_and_cosine_after_step_zero():
    ax = draw_hero(hand_made_result()).axes[1]
    attention, cosine = ax.get_lines()
    assert attention.get_xdata().tolist() == [1, 10, 100] == cosine.get_xdata().tolist()  # step 0 has no place on a log axis
    assert attention.get_ydata().tolist() == [0.4, 0.8, 0.99] and cosine.get_ydata().tolist() == [0.5, 0.9, 0.96]
    assert ax.get_xscale() == "log"


def test_a_run_without_max_margin_direction_or_a_bad_width_is_refused():
    with pytest.raises(ValueError, match="final_cosine is None"):
        draw_hero(hand_made_result(final_cosine=None))
    with pytest.raises(ValueError, match="positive number of inches, got 0"):
        draw_hero(hand_made_result(), width=0)


def test_the_record_holds_settings_numbers_words_and_the_drawing_hash():
    record = hero_record(hand_made_result())
    assert json.loads(json.dumps(record)) == record  # JSON-ready
    assert record["config"]["d"] == 64 and record["config"]["seed"] == 3
    assert record["numbers"]["correlation"] == 0.9876 and set(record["numbers"]) == set(panels.RECORDED_NUMBERS)
    assert record["score_pattern"] == "both classes on top"
    assert record["drawing_sha256"] == panels.drawing_sha256() and len(record["drawing_sha256"]) == 64


def test_stale_parts_names_what_changed():
    recorded = hero_record(hand_made_result())
    assert stale_parts(recorded, hero_record(hand_made_result())) == []
    nudged = hero_record(hand_made_result(correlation=0.9876 * (1 + 1e-9)))
    assert stale_parts(recorded, nudged) == []  # within rtol 1e-6
    moved = hero_record(hand_made_result(correlation=0.9, scores=np.array([3.0, -2.0, -1.0, -1.5, 4.0, -0.5])))
    assert stale_parts(recorded, moved) == ["score_pattern", "numbers.correlation"]
    assert stale_parts(recorded | {"drawing_sha256": "0" * 64}, recorded) == ["drawing_sha256"]
    assert stale_parts({}, recorded) == ["config", "score_pattern", "drawing_sha256"] + [
        f"numbers.{name}" for name in panels.RECORDED_NUMBERS
    ]


def test_the_front_page_figure_layout_lettering_and_line_styles():
    figure = draw_hero(hand_made_result(), width=8.0)
    assert tuple(figure.get_size_inches()) == pytest.approx((8.0, 0.34 * 8.0))
    frame = figure.subplotpars
    assert (frame.left, frame.right, frame.bottom, frame.top, frame.wspace) == (0.07, 0.99, 0.18, 0.79, 0.3)
    ax_step, ax_train, ax_score = figure.axes
    size = panels.HERO_FONT_SIZE
    assert size == 10.5
    for ax in (ax_step, ax_train, ax_score):
        assert ax.title.get_fontsize() == size
        assert ax.xaxis.label.get_fontsize() == size - 1
        assert ax.xaxis.get_ticklabels()[0].get_fontsize() == size - 2
        assert ax.yaxis.get_ticklabels()[0].get_fontsize() == size - 2
    assert ax_step.yaxis.label.get_fontsize() == ax_score.yaxis.label.get_fontsize() == size - 1
    assert ax_step.get_xlabel() == ax_score.get_xlabel() == r"importance $\alpha_s$ (signed frequency)"
    assert ax_step.get_ylabel() == r"value $E_s\cdot v$" and ax_score.get_ylabel() == r"score $E_s\cdot p\,/\,\|p\|$"
    assert ax_train.get_xlabel() == "gradient steps on $p$ (log scale)" and ax_train.get_ylim() == (-0.03, 1.05)

    (fit,) = ax_step.get_lines()
    assert to_hex(fit.get_color()) == "#000000" and fit.get_linewidth() == 1
    (note,) = ax_step.texts
    assert note.get_position() == (0.97, 0.05) and note.get_transform() == ax_step.transAxes
    assert note.get_horizontalalignment() == "right" and note.get_fontsize() == size - 1.5
    legend = ax_step.get_legend()
    assert legend._loc == 2 and legend.get_texts()[0].get_fontsize() == size - 2.5  # 2: "upper left"
    assert legend.handletextpad == 0.1 and legend.borderaxespad == 0.3 and not legend.get_frame_on()

    attention, cosine = ax_train.get_lines()
    assert to_hex(attention.get_color()) == "#2ca02c" and attention.get_linewidth() == 1.6
    assert attention.get_label() == "mean relevant attention"
    assert to_hex(cosine.get_color()) == "#000000" and cosine.get_linewidth() == 1.2
    assert cosine.get_linestyle() == "--" and cosine.get_label() == r"$\cos(p,\ $max-margin direction$)$"
    legend = ax_train.get_legend()
    assert legend._loc == 4 and legend.get_texts()[0].get_fontsize() == size - 2.5  # 4: "lower right"
    assert not legend.get_frame_on()
    assert draw_hero(hand_made_result()).get_size_inches()[0] == 9.0  # the default width


def test_stacked_panels_sit_one_above_another_with_their_legends_beside_them():
    figure = draw_panels(hand_made_result(), stacked=True)
    assert tuple(figure.get_size_inches()) == (7.0, 9.0)
    renderer = FigureCanvasAgg(figure).get_renderer()
    figure.draw(renderer)
    frames = [ax.get_window_extent(renderer) for ax in figure.axes]
    boxes = [ax.get_tightbbox(renderer) for ax in figure.axes]
    width, height = figure.bbox.width, figure.bbox.height
    assert [f.y0 for f in frames] == sorted((f.y0 for f in frames), reverse=True)  # step, training, scores from the top
    for box in boxes:
        assert box.x0 >= 0 and box.x1 <= width and box.y0 >= 0 and box.y1 <= height  # nothing cut off, legends included
    for upper, lower in zip(boxes, boxes[1:], strict=False):
        assert upper.y0 > lower.y1  # a panel's labels stay clear of the title of the one below
    for ax, frame in zip(figure.axes[:2], frames, strict=False):
        legend = ax.get_legend().get_window_extent(renderer)
        assert legend.x0 > frame.x1 and legend.y1 <= frame.y1 + 1  # right of the panel, from its top down
    assert frames[0].width > 0.5 * width  # the panels keep most of the width
    side_by_side = draw_panels(hand_made_result())
    assert side_by_side.axes[0].get_legend()._loc == 2  # the live explorer's layout is unchanged: upper left


def test_show_panels_draws_the_stacked_layout(monkeypatch):
    import IPython.display

    drawn = []
    monkeypatch.setattr(IPython.display, "display", lambda _: None)
    monkeypatch.setattr(panels, "figure_png", lambda fig: drawn.append(fig) or PNG_SIGNATURE)
    show_panels(hand_made_result())
    (figure,) = drawn
    assert tuple(figure.get_size_inches()) == (7.0, 9.0)
