"""Tests of the chapter-5 explorer: the panel function, the live widget, the grid cache and the static page."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from token_selection import (
    CLSAttention,
    make_synthetic,
    one_step_embeddings,
    signed_frequency,
    solve_max_margin,
    train_cls,
)
from token_selection.explorer import grid as grid_module
from token_selection.explorer.explorer import (
    DEFAULT_CONFIG,
    STAGES,
    ExplorerConfig,
    LiveExplorer,
    draw_panels,
    explore,
    figure_png,
    static_explorer_html,
)
from token_selection.explorer.grid import (
    GridCacheError,
    checksum_path,
    compute_grid,
    grid_point,
    load_or_compute_grid,
    read_grid,
    write_grid,
)

TINY_AXES = {"delta": (0.0,), "d": (64,), "T": (4, 8)}


@pytest.fixture(scope="module")
def reference():
    """The theory chapters' reference run (n=200, T=8, V=50, d=512, delta=0, lr=200), by explore."""
    return explore(0.0, 512, 8, n=200, lr=200.0, p_steps=5000, seed=0)


@pytest.fixture(scope="module")
def tiny_grid():
    return compute_grid(TINY_AXES, progress=False)


def test_reference_config_gives_the_numbers_of_the_theory_chapters(reference):
    # the same calls as chapters 3 and 4 make, one by one
    data = make_synthetic(200, 8, 50, 0.0, seed=0)
    model = CLSAttention(50, 512, seed=0, dtype=torch.float64)
    E1 = one_step_embeddings(model, data.X, data.y, lr=200.0)
    values = (E1 @ model.v.detach()).numpy()
    alpha = signed_frequency(data.X, data.y, 50).numpy()
    model.E.data.copy_(E1)
    p_mm = solve_max_margin(E1, data.X, data.relevant).direction
    history = train_cls(
        model, data.X, data.y, steps=5000, lr=1.0, method="normalized", reference=p_mm, relevant=data.relevant
    ).as_arrays()

    np.testing.assert_array_equal(reference.alpha, alpha)
    np.testing.assert_array_equal(reference.values, values)
    np.testing.assert_array_equal(reference.history["cosine"], history["cosine"])
    np.testing.assert_array_equal(reference.history["min_relevant_attention"], history["min_relevant_attention"])
    p = model.p.detach()
    np.testing.assert_array_equal(reference.scores, (model.token_scores().detach() / p.norm()).numpy())
    assert reference.correlation == pytest.approx(np.corrcoef(values, alpha)[0, 1], abs=1e-12)
    assert reference.correlation > 0.995  # 0.998 in the notes
    assert reference.final_cosine == history["cosine"][-1] >= 0.99
    assert reference.final_min_attention > 0.99
    assert reference.slope == pytest.approx(reference.predicted_slope, rel=0.05)
    assert reference.selection_cosine == reference.final_cosine  # p selects exactly the relevant tokens
    assert reference.selected_fraction == 1.0 and reference.missed_fraction == 0.0
    assert "converges to p_mm" in reference.notice


def test_default_config_is_the_reference():
    assert (DEFAULT_CONFIG.delta, DEFAULT_CONFIG.d, DEFAULT_CONFIG.T, DEFAULT_CONFIG.n, DEFAULT_CONFIG.lr) == (
        0.0,
        512,
        8,
        200,
        200.0,
    )
    assert DEFAULT_CONFIG.vocab_size == 50 and DEFAULT_CONFIG.seed == 0


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        (dict(delta=1.5), "delta must be a probability in [0, 1]"),
        (dict(delta=float("nan")), "delta must be a probability"),
        (dict(delta="a lot"), "delta must be a number"),
        (dict(d=0), "d must be an embedding dimension >= 1"),
        (dict(d=2.5), "d must be an integer"),
        (dict(T=1), "T=1 leaves no room for selection"),
        (dict(T=0), "T must be a sequence length >= 2"),
        (dict(n=7), "n=7 is odd"),
        (dict(lr=-1.0), "lr must be a finite one-step learning rate > 0"),
        (dict(lr=0.0), "lr must be a finite one-step learning rate > 0"),
        (dict(lr=float("inf")), "lr must be a finite"),
        (dict(p_steps=0), "p_steps must be a number of steps >= 1"),
        (dict(seed=-1), "seed must be an integer >= 0"),
        (dict(zipf=-0.5), "zipf must be a finite Zipf exponent >= 0"),
        (dict(vocab_size=2), "vocab_size must be a vocabulary size >= 3"),
    ],
)
def test_bad_values_raise_a_readable_value_error(kwargs, fragment):
    settings = dict(delta=0.0, d=32, T=4, n=20, p_steps=10) | kwargs
    with pytest.raises(ValueError) as info:
        explore(**settings)
    assert fragment in str(info.value)


def test_no_max_margin_direction_is_reported_not_raised():
    result = explore(0.0, 16, 8, p_steps=300)
    assert result.final_cosine is None and result.selection_cosine is None
    assert "no solution" in result.max_margin_message
    assert np.isnan(result.history["cosine"]).all()
    assert np.isfinite(result.values).all() and np.isfinite(result.scores).all()
    assert "no max-margin direction" in result.notice
    fig = draw_panels(result)  # panels 1 and 3 are still drawn, panel 2 says why
    texts = [t.get_text() for t in fig.axes[1].texts]
    assert any("no max-margin direction" in t for t in texts)


def test_all_relevant_positions_leave_nothing_to_select():
    result = explore(1.0, 32, 4, p_steps=20)
    assert result.irrelevant_share == 0.0 and result.final_cosine is None
    assert "nothing to select against" in result.notice


def test_noise_beats_the_signal_at_long_sequences_and_small_dimension():
    result = explore(0.0, 16, 64, p_steps=200)
    assert result.correlation < 0.6
    assert result.notice.startswith("with T=64 and d=16 the noise beats the signal: alignment 0.")
    assert f"{result.correlation:.2f}" in result.notice


def test_several_relevant_tokens_p_selects_one_per_sequence():
    result = explore(0.5, 256, 8)
    assert result.relevant_per_sequence > 2
    assert result.selected_per_sequence == pytest.approx(1.0, abs=0.05)
    assert result.selection_cosine is not None and result.selection_cosine > 0.98
    assert result.final_cosine < 0.9
    assert "converges to the max-margin direction of its own selection" in result.notice


def test_on_stage_reports_the_stages_in_order():
    seen = []
    explore(0.0, 32, 4, p_steps=10, on_stage=seen.append)
    assert seen == list(STAGES[:4])


def test_draw_panels_gives_three_labelled_panels():
    result = explore(0.0, 64, 4, p_steps=50)
    fig = draw_panels(result)
    assert len(fig.axes) == 3
    assert all(ax.get_xlabel() and ax.get_ylabel() and ax.get_title() for ax in fig.axes)
    assert fig.axes[1].get_xscale() == "log"
    assert figure_png(fig).startswith(b"\x89PNG")


def test_live_explorer_redraws_on_release_and_shows_errors_as_messages():
    live = LiveExplorer(ExplorerConfig(delta=0.0, d=64, T=4, p_steps=50))
    assert all(getattr(c, "continuous_update", False) is False for c in live.controls if hasattr(c, "continuous_update"))
    seconds = live.redraw()
    assert seconds > 0 and live.last_result is not None and live.last_png.startswith(b"\x89PNG")
    assert live.progress.value == live.progress.max and live.status.value.startswith("done in")

    live.T.value = 1  # an observer redraws, as a slider release would
    assert live.last_result is None
    assert live.last_error.startswith("T=1 leaves no room for selection")
    assert live.status.value.startswith("invalid settings")

    live.set_values(T=8, delta=0.1)
    assert live.last_error == "" and live.last_result.config.T == 8 and live.last_result.config.delta == 0.1
    with pytest.raises(ValueError, match="T=3 is not on the slider"):
        live.set_values(T=3)
    with pytest.raises(ValueError, match="unknown control"):
        live.set_values(width=3)


def test_grid_round_trip_and_lookup(tmp_path, tiny_grid):
    assert len(tiny_grid["points"]) == 2 and len(tiny_grid["token_class"]) == 50
    path = tmp_path / "grid.json"
    digest = write_grid(tiny_grid, path)
    assert checksum_path(path).read_text() == f"{digest}  grid.json\n"
    loaded = read_grid(path, axes=TINY_AXES)
    assert loaded == json.loads(json.dumps(tiny_grid))
    point = grid_point(loaded, 0.0, 64, 8)
    direct = explore(0.0, 64, 8, **grid_module.fixed_settings())
    assert point["corr"] == pytest.approx(direct.correlation, rel=1e-3)
    assert point["notice"] == direct.notice
    assert len(point["ev"]) == 50 and len(point["step"]) == len(point["att_min"])
    with pytest.raises(ValueError, match="not a grid point"):
        grid_point(loaded, 0.0, 64, 16)


def test_grid_cache_detects_damage_staleness_and_absence(tmp_path, tiny_grid):
    path = tmp_path / "grid.json"
    with pytest.raises(GridCacheError, match="is missing"):
        read_grid(path, axes=TINY_AXES)

    write_grid(tiny_grid, path)
    damaged = path.read_bytes().replace(b'"corr":', b'"corr": ', 1)
    path.write_bytes(damaged)
    with pytest.raises(GridCacheError, match="fails its checksum"):
        read_grid(path, axes=TINY_AXES)

    stale = json.loads(json.dumps(tiny_grid))
    stale["config_sha256"] = "0" * 64  # written by other code or settings
    write_grid(stale, path)
    with pytest.raises(GridCacheError, match="is stale"):
        read_grid(path, axes=TINY_AXES)
    read_grid(path, axes=TINY_AXES, require_current=False)  # the checksum itself is fine

    write_grid(tiny_grid, path)
    with pytest.raises(GridCacheError, match="is stale"):
        read_grid(path)  # current for TINY_AXES, not for the chapter's axes


def test_load_or_compute_grid_recomputes_when_the_cache_is_unusable(tmp_path, tiny_grid, monkeypatch):
    monkeypatch.setattr(grid_module, "compute_grid", lambda **kwargs: tiny_grid)
    grid, status = load_or_compute_grid(tmp_path / "missing.json", progress=False)
    assert grid is tiny_grid
    assert "is missing" in status and "scripts/build_explorer_grid.py" in status and "Recomputed" in status


def test_code_hash_tracks_the_computing_code_only():
    digest = grid_module.code_sha256()
    assert len(digest) == 64 and digest == grid_module.code_sha256()
    assert grid_module.config_sha256(grid_module.grid_config()) != grid_module.config_sha256(grid_module.grid_config(TINY_AXES))


def test_static_explorer_html_embeds_everything_it_needs(tiny_grid):
    html = static_explorer_html(tiny_grid, start=(0.0, 64, 8))
    for element in ("ch5-explorer-plot", "ch5-explorer-delta", "ch5-explorer-d", "ch5-explorer-T", "ch5-explorer-notice"):
        assert f'id="{element}"' in html
    assert 'value="1"' in html  # T=8 is the second T of the tiny grid
    assert "Plotly.react" in html and "window.Plotly" in html
    lowered = html.lower()
    assert "cdn" not in lowered and "require(" not in lowered and "http" not in lowered.replace("http-equiv", "")
    start = html.index('id="ch5-explorer-data">') + len('id="ch5-explorer-data">')
    embedded = json.loads(html[start : html.index("</script>", start)])
    assert embedded["points"][1]["T"] == 8


def test_rounding_keeps_four_significant_digits_and_drops_non_finite():
    assert grid_module._rounded(0.123456) == 0.1235
    assert grid_module._rounded([1234567.0, math.nan, -math.inf]) == [1235000.0, None, None]
