"""Chapter 3's tau slider: the one step as a plotly figure with one frame per step size, no kernel needed.

Left panel: every token's value ``E_s(1) . v`` against its signed frequency ``alpha_s`` after
a step of ``tau eta*``, with the leading-order line ``(eta/2) |v|^2 alpha_s`` and a grey band of
+-2 noise standard deviations ``|v|/sqrt(d)``; the vertical axis follows the frame, so the
tokens are seen sliding from the noise onto the line. Right panel: the correlation of the
values with ``alpha_s`` at every frame (faint), the law ``tau / sqrt(1 + tau^2)`` (dashed) and
the frame's own point. The figure's ``layout.meta`` holds the frame's ``tau`` (``frame_name``).
The frames come from ``theory.step_frames``; the HTML and plotly.js handling from ``static``.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from matplotlib.colors import to_hex
from plotly.subplots import make_subplots

from ..theory.one_step import predicted_correlation
from ..theory.plots import CLASS_COLORS, CLASS_LABELS
from ..theory.step_frames import StepFrames
from .static import StaticExplorer

ELEMENT_ID = "ch3-step-slider"
"""The id of the figure's ``div`` in the page."""
HEIGHT = 640
RED = "#d62728"
BAND_SDS = 2.0
"""Half-width of the grey noise band, in noise standard deviations."""
FIXED_AXIS_UP_TO = 2.0
"""Up to this step tau the left panel keeps one vertical range, so the line is seen to grow out of the band; above
it the range follows the step."""


def frame_name(tau: float) -> str:
    """The frame (and ``layout.meta``) of a step size: ``tau`` to three significant digits."""
    return f"{tau:.3g}"


def _traces(frames: StepFrames, k: int) -> list[dict]:
    """The 8 traces of frame ``k`` in a fixed order (a frame replaces them index by index)."""
    alpha, values = frames.alpha, frames.values[k]
    ends = [float(alpha.min()), float(alpha.max())]
    band = BAND_SDS * frames.noise_sd
    traces = [
        dict(type="scatter", mode="lines", x=[ends[0], ends[1], ends[1], ends[0], ends[0]], y=[-band, -band, band, band, -band],
             fill="toself", fillcolor="rgba(128,128,128,0.15)", line=dict(width=0), hoverinfo="skip",
             name=f"noise: ±{BAND_SDS:g} sd of E<sub>s</sub>(0)·v", xaxis="x", yaxis="y"),
    ]  # fmt: skip
    for cls in (1, -1, 0):
        pick = frames.token_class == cls
        marker = dict(color=to_hex(CLASS_COLORS[cls]), size=8)
        traces.append(dict(type="scatter", mode="markers", name=CLASS_LABELS[cls], x=alpha[pick].tolist(),
                           y=values[pick].tolist(), marker=marker, xaxis="x", yaxis="y"))  # fmt: skip
    fine = np.geomspace(frames.taus[0], frames.taus[-1], 120)
    traces += [
        dict(type="scatter", mode="lines", name="line (η/2)|v|²α<sub>s</sub>", line=dict(color="black", dash="dash"),
             x=ends, y=[frames.slopes[k] * a for a in ends], xaxis="x", yaxis="y"),
        dict(type="scatter", mode="lines", name="law τ/√(1+τ²)", line=dict(color="black", dash="dot"), xaxis="x2", yaxis="y2",
             x=fine.tolist(), y=predicted_correlation(fine).tolist()),
        dict(type="scatter", mode="markers", name="measured, every τ", marker=dict(color="gray", size=5, opacity=0.5),
             x=frames.taus.tolist(), y=frames.correlation.tolist(), xaxis="x2", yaxis="y2"),
        dict(type="scatter", mode="markers", name="this step", marker=dict(color=RED, size=14, line=dict(color="black", width=1)),
             x=[float(frames.taus[k])], y=[float(frames.correlation[k])], xaxis="x2", yaxis="y2"),
    ]  # fmt: skip
    return traces


def _reach(frames: StepFrames, k: int) -> float:
    """Half the height the left panel needs at frame k: its values, its line and the band."""
    return max(float(np.abs(frames.values[k]).max()), float(frames.slopes[k] * np.abs(frames.alpha).max()),
               BAND_SDS * 1.5 * frames.noise_sd)  # fmt: skip


def _layout(frames: StepFrames, k: int) -> dict:
    """What changes with the frame besides the traces: the left panel's vertical range and the readout. Up to
    ``FIXED_AXIS_UP_TO`` the range is the one that frame needs, so it does not change there."""
    tau = float(frames.taus[k])
    # up to the bar, every frame up to it (this one among them); above it, this frame alone
    shared = [i for i, t in enumerate(frames.taus) if t <= FIXED_AXIS_UP_TO] if tau <= FIXED_AXIS_UP_TO else [k]
    reach = max(_reach(frames, i) for i in shared)
    readout = (
        f"τ = {tau:.3g}, so η = τ η* = {float(frames.etas[k]):.4g}.   "
        f"corr(E<sub>s</sub>(1)·v, α<sub>s</sub>) = {float(frames.correlation[k]):.4f}, law {float(frames.law[k]):.4f}"
    )
    return dict(
        meta=frame_name(tau),
        yaxis=dict(range=[-1.1 * reach, 1.1 * reach]),
        annotations=[dict(text=readout, x=0.0, y=1.06, xref="paper", yref="paper", xanchor="left", yanchor="bottom",
                          showarrow=False, font=dict(size=14))],
    )  # fmt: skip


def _slider(frames: StepFrames, active: int) -> dict:
    animate = dict(mode="immediate", frame=dict(duration=0, redraw=True), transition=dict(duration=0))
    steps = [dict(label=name, method="animate", args=[[name], animate]) for name in map(frame_name, frames.taus.tolist())]
    return dict(active=active, steps=steps, x=0.1, len=0.9, y=-0.24, yanchor="top", pad=dict(t=0, b=0),
                currentvalue=dict(prefix="step τ = η/η* = ", font=dict(size=13)))  # fmt: skip


def opening_frame(frames: StepFrames, start: float = 1.0) -> int:
    """The index of the frame the slider opens at: the one whose ``tau`` is nearest ``start`` on a log scale.
    ``start`` must be a positive, finite step."""
    if not np.isfinite(start) or start <= 0:
        raise ValueError(f"start must be a positive step tau, got {start!r}")
    return int(np.argmin(np.abs(np.log(frames.taus) - np.log(start))))


def step_slider_figure(frames: StepFrames, *, start: float = 1.0) -> go.Figure:
    """The slider figure of ``frames``, showing first the frame ``opening_frame(frames, start)``."""
    active = opening_frame(frames, start)
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12, column_widths=[0.58, 0.42])
    fig.add_traces(_traces(frames, active))
    play = dict(mode="immediate", fromcurrent=False, frame=dict(duration=250, redraw=True), transition=dict(duration=0))
    fig.update_layout(
        template="plotly_white", height=HEIGHT, margin=dict(l=70, r=20, t=70, b=250), font=dict(size=12),
        legend=dict(orientation="h", x=0.0, y=-0.56, yanchor="top", font=dict(size=11)),
        sliders=[_slider(frames, active)],
        updatemenus=[dict(type="buttons", showactive=False, x=0.0, y=-0.24, xanchor="left", yanchor="top",
                          pad=dict(t=20, r=0), buttons=[dict(label="▶ play", method="animate", args=[None, play])])],
        **_layout(frames, active),
    )  # fmt: skip
    fig.update_xaxes(title_text="signed frequency α<sub>s</sub>", row=1, col=1)
    fig.update_yaxes(title_text="value E<sub>s</sub>(1)·v after the step", row=1, col=1)
    span = np.log10([frames.taus[0], frames.taus[-1]])
    fig.update_xaxes(
        title_text="step τ = η/η* (log scale)", type="log", dtick=1, range=[span[0] - 0.1, span[1] + 0.1], row=1, col=2
    )  # ticks at the powers of ten only
    fig.update_yaxes(title_text="corr over tokens", range=[-0.35, 1.05], row=1, col=2)
    fig.frames = [
        go.Frame(name=frame_name(tau), data=_traces(frames, k), layout=_layout(frames, k))
        for k, tau in enumerate(frames.taus.tolist())
    ]
    return fig


ALT = (
    "Interactive figure with a slider over the step size tau = eta/eta* and a play button. Left: scatter of each "
    "token's value E_s(1).v against its signed frequency alpha_s, red positive-relevant, blue negative-relevant, grey "
    "irrelevant, with a dashed line (eta/2)|v|^2 alpha_s and a grey band of two noise standard deviations; at small tau "
    "the dots are noise around a flat line, at large tau they lie on the steep line. Right: the correlation of the "
    "values with alpha_s against tau on a log axis, a dotted S-shaped law tau/sqrt(1+tau^2), grey dots for every tau "
    "and a red dot for the present step."
)
"""The figure's text alternative."""


def step_slider(frames: StepFrames, *, start: float = 1.0) -> StaticExplorer:
    """The slider for display in a notebook or the rendered book (plotly.js as ``static.static_html`` says)."""
    return StaticExplorer(step_slider_figure(frames, start=start), div_id=ELEMENT_ID, alt=ALT)
