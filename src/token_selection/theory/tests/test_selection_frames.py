"""Tests of the token frames in the plane of v and the direction of p."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from token_selection.theory.max_margin import solve_max_margin  # noqa: E402
from token_selection.theory.selection_frames import (  # noqa: E402
    ARRIVED,
    COMPASS_FONT,
    RACE_LINES,
    Frame,
    class_race,
    direction_in_plane,
    frame_coordinates,
    lost_class,
    p_at_steps,
    plot_class_race,
    plot_selection_frames,
)
from token_selection.theory.synthetic import REFERENCE_CASE  # noqa: E402


@pytest.fixture(scope="module")
def trained(reference_case):
    """The reference case, its p_mm and p after 0, 1, 10 and (at most) 5000 steps of normalised GD."""
    data, stepped = reference_case
    E, v = stepped.E.detach(), stepped.v.detach()
    p_mm = solve_max_margin(E, data.X, data.relevant).direction
    frames = p_at_steps(REFERENCE_CASE.model_after_one_step(data.X, data.y), data.X, data.y, [0, 1, 10, 5000])
    return data, E, v, p_mm, frames


def test_coordinates_are_the_values_and_the_scores_per_unit_p():
    gen = torch.Generator().manual_seed(0)
    E, v, p = (torch.randn(*shape, generator=gen, dtype=torch.float64) for shape in ((6, 8), (8,), (8,)))
    xy = frame_coordinates(E, 3 * v, 5 * p)
    np.testing.assert_allclose(xy[:, 0], (E @ v / v.norm()).numpy(), atol=1e-13)
    np.testing.assert_allclose(xy[:, 1], (E @ p / p.norm()).numpy(), atol=1e-13)
    assert (frame_coordinates(E, v, torch.zeros(8, dtype=torch.float64))[:, 1] == 0).all()  # p = 0: every score 0


def test_direction_in_plane():
    v, p_mm = torch.tensor([1.0, 0.0, 0.0]), torch.tensor([0.0, 2.0, 0.0])
    np.testing.assert_allclose(direction_in_plane(torch.tensor([3.0, 4.0, 0.0]), v, p_mm), [0.6, 0.8])
    np.testing.assert_allclose(direction_in_plane(torch.tensor([0.0, 0.0, 7.0]), v, p_mm), [0.0, 0.0])
    assert (direction_in_plane(torch.zeros(3), v, p_mm) == 0).all()


def test_frames_start_at_zero_and_stop_at_the_float64_floor(trained):
    *_, frames = trained
    assert [f.step for f in frames[:3]] == [0, 1, 10]
    assert float(frames[0].p.norm()) == 0 and float(frames[1].p.norm()) == pytest.approx(1.0)  # one unit step
    assert 10 < frames[-1].step < 5000  # normalised GD stops at the floor well before 5000 steps


def test_after_training_relevant_tokens_sit_above_and_x_orders_them_by_sign(trained):
    data, E, v, p_mm, frames = trained
    cls = data.token_class.numpy()
    for p in (frames[-1].p, p_mm):
        xy = frame_coordinates(E, v, p)
        assert xy[cls != 0, 1].min() > xy[cls == 0, 1].max()
        assert xy[cls == 1, 0].min() > xy[cls == 0, 0].max() and xy[cls == -1, 0].max() < xy[cls == 0, 0].min()
    start = frame_coordinates(E, v, frames[1].p)
    assert start[cls != 0, 1].min() < start[cls == 0, 1].max()  # one step in, the two levels are not there yet
    assert direction_in_plane(frames[-1].p, v, p_mm)[1] > direction_in_plane(frames[1].p, v, p_mm)[1]


def test_plot_draws_each_frame_with_its_compass(trained):
    data, E, v, p_mm, frames = trained
    fig, axes = plt.subplots(1, len(frames))
    drawn = plot_selection_frames(axes, E, v, p_mm, frames, data.token_class, {"great": 0, "the": 20})
    for ax, frame, xy in zip(axes, frames, drawn, strict=True):
        np.testing.assert_allclose(xy, frame_coordinates(E, v, frame.p))
        assert {"great", "the"} <= {t.get_text() for t in ax.texts}
        assert len(ax.child_axes) == 1
    assert axes[0].get_title() == "step 0: $p = 0$" and axes[-1].get_title() == f"step {frames[-1].step}"
    assert len(axes[0].child_axes[0].texts) == 2  # p = 0: the two axis names, no arrow
    assert len(axes[-1].child_axes[0].texts) == 3
    plt.close(fig)


def test_inputs_are_checked(trained):
    data, E, v, p_mm, frames = trained
    model = REFERENCE_CASE.model_after_one_step(data.X, data.y)
    for steps in ([], [-1], [3, 3], [5, 2]):
        with pytest.raises(ValueError, match="strictly increasing"):
            p_at_steps(model, data.X, data.y, steps)
    fig, axes = plt.subplots(1, 2)
    with pytest.raises(ValueError, match="one axis per frame"):
        plot_selection_frames(axes, E, v, p_mm, frames, data.token_class, {})
    with pytest.raises(ValueError, match="token_class"):
        plot_selection_frames(axes, E, v, p_mm, frames[:2], data.token_class[:5], {})
    with pytest.raises(ValueError, match="non-zero"):
        frame_coordinates(E, torch.zeros(E.shape[1]), p_mm)
    with pytest.raises(ValueError, match="vector"):
        frame_coordinates(E, torch.ones(2, E.shape[1]), p_mm)
    plt.close(fig)


def _hollow_points(ax) -> int:
    """How many tokens the panel draws hollow, at their place at p_mm: one per far token."""
    hollow = [c for c in ax.collections if len(c.get_facecolors()) == 0]
    return sum(len(c.get_offsets()) for c in hollow)


@pytest.mark.parametrize(("between", "far"), [(1.0001, 0), (0.9999, 1), (0.5, None)])
def test_a_token_is_far_past_arrived_times_the_span_asked(trained, between, far):
    data, E, v, p_mm, frames = trained
    distance = np.abs(frame_coordinates(E, v, p_mm)[:, 1] - frame_coordinates(E, v, frames[2].p)[:, 1])
    first, second = np.sort(distance)[-2:][::-1]
    span = (second + between * (first - second)) / ARRIVED if between != 0.5 else first / ARRIVED / 2
    expected = far if far is not None else int((distance > ARRIVED * span).sum())
    assert expected > 1 or far is not None, "the half span marks several tokens far"
    fig, ax = plt.subplots()
    plot_selection_frames([ax], E, v, p_mm, [frames[2]], data.token_class, {}, span=span)
    assert _hollow_points(ax) == expected
    plt.close(fig)


@pytest.mark.parametrize("span", [0.0, -1.0, float("nan"), float("inf")])
def test_a_span_that_is_not_a_positive_height_is_named(trained, span):
    data, E, v, p_mm, frames = trained
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="span must be a positive finite height"):
        plot_selection_frames([ax], E, v, p_mm, [frames[2]], data.token_class, {}, span=span)
    plt.close(fig)


def _lines(ax):
    return {tuple(np.round(line.get_xdata(), 6)) + tuple(np.round(line.get_ydata(), 6)): line for line in ax.get_lines()}


def test_the_compass_draws_the_unit_circle_the_mm_axis_and_p_in_its_styles(trained):
    data, E, v, p_mm, frames = trained
    fig, axes = plt.subplots(1, len(frames))
    plot_selection_frames(axes, E, v, p_mm, frames, data.token_class, {"great": 0})
    inset = axes[-1].child_axes[0]
    assert tuple(inset.get_xlim()) == (-1.15, 1.15) and tuple(inset.get_ylim()) == (-1.15, 1.15)
    assert inset.get_aspect() == 1.0 and list(inset.get_xticks()) == [] and list(inset.get_yticks()) == []
    circle, axis, v_axis = inset.get_lines()
    assert len(circle.get_xdata()) == 100 and np.allclose(np.hypot(circle.get_xdata(), circle.get_ydata()), 1.0)
    assert circle.get_color() == "lightgray" and circle.get_linewidth() == 0.8
    assert list(axis.get_xdata()) == [0, 0] and list(axis.get_ydata()) == [0, 1]
    assert axis.get_linestyle() == ":" and axis.get_color() == "black" and axis.get_linewidth() == 1
    assert list(v_axis.get_xdata()) == [0, 1] and list(v_axis.get_ydata()) == [0, 0]
    assert v_axis.get_linestyle() == ":" and v_axis.get_color() == "black" and v_axis.get_linewidth() == 1
    names = {t.get_text(): t for t in inset.texts if t.get_text()}
    assert tuple(names[r"$\hat p_{\mathrm{mm}}$"].xy) == (0, 1) and tuple(names[r"$\hat v$"].xy) == (1, 0)
    assert tuple(names[r"$\hat p_{\mathrm{mm}}$"].get_position()) == (4, -12)
    assert tuple(names[r"$\hat v$"].get_position()) == (-14, 4)
    assert all(t.get_fontsize() == COMPASS_FONT >= 9 and t.get_anncoords() == "offset points" for t in names.values())
    (arrow,) = [t for t in inset.texts if t.arrow_patch is not None]
    assert np.allclose(arrow.xy, direction_in_plane(frames[-1].p, v, p_mm)) and tuple(arrow.xyann) == (0, 0)
    assert arrow.arrow_patch.get_linewidth() == 1.5 and arrow.arrow_patch.get_edgecolor()[:3] == (0.0, 0.0, 0.0)
    plt.close(fig)


def test_every_panel_shares_its_limits_axes_and_labels(trained):
    data, E, v, p_mm, frames = trained
    fig, axes = plt.subplots(1, len(frames))
    drawn = plot_selection_frames(axes, E, v, p_mm, frames, data.token_class, {"great": 0})
    limit = frame_coordinates(E, v, p_mm)
    y_all = np.concatenate([limit[:, 1]] + [xy[:, 1] for xy in drawn])
    pad = 0.08 * (y_all.max() - y_all.min() + 1e-12)
    for ax in axes:
        assert ax.get_ylim() == pytest.approx((y_all.min() - pad, y_all.max() + 2 * pad))
        assert ax.get_xlabel() == r"value $E_s\cdot\hat v$" and ax.get_ylabel() == r"score $E_s\cdot p/\|p\|$"
        flat = [line for line in ax.get_lines() if line.get_color() == "gray"]
        assert len(flat) == 2 and all(line.get_linewidth() == 0.5 for line in flat)  # the two axes through 0
        sizes = {float(s) for c in ax.collections for s in c.get_sizes()}
        assert sizes == {16.0}
    # the first frame (p = 0) is far from the limit: every token gets its hollow end marker
    assert sum(len(c.get_offsets()) for c in axes[0].collections) >= 2 * len(limit)
    plt.close(fig)


def test_errors_name_the_argument(trained):
    data, E, v, p_mm, frames = trained
    with pytest.raises(ValueError, match="^v must be a torch.Tensor"):
        frame_coordinates(E, "v", p_mm)
    with pytest.raises(ValueError, match="^p must be a torch.Tensor"):
        frame_coordinates(E, v, "p")
    with pytest.raises(ValueError, match="^v must be non-zero$"):
        frame_coordinates(E, torch.zeros(E.shape[1]), p_mm)
    for bad, name in (("p", "p"), ("v", "v"), ("p_mm", "p_mm")):
        args = {"p": p_mm, "v": v, "p_mm": p_mm} | {bad: "x"}
        with pytest.raises(ValueError, match=f"^{name} must be a torch.Tensor"):
            direction_in_plane(args["p"], args["v"], args["p_mm"])
    fig, axes = plt.subplots(1, 1)
    with pytest.raises(ValueError, match="^token_class must be a torch.Tensor"):
        plot_selection_frames([axes], E, v, p_mm, frames[:1], "classes", {})
    plt.close(fig)


def test_far_tokens_keep_their_class_colours_and_the_zero_axes_sit_at_zero(trained):
    from token_selection.theory.plots import CLASS_COLORS

    data, E, v, p_mm, frames = trained
    fig, axes = plt.subplots(1, 2)
    plot_selection_frames(axes, E, v, p_mm, frames[:2], data.token_class, {})
    first = axes[0]
    expected = [matplotlib.colors.to_rgba(CLASS_COLORS[int(c)]) for c in data.token_class]
    assert [tuple(c) for c in first.collections[0].get_facecolors()] == expected  # p = 0: every token is far
    flat = [line for line in first.get_lines() if line.get_color() == "gray"]
    assert sorted((tuple(line.get_xdata()), tuple(line.get_ydata())) for line in flat) == sorted(
        [((0, 1), (0, 0)), ((0, 0), (0, 1))]
    )
    inset = first.child_axes[0]
    circle = inset.get_lines()[0]
    assert circle.get_xdata()[0] == 1.0 and circle.get_ydata()[0] == 0.0  # starts at angle 0
    assert np.isclose(circle.get_xdata()[-1], 1.0) and abs(circle.get_ydata()[-1]) < 1e-12  # and closes at 2 pi
    assert list(inset.get_axes_locator()._bounds) == [0.66, 0.6, 0.33, 0.38]  # the upper right of its panel
    plt.close(fig)


def test_the_compass_goes_to_the_corner_asked_and_an_unknown_corner_is_named(trained):
    data, E, v, p_mm, frames = trained
    fig, axes = plt.subplots(1, 2)
    plot_selection_frames(axes, E, v, p_mm, frames[:2], data.token_class, {}, compass="lower right")
    for ax in axes:
        assert list(ax.child_axes[0].get_axes_locator()._bounds) == [0.66, 0.02, 0.33, 0.38]
    with pytest.raises(ValueError, match="compass must be one of.*'lower right'.*got 'left'"):
        plot_selection_frames(axes, E, v, p_mm, frames[:2], data.token_class, {}, compass="left")
    plt.close(fig)


# --- class_race: how the two classes fare along frames of p --------------------------------------------------------


def _race_case():
    """Three positive and two negative sequences of length 4, one holding two relevant positions."""
    gen = torch.Generator().manual_seed(3)
    E = torch.randn(7, 5, generator=gen, dtype=torch.float64)
    v = torch.randn(5, generator=gen, dtype=torch.float64)
    X = torch.tensor([[0, 3, 4, 5], [0, 0, 6, 3], [1, 4, 5, 6], [2, 3, 3, 4], [2, 1, 5, 6]])
    y = torch.tensor([1, 1, 1, -1, -1])
    relevant = torch.zeros(5, 4, dtype=torch.bool)
    relevant[:, 0] = True
    relevant[4, 1] = True  # token 1 sits in a negative sequence as a second relevant position
    return E, v, X, y, relevant


def test_class_race_matches_the_softmax_written_out():
    E, v, X, y, relevant = _race_case()
    p = torch.tensor([0.5, -1.0, 2.0, 0.0, 0.3], dtype=torch.float64)
    frames = [Frame(0, torch.zeros(5, dtype=torch.float64)), Frame(7, p)]
    race = class_race(E, v, X, y, relevant, frames)
    np.testing.assert_array_equal(race["step"], [0, 7])
    weights = torch.exp(E[X] @ p)
    mass = ((weights / weights.sum(1, keepdim=True)) * relevant).sum(1)
    np.testing.assert_allclose(race["worst +1"][1], float(mass[:3].min()), rtol=1e-12)
    np.testing.assert_allclose(race["worst -1"][1], float(mass[3:].min()), rtol=1e-12)
    np.testing.assert_allclose(race["lean"][1], float(p @ v / (p.norm() * v.norm())), rtol=1e-12)
    short = class_race(E, v, X, y, relevant, [Frame(1, p / (2 * p.norm()))])  # |p| = 1/2: a lean all the same
    np.testing.assert_allclose(short["lean"][0], race["lean"][1], rtol=1e-12)
    # p = 0: no lean, and each sequence's attention on its relevant tokens is their share of its positions
    assert race["lean"][0] == 0.0
    assert race["worst +1"][0] == pytest.approx(0.25) and race["worst -1"][0] == pytest.approx(0.25)
    assert set(race) == {"step", "lean", "worst +1", "worst -1"}
    assert all(values.dtype == np.float64 for values in race.values())


def test_class_race_reads_the_classes_apart():
    E, v, X, y, relevant = _race_case()
    p = 40 * E[2]  # token 2 opens both negative sequences: their relevant attention goes to 1
    race = class_race(E, v, X, y, relevant, [Frame(1, p)])
    assert race["worst -1"][0] > 0.99 > race["worst +1"][0]


def _no_relevant_in_sequence_three(case):
    relevant = case["relevant"].clone()
    relevant[3] = False
    return {**case, "relevant": relevant}


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (lambda c: {**c, "E": c["E"].tolist()}, "^E must be a torch.Tensor"),
        (lambda c: {**c, "E": c["E"][0]}, r"^E must have shape \(V, d\)"),
        (lambda c: {**c, "X": c["X"].double()}, "^X must hold integer token ids"),
        (lambda c: {**c, "X": c["X"] + 1}, r"^X holds token ids in \[1, 7\]"),
        (lambda c: {**c, "v": c["v"][:4]}, r"^v must have shape \(5,\)"),
        (lambda c: {**c, "v": torch.zeros(5, dtype=torch.float64)}, "^v must be non-zero"),
        (lambda c: {**c, "relevant": c["relevant"][:, :3]}, r"^relevant must be a bool mask of the shape of X \(5, 4\)"),
        (lambda c: {**c, "relevant": c["relevant"].long()}, "^relevant must be a bool mask"),
        (lambda c: {**c, "relevant": c["relevant"].numpy().tolist()}, "^relevant must be a torch.Tensor"),
        (lambda c: {**c, "y": torch.tensor([1, 1, 1, 1, 1])}, "^y holds a single class"),
        (lambda c: {**c, "y": torch.tensor([1, 1, 1, -1])}, r"^y must have shape \(5,\)"),
        (lambda c: {**c, "y": torch.tensor([1, 1, 2, -1, -1])}, "^y must be all in"),
        (_no_relevant_in_sequence_three, "^every sequence needs a relevant position; sequence 3 has none$"),
        (lambda c: {**c, "frames": []}, "^frames must hold at least one Frame$"),
        (lambda c: {**c, "frames": [Frame(9, torch.zeros(4, dtype=torch.float64))]}, r"^the p of the frame at step 9 must"),
    ],
)
def test_class_race_names_the_argument_that_does_not_fit(change, named):
    E, v, X, y, relevant = _race_case()
    case = {"E": E, "v": v, "X": X, "y": y, "relevant": relevant, "frames": [Frame(0, torch.zeros(5, dtype=torch.float64))]}
    with pytest.raises(ValueError, match=named):
        class_race(**change(case))


def test_class_race_reads_labels_in_zero_one_as_in_minus_one_plus_one():
    E, v, X, y, relevant = _race_case()
    frames = [Frame(3, torch.tensor([0.5, -1.0, 2.0, 0.0, 0.3], dtype=torch.float64))]
    signed = class_race(E, v, X, y, relevant, frames)
    binary = class_race(E, v, X.numpy(), ((y + 1) // 2).numpy(), relevant.numpy(), frames)  # numpy arrays also do
    assert all(np.array_equal(signed[key], binary[key]) for key in signed)


def test_class_race_on_the_reference_case_ends_with_both_classes_selected(trained):
    data, E, v, _, frames = trained
    race = class_race(E, v, data.X, data.y, data.relevant, frames)
    assert race["worst +1"][-1] > 0.99 and race["worst -1"][-1] > 0.99
    assert race["worst +1"][0] == pytest.approx(race["worst -1"][0])  # p = 0: every sequence alike (one relevant in T)


def test_plot_class_race_draws_the_three_series_against_the_step_plus_one():
    race = {"step": np.array([0, 4, 9]), "lean": np.array([0.0, 0.5, 0.2]), "worst +1": np.array([0.1, 0.6, 1.0]),
            "worst -1": np.array([0.1, 0.0, 0.9])}  # fmt: skip
    fig, ax = plt.subplots()
    plot_class_race(ax, race, "seed 3")
    lines = ax.get_lines()[:3]
    assert [line.get_label() for line in lines] == [label for _, _, label in RACE_LINES.values()]
    # the tilt is 0 at step 0 (p = 0 has no direction): not drawn there; the attentions are drawn everywhere
    np.testing.assert_array_equal(lines[0].get_xdata(), [5, 10])
    np.testing.assert_array_equal(lines[0].get_ydata(), [0.5, 0.2])
    for line, key in zip(lines[1:], list(RACE_LINES)[1:], strict=True):
        np.testing.assert_array_equal(line.get_xdata(), [1, 5, 10])
        np.testing.assert_array_equal(line.get_ydata(), race[key])
    assert [line.get_linestyle() for line in lines] == ["-", "-", "--"]
    assert [line.get_color() for line in lines] == [color for color, _, _ in RACE_LINES.values()]
    zero = ax.get_lines()[3]
    assert (zero.get_color(), zero.get_linewidth()) == ("gray", 0.5)
    assert ax.title.get_fontsize() == 10
    assert ax.get_xscale() == "log" and ax.get_title() == "seed 3" and ax.get_xlabel().startswith("step + 1")
    assert ax.get_ylabel() == "cosine (black), attention (red, blue)"
    assert ax.get_lines()[3].get_ydata()[0] == 0  # the zero line
    plt.close(fig)


@pytest.mark.parametrize(
    ("steps", "tilt", "drawn"),
    [
        ([0, 3], [0.2, 0.4], [1, 4]),  # a start away from p = 0 has a tilt at step 0
        ([2, 3], [0.0, 0.4], [3, 4]),  # a tilt of 0 after step 0 is a value
        ([0, 0, 5], [0.0, 0.3, 0.1], [1, 6]),  # only the step-0 zero is left out
    ],
)
def test_plot_class_race_leaves_out_only_a_zero_tilt_at_step_0(steps, tilt, drawn):
    race = {"step": np.array(steps), "lean": np.array(tilt), "worst +1": np.ones(len(steps)),
            "worst -1": np.ones(len(steps))}  # fmt: skip
    fig, ax = plt.subplots()
    plot_class_race(ax, race, "t")
    np.testing.assert_array_equal(ax.get_lines()[0].get_xdata(), drawn)
    np.testing.assert_array_equal(ax.get_lines()[1].get_xdata(), np.array(steps) + 1)
    plt.close(fig)


def test_plot_class_race_names_the_series_a_race_lacks():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match=r"lacks \['worst -1'\]"):
        plot_class_race(ax, {"step": [0], "lean": [0], "worst +1": [0]}, "t")
    plt.close(fig)


def test_plot_class_race_names_the_y_axis_in_the_first_column_only():
    race = {"step": np.array([0, 1]), "lean": np.zeros(2), "worst +1": np.ones(2), "worst -1": np.ones(2)}
    fig, axes = plt.subplots(2, 2)
    for ax in axes.flat:
        plot_class_race(ax, race, "t")
    assert [ax.get_ylabel() for ax in axes.flat] == [
        "cosine (black), attention (red, blue)",
        "",
        "cosine (black), attention (red, blue)",
        "",
    ]
    alone = fig.add_axes((0.4, 0.4, 0.1, 0.1))  # not a subplot
    plot_class_race(alone, race, "t")
    assert alone.get_ylabel().startswith("cosine")
    plt.close(fig)


@pytest.mark.parametrize(
    ("plus", "minus", "lost"),
    [
        ([0.9, 0.6, 1e-9], [0.9, 0.2, 0.8], "+1"),  # +1 ends lowest, though -1 dipped lower on the way
        ([0.5, 0.7, 0.71], [0.5, 0.9, 0.7], "-1"),  # a margin of 0.01 at the last frame decides
    ],
)
def test_lost_class_is_the_class_whose_worst_attention_ends_lower(plus, minus, lost):
    race = {"step": np.arange(3), "lean": np.zeros(3), "worst +1": np.array(plus), "worst -1": np.array(minus)}
    assert lost_class(race) == lost


def test_lost_class_refuses_a_tie_and_a_race_without_both_classes():
    with pytest.raises(ValueError, match="neither is lost"):
        lost_class({"worst +1": np.array([0.2, 0.5]), "worst -1": np.array([0.1, 0.5])})
    with pytest.raises(ValueError, match="worst -1"):
        lost_class({"worst +1": np.array([0.2])})
