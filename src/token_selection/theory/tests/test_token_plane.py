"""Tests of the token-plane figure helpers."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
import torch  # noqa: E402

from token_selection.theory.token_plane import _merged_labels, plane_basis, plane_coordinates, plot_token_plane  # noqa: E402


def test_basis_is_orthonormal_starts_along_v_and_is_seeded():
    v = torch.randn(64, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    basis = plane_basis(v, seed=3)
    assert torch.allclose(basis @ basis.T, torch.eye(2, dtype=torch.float64), atol=1e-14)
    assert torch.allclose(basis[0], v / v.norm())
    assert torch.equal(basis, plane_basis(v.numpy(), seed=3))
    assert not torch.allclose(basis[1], plane_basis(v, seed=4)[1])


def test_coordinates_of_a_move_along_v_change_only_the_first():
    gen = torch.Generator().manual_seed(5)
    v = torch.randn(32, generator=gen, dtype=torch.float64)
    E = torch.randn(5, 32, generator=gen, dtype=torch.float64)
    amounts = torch.arange(5, dtype=torch.float64)
    basis = plane_basis(v)
    before, after = plane_coordinates(E, basis), plane_coordinates(E + amounts[:, None] * v[None, :], basis)
    assert np.allclose(after[:, 1], before[:, 1], atol=1e-13)
    assert np.allclose(after[:, 0] - before[:, 0], amounts.numpy() * float(v.norm()))


@pytest.mark.parametrize("v", [torch.zeros(4, dtype=torch.float64), torch.ones(1, dtype=torch.float64), torch.ones(2, 2)])
def test_bad_v_raises(v):
    with pytest.raises(ValueError, match="v must"):
        plane_basis(v)


def test_coordinates_check_the_shape():
    with pytest.raises(ValueError, match="E must"):
        plane_coordinates(torch.ones(3, 5), plane_basis(torch.ones(4, dtype=torch.float64)))


def test_coinciding_points_share_one_label():
    points = np.array([[0.0, 0.0], [1.0, 0.5], [0.0, 0.0]])
    merged = _merged_labels(points, ["the", "great", "a"])
    assert [label for _, label in merged] == ["the, a", "great"]


def test_plot_draws_points_arrows_labels_and_directions():
    fig, ax = plt.subplots()
    points = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, -1.0]])
    plot_token_plane(ax, points, labels=["the", "great", "terrible"], colors=["gray", "red", "blue"],
                     moved_to=points + [0.5, 0.0], directions={"p": [2.0, 0.0], "v": [0.0, 1.0]})  # fmt: skip
    texts = [t.get_text() for t in ax.texts]
    assert {"the", "great", "terrible", "p", "v"} <= set(texts)
    assert len(ax.collections) == 2  # the points and the hollow markers where they went
    plt.close(fig)


def test_plot_checks_its_inputs():
    fig, ax = plt.subplots()
    with pytest.raises(ValueError, match="points"):
        plot_token_plane(ax, np.zeros(3))
    with pytest.raises(ValueError, match="colours"):
        plot_token_plane(ax, np.zeros((2, 2)), colors=["red"])
    with pytest.raises(ValueError, match="moved_to"):
        plot_token_plane(ax, np.zeros((2, 2)), moved_to=np.zeros((3, 2)))
    with pytest.raises(ValueError, match="labels"):
        plot_token_plane(ax, np.zeros((2, 2)), labels=["a"])
    plt.close(fig)


def test_a_draw_parallel_to_v_raises():
    # the seeded draw of plane_basis is v itself when v was drawn first from the same seed
    v = torch.randn(16, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    with pytest.raises(ValueError, match="parallel"):
        plane_basis(v, seed=0)


def test_a_tiny_move_gets_no_arrow():
    fig, ax = plt.subplots()
    points = np.zeros((2, 2))
    plot_token_plane(ax, points, moved_to=np.array([[1.0, 0.0], [0.01, 0.0]]))
    assert sum(1 for t in ax.texts if t.arrow_patch is not None) == 1
    plt.close(fig)


def test_offsets_move_a_label():
    fig, ax = plt.subplots()
    plot_token_plane(ax, np.array([[0.0, 0.0], [1.0, 0.0]]), labels=["the", "was"], offsets={"was": (0, -12)})
    where = {t.get_text(): t.get_position() for t in ax.texts}
    assert tuple(where["was"]) == (0, -12) and tuple(where["the"]) == (4, 4)
    plt.close(fig)


def _arrows(ax):
    return [t for t in ax.texts if t.arrow_patch is not None]


def test_the_plot_draws_each_part_in_its_style():
    fig, ax = plt.subplots()
    points = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, -1.0]])
    moved = points + np.array([[0.5, 0.0], [0.25, 0.0], [0.5, 0.0]])
    plot_token_plane(ax, points, labels=["the", "great", "terrible"], colors=["gray", "red", "blue"], moved_to=moved,
                     directions={"p": [2.0, 0.0]}, size=12.0)  # fmt: skip
    start, went = ax.collections
    assert np.array_equal(start.get_offsets(), points) and np.array_equal(went.get_offsets(), moved)
    assert list(start.get_sizes()) == [12.0] and list(went.get_sizes()) == [12.0]
    assert start.get_zorder() == 3 and went.get_zorder() == 3
    assert [tuple(c) for c in start.get_facecolors()] == [tuple(matplotlib.colors.to_rgba(c)) for c in ("gray", "red", "blue")]
    assert len(went.get_facecolors()) == 0  # hollow
    assert [tuple(c) for c in went.get_edgecolors()] == [tuple(matplotlib.colors.to_rgba(c)) for c in ("gray", "red", "blue")]
    moves = [t for t in _arrows(ax) if t.get_text() == ""][:3]
    assert [tuple(t.xy) for t in moves] == [tuple(m) for m in moved]
    assert [tuple(t.xyann) for t in moves] == [tuple(p) for p in points]
    for arrow, color in zip(moves, ("gray", "red", "blue"), strict=True):
        patch = arrow.arrow_patch
        assert patch.get_arrowstyle().__class__.__name__ == "CurveB"  # "->"
        assert patch.get_edgecolor()[:3] == matplotlib.colors.to_rgb(color)
        assert patch.get_linewidth() == 1.0 and patch.get_alpha() == 0.8
    (direction,) = [t for t in _arrows(ax) if tuple(t.xy) == (2.0, 0.0)]
    assert tuple(direction.xyann) == (0.0, 0.0) and direction.arrow_patch.get_linewidth() == 2.0
    assert direction.arrow_patch.get_arrowstyle().__class__.__name__ == "CurveFilledB"  # "-|>"
    assert direction.arrow_patch.get_edgecolor()[:3] == (0.0, 0.0, 0.0)
    name = next(t for t in ax.texts if t.get_text() == "p")
    assert tuple(name.xy) == (2.0, 0.0) and name.get_fontsize() == 12 and name.get_fontweight() == "bold"
    assert tuple(name.get_position()) == (4, 4) and name.get_anncoords() == "offset points"
    word = next(t for t in ax.texts if t.get_text() == "great")
    assert tuple(word.xy) == (1.0, 1.0) and word.get_fontsize() == 9 and word.get_anncoords() == "offset points"
    plt.close(fig)


def test_default_colours_are_black_and_only_the_longest_moves_get_arrows():
    fig, ax = plt.subplots()
    points = np.zeros((3, 2))
    # moves of 1, 0.03 (on the bound: no arrow) and 0.031 (just above it) of the longest
    plot_token_plane(ax, points, moved_to=np.array([[1.0, 0.0], [0.03, 0.0], [0.031, 0.0]]))
    assert [tuple(c) for c in ax.collections[0].get_facecolors()] == [(0.0, 0.0, 0.0, 1.0)] * 3
    assert len(_arrows(ax)) == 2
    plt.close(fig)


def test_labels_merge_only_points_equal_to_twelve_decimals():
    points = np.array([[0.1234567890123, 0.5], [0.1234567890124, 0.5], [0.12345678901, 0.5], [0.3, 0.1234567890123],
                       [0.3, 0.1234567890124]])  # fmt: skip
    merged = _merged_labels(points, ["a", "b", "c", "d", "e"])
    assert [label for _, label in merged] == ["a, b", "c", "d, e"]
    with pytest.raises(ValueError):
        _merged_labels(points, ["a"])  # one label per point


def test_the_basis_names_v_and_takes_two_entries_and_a_positive_norm():
    basis = plane_basis(torch.tensor([1.0, 0.0], dtype=torch.float64), seed=1)
    assert basis.shape == (2, 2)
    tiny = plane_basis(torch.tensor([1e-3, 0.0, 0.0], dtype=torch.float64))  # any positive norm will do
    assert torch.allclose(tiny[0], torch.tensor([1.0, 0.0, 0.0], dtype=torch.float64))
    with pytest.raises(ValueError, match="^v must"):
        plane_basis(torch.zeros(3, dtype=torch.float64))
    with pytest.raises(ValueError, match="^v must be a torch.Tensor"):
        plane_basis("not a vector")
    with pytest.raises(ValueError, match="^E must be a torch.Tensor"):
        plane_coordinates("no", basis)
    assert torch.equal(plane_basis(torch.ones(4, dtype=torch.float64)), plane_basis(torch.ones(4, dtype=torch.float64), seed=0))
