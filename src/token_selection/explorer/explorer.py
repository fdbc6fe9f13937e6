"""The interactive explorer of chapter 5: one function behind three linked panels.

``explore(delta, d, T, ...)`` runs the whole story of the theory chapters for
one setting, with the package's own functions only:

1. draw data (``make_synthetic``), take one GD step on ``E`` at ``p = 0``
   (``one_step_embeddings``) and compare ``E_s . v`` with the signed frequency
   ``alpha_s`` (``signed_frequency``);
2. solve the max-margin program on the new embeddings (``solve_max_margin``)
   and train ``p`` by normalised GD with ``E`` and ``v`` frozen (``train_cls``),
   recording cos(p, p_mm) and the attention mass on relevant tokens;
3. read off the final scores ``E_s . p / |p|`` against importance (the U-shape).

``draw_panels`` turns the result into the three matplotlib panels and
``LiveExplorer`` wraps both in ipywidgets controls for Jupyter and Colab. The
static, kernel-free version of the same panels lives in ``explorer_grid``.
"""

from __future__ import annotations

import io
import math
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, replace

import numpy as np
import torch

from ..theory.importance import signed_frequency
from ..theory.max_margin import solve_max_margin
from ..theory.model import CLSAttention
from ..theory.one_step import one_step_embeddings
from ..theory.plots import CLASS_COLORS, CLASS_LABELS, plot_against_importance
from ..theory.synthetic import make_synthetic
from ..theory.training import train_cls

STAGES = ("drawing data", "one step on E", "max-margin program", "training p", "drawing panels")
"""What ``explore`` (and then the drawing) is doing, in order; reported through ``on_stage``."""

SELECTED_MASS = 0.01
"""A relevant token counts as selected in a sequence when it holds at least this attention mass."""

NOISY_ALIGNMENT = 0.9
"""Below this corr(E.v, alpha) the sentence is about the noise: it blurs the signal, or beats it below 1/sqrt(2)
(where the spread of the signal falls under the noise; chapter 3, the formula for eta*)."""


@dataclass(frozen=True)
class ExplorerConfig:
    """One setting of the explorer; ``explore`` validates every field.

    delta: rate of relevant tokens; d: embedding dimension; T: sequence length;
    n: sequences (even: the generator makes label-swapped twins); lr: the one step
    on ``E``; p_steps, p_lr: normalised GD on ``p``; seed: data and model;
    vocab_size, zipf: the generator's vocabulary and Zipf exponent.
    """

    delta: float
    d: int
    T: int
    n: int = 200
    lr: float = 200.0
    p_steps: int = 3000
    seed: int = 0
    vocab_size: int = 50
    p_lr: float = 1.0
    zipf: float = 1.0

    def label(self) -> str:
        """Short text for a figure title."""
        return (
            f"delta={self.delta:g}, d={self.d}, T={self.T}, n={self.n}, one-step lr={self.lr:g}, "
            f"p-steps={self.p_steps}, seed={self.seed}"
        )


DEFAULT_CONFIG = ExplorerConfig(delta=0.0, d=512, T=8)
"""The theory chapters' reference setting: n=200, T=8, V=50, d=512, delta=0, lr=200."""


@dataclass(frozen=True)
class ExplorerResult:
    """Everything the three panels show, for one ``ExplorerConfig``.

    token_class: (V,) int64 in {-1, 0, +1}; alpha: (V,) signed frequency;
    values: (V,) ``E_s . v`` after the one step; scores: (V,) ``E_s . p / |p|`` after training p
    (the direction, as in chapter 4, so that settings with different |p| compare).
    correlation, slope: corr(values, alpha) and the least-squares slope of values on alpha;
    predicted_slope: ``lr |v|^2 / 2`` (the one-step formula; ``|v|^2`` is close to 1).
    history: arrays ``step``, ``cosine``, ``mean_relevant_attention``, ``min_relevant_attention``,
    ``p_norm``, ``loss`` from ``train_cls`` (cosine is all NaN when there is no p_mm).
    final_cosine: cos(p, p_mm) at the end, or None without p_mm; max_margin_message says why not.
    relevant_per_sequence: mean number of distinct relevant tokens per sequence;
    irrelevant_share: share of positions holding an irrelevant token.
    At the end of training a token is *selected* in a sequence when it holds at least
    ``SELECTED_MASS`` of its attention: selected_fraction is the share of (sequence,
    relevant token) pairs selected, selected_per_sequence the mean number of relevant
    tokens selected per sequence, missed_fraction the share of sequences whose relevant
    mass is below 1/2; selection_cosine is cos(p, max-margin direction of p's own
    selection) (equal to final_cosine when p selects exactly the relevant tokens; None
    when that program has no solution or there is no p_mm).
    notice: one sentence saying what to see, computed from these numbers.
    """

    config: ExplorerConfig
    token_class: np.ndarray
    alpha: np.ndarray
    values: np.ndarray
    scores: np.ndarray
    correlation: float
    slope: float
    predicted_slope: float
    history: dict[str, np.ndarray]
    final_cosine: float | None
    max_margin_message: str
    stop_reason: str
    relevant_per_sequence: float
    irrelevant_share: float
    selected_fraction: float
    selected_per_sequence: float
    selection_cosine: float | None
    missed_fraction: float
    final_min_attention: float
    final_mean_attention: float
    notice: str


def _check_number(value: float, name: str, *, low: float, high: float = math.inf, allowed: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number ({allowed}), got {value!r}") from None
    if not math.isfinite(number) or not low <= number <= high:
        raise ValueError(f"{name} must be {allowed}, got {value!r}")
    return number


def _check_int(value: int, name: str, *, minimum: int, allowed: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer, float)) or int(value) != value:
        raise ValueError(f"{name} must be an integer ({allowed}), got {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be {allowed}, got {value}")
    return int(value)


def check_config(
    delta: float,
    d: int,
    T: int,
    *,
    n: int = 200,
    lr: float = 200.0,
    p_steps: int = 3000,
    seed: int = 0,
    vocab_size: int = 50,
    p_lr: float = 1.0,
    zipf: float = 1.0,
) -> ExplorerConfig:
    """Validate the explorer's inputs and return them as an ``ExplorerConfig``.

    Raises ValueError with a sentence a reader can act on (the live explorer
    shows it in the panel).
    """
    delta = _check_number(delta, "delta", low=0.0, high=1.0, allowed="a probability in [0, 1]")
    d = _check_int(d, "d", minimum=1, allowed="an embedding dimension >= 1")
    T = _check_int(T, "T", minimum=1, allowed="a sequence length >= 2")
    if T < 2:
        raise ValueError(
            f"T={T} leaves no room for selection: the generator forces at least one relevant token into every "
            "sequence, so with T=1 there is no irrelevant token for attention to choose against; use T >= 2"
        )
    n = _check_int(n, "n", minimum=2, allowed="an even number of sequences >= 2")
    if n % 2:
        raise ValueError(f"n={n} is odd: sequences come in label-swapped twins, so n must be even")
    lr = _check_number(lr, "lr", low=0.0, allowed="a finite one-step learning rate > 0")
    if lr == 0:
        raise ValueError("lr must be a finite one-step learning rate > 0, got 0: with no step E.v is pure noise")
    p_steps = _check_int(p_steps, "p_steps", minimum=1, allowed="a number of steps >= 1")
    seed = _check_int(seed, "seed", minimum=0, allowed="an integer >= 0")
    vocab_size = _check_int(vocab_size, "vocab_size", minimum=3, allowed="a vocabulary size >= 3")
    p_lr = _check_number(p_lr, "p_lr", low=0.0, allowed="a finite learning rate > 0 for p")
    if p_lr == 0:
        raise ValueError("p_lr must be a finite learning rate > 0 for p, got 0")
    zipf = _check_number(zipf, "zipf", low=0.0, allowed="a finite Zipf exponent >= 0")
    return ExplorerConfig(
        delta=delta, d=d, T=T, n=n, lr=lr, p_steps=p_steps, seed=seed, vocab_size=vocab_size, p_lr=p_lr, zipf=zipf
    )


def _correlation(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation; 0 when either side is constant (never NaN)."""
    xc, yc = x - x.mean(), y - y.mean()
    denominator = float(np.sqrt((xc @ xc) * (yc @ yc)))
    return float(xc @ yc) / denominator if denominator > 0 else 0.0


def _slope(x: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of y on x (with intercept); 0 when x is constant."""
    xc = x - x.mean()
    denominator = float(xc @ xc)
    return float(xc @ (y - y.mean())) / denominator if denominator > 0 else 0.0


def selected_positions(attention: torch.Tensor, X: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """(n, T) bool: positions whose token holds at least ``SELECTED_MASS`` of its sequence's attention.

    attention: (n, T) weights; X: (n, T) ids. Attention is summed per (sequence, token)
    with one bincount, so the repeats of a token share one verdict.
    """
    n = X.shape[0]
    keys = torch.arange(n)[:, None] * vocab_size + X
    mass = torch.bincount(keys.reshape(-1), weights=attention.detach().double().reshape(-1), minlength=n * vocab_size)
    return mass[keys] >= SELECTED_MASS


def _selection_stats(
    selected: torch.Tensor, attention: torch.Tensor, X: torch.Tensor, relevant: torch.Tensor, vocab_size: int
) -> tuple[float, float, float]:
    """(selected_fraction, selected_per_sequence, missed_fraction); see ``ExplorerResult``."""
    n = X.shape[0]
    keys = (torch.arange(n)[:, None] * vocab_size + X)[relevant]
    distinct, first = torch.unique(keys, return_inverse=True)
    chosen = torch.zeros(len(distinct), dtype=torch.bool).index_put_((first,), selected[relevant], accumulate=False)
    per_sequence = torch.bincount(distinct[chosen] // vocab_size, minlength=n).double().mean()
    missed = ((attention.detach() * relevant).sum(1) < 0.5).double().mean()
    return float(chosen.double().mean()), float(per_sequence), float(missed)


def explore(
    delta: float,
    d: int,
    T: int,
    *,
    n: int = 200,
    lr: float = 200.0,
    p_steps: int = 3000,
    seed: int = 0,
    vocab_size: int = 50,
    p_lr: float = 1.0,
    zipf: float = 1.0,
    on_stage: Callable[[str], None] | None = None,
) -> ExplorerResult:
    """Run one setting end to end and return what the three panels show.

    The data come from ``make_synthetic(n, T, vocab_size, delta, zipf=zipf, seed=seed)``
    and the model from ``CLSAttention(vocab_size, d, seed=seed, dtype=torch.float64)``;
    one step of size ``lr`` on ``E``; then ``p_steps`` of normalised GD on ``p``
    (rate ``p_lr``, stopping early at the float64 rounding level) towards p_mm.
    When the max-margin program has no solution (small d, or no irrelevant token
    left) the result says why in ``max_margin_message`` and the panels that need
    no p_mm are still filled. on_stage: called with each name in ``STAGES[:4]``.
    Raises ValueError on inputs that make no sense (see ``check_config``).
    """
    config = check_config(delta, d, T, n=n, lr=lr, p_steps=p_steps, seed=seed, vocab_size=vocab_size, p_lr=p_lr, zipf=zipf)
    with _single_thread():
        return _explore(config, on_stage or (lambda stage: None))


@contextmanager
def _single_thread():
    """Run torch on one thread, then restore the setting.

    The explorer's tensors are tiny (V x d and n x T), so thread start-up and
    spinning cost more than they save: on a busy 2-core machine the p-training
    loop took 10x longer on two threads than on one. Results are identical.
    """
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _explore(config: ExplorerConfig, report: Callable[[str], None]) -> ExplorerResult:
    """The body of ``explore`` for a validated config."""
    report(STAGES[0])
    data = make_synthetic(config.n, config.T, config.vocab_size, config.delta, zipf=config.zipf, seed=config.seed)
    report(STAGES[1])
    model = CLSAttention(config.vocab_size, config.d, seed=config.seed, dtype=torch.float64)
    E1 = one_step_embeddings(model, data.X, data.y, config.lr)
    v = model.v.detach()
    alpha = signed_frequency(data.X, data.y, config.vocab_size).numpy()
    values = (E1 @ v).numpy()
    model.E.data.copy_(E1)

    report(STAGES[2])
    try:
        reference, message = solve_max_margin(E1, data.X, data.relevant).direction, ""
    except ValueError as error:
        reference, message = None, str(error)

    report(STAGES[3])
    history = train_cls(
        model,
        data.X,
        data.y,
        steps=config.p_steps,
        lr=config.p_lr,
        method="normalized",
        reference=reference,
        relevant=data.relevant,
    )
    arrays = history.as_arrays()
    if reference is None:
        arrays["cosine"] = np.full_like(arrays["cosine"], np.nan)
    with torch.no_grad():
        attention = model.attention(data.X)
        p_norm = float(model.p.norm())
        scores = (model.token_scores() / (p_norm if p_norm > 0 else 1.0)).numpy().copy()
    selected = selected_positions(attention, data.X, config.vocab_size)
    selected_fraction, selected_per_sequence, missed = _selection_stats(
        selected, attention, data.X, data.relevant, config.vocab_size
    )
    selection_cosine = None if reference is None else float(arrays["cosine"][-1])
    if reference is not None and not torch.equal(selected, data.relevant):
        # p chose its own set of tokens: compare it with the max-margin direction of that selection
        try:
            own = solve_max_margin(E1, data.X, selected).direction
            selection_cosine = float(model.p.detach() @ own) / float(model.p.detach().norm())
        except ValueError:
            selection_cosine = None

    result = ExplorerResult(
        config=config,
        token_class=data.token_class.numpy().copy(),
        alpha=alpha,
        values=values,
        scores=scores,
        correlation=_correlation(values, alpha),
        slope=_slope(alpha, values),
        predicted_slope=config.lr / 2 * float(v @ v),
        history=arrays,
        final_cosine=None if reference is None else float(arrays["cosine"][-1]),
        max_margin_message=message,
        stop_reason=history.stop_reason,
        relevant_per_sequence=float(data.relevant_per_sequence().double().mean()),
        irrelevant_share=float((~data.relevant).double().mean()),
        selected_fraction=selected_fraction,
        selected_per_sequence=selected_per_sequence,
        selection_cosine=selection_cosine,
        missed_fraction=missed,
        final_min_attention=float(arrays["min_relevant_attention"][-1]),
        final_mean_attention=float(arrays["mean_relevant_attention"][-1]),
        notice="",
    )
    return replace(result, notice=what_to_notice(result))


def what_to_notice(result: ExplorerResult) -> str:
    """One sentence, computed from the numbers of ``result``, saying what the panels show.

    The first rule that applies wins: the noise beats the one-step signal; there
    is no max-margin direction; p selects irrelevant tokens; p drops some relevant
    tokens; p selects several relevant tokens per sequence; p converges to p_mm (or not yet).
    """
    c = result.config
    corr, cos, own = result.correlation, result.final_cosine, result.selection_cosine
    prefix = f"delta={c.delta:g}, d={c.d}, T={c.T}: "
    if corr < NOISY_ALIGNMENT:
        # the spread over tokens of the signal (lr/2)|v|^2 alpha_s against that of the noise E_s(0).v
        signal, noise = result.predicted_slope * float(result.alpha.std()), c.d**-0.5
        verb = "beats" if corr < 0.5**0.5 else "blurs"
        return (
            f"with T={c.T} and d={c.d} the noise {verb} the signal: alignment {corr:.2f} "
            f"(signal spread lr/2 * |v|^2 * std(alpha) = {signal:.2g} against noise 1/sqrt(d) = {noise:.2g})"
        )
    if cos is None:
        if result.irrelevant_share == 0:
            return prefix + "every position holds a relevant token, so attention has nothing to select against (no p_mm)"
        return (
            prefix + f"E.v follows alpha (alignment {corr:.3f}), but no p can put every relevant token above every "
            f"irrelevant one (no max-margin direction in d={c.d}); trained p still puts {result.final_mean_attention:.2f} "
            "of the attention on relevant tokens on average"
        )
    own_text = "" if own is None else f" (cos {own:.3f})"
    if result.missed_fraction > 0.01:
        return (
            prefix + f"p selects irrelevant tokens in {result.missed_fraction:.0%} of the sequences and converges to the "
            f"max-margin direction of that wrong selection{own_text}, not to p_mm (cos {cos:.2f})"
        )
    if result.selected_fraction < 0.99:
        return (
            prefix + f"{result.relevant_per_sequence:.1f} relevant tokens per sequence on average, but p selects "
            f"{result.selected_per_sequence:.1f} per sequence and converges to the max-margin direction of its own "
            f"selection{own_text}, not to p_mm over all relevant tokens (cos {cos:.2f})"
        )
    if result.relevant_per_sequence > 1.05:
        return (
            prefix + f"several relevant tokens per sequence ({result.relevant_per_sequence:.1f} on average), "
            f"and p selects all of them (cos(p, p_mm) = {cos:.3f})"
        )
    worst = result.final_min_attention
    selection = (
        "every sequence puts more than 0.99 of its attention on its relevant token"
        if worst > 0.99
        else f"the worst sequence puts {worst:.2f} of its attention on its relevant token"
    )
    if cos >= 0.99:
        return (
            prefix + f"E.v follows alpha (alignment {corr:.3f}, slope {result.slope:.0f} against the predicted "
            f"{result.predicted_slope:.0f}), p converges to p_mm (cos {cos:.3f}) and {selection}"
        )
    return prefix + f"{selection}, but the direction of p is still off p_mm (cos {cos:.3f}) when training stops"


def draw_panels(result: ExplorerResult, *, width: float = 15.0):
    """The three linked panels as a matplotlib ``Figure`` (not registered with pyplot)."""
    from matplotlib.figure import Figure

    # a fixed layout: constrained layout would double the drawing time of a redraw
    fig = Figure(figsize=(width, width * 0.3))
    fig.subplots_adjust(left=0.055, right=0.99, bottom=0.15, top=0.83, wspace=0.27)
    ax_step, ax_train, ax_score = fig.subplots(1, 3)
    plot_against_importance(ax_step, result.alpha, result.values, result.token_class)
    plot_against_importance(ax_score, result.alpha, result.scores, result.token_class)

    grid = np.linspace(result.alpha.min(), result.alpha.max(), 2)
    intercept = result.values.mean() - result.slope * result.alpha.mean()
    ax_step.plot(grid, intercept + result.slope * grid, color="black", lw=1.2, label=f"fit: slope {result.slope:.3g}")
    ax_step.plot(
        grid, result.predicted_slope * grid, color="black", lw=1.2, ls="--", label=f"predicted {result.predicted_slope:.3g}"
    )
    ax_step.set_xlabel(r"signed frequency $\alpha_s$")
    ax_step.set_ylabel(r"$E_s \cdot v$ after one step")
    ax_step.set_title(f"1. one step: corr(E.v, alpha) = {result.correlation:.3f}")
    ax_step.legend(fontsize=8, loc="upper left")

    steps = result.history["step"]
    shown = steps > 0
    if result.final_cosine is not None:
        ax_train.plot(steps[shown], result.history["cosine"][shown], color="black", label=r"cos$(p, p_{mm})$")
    else:
        ax_train.text(0.5, 0.35, "no max-margin direction:\n" + _wrap(result.max_margin_message, 48), ha="center", va="center",
                      transform=ax_train.transAxes, fontsize=8, color="#8b0000")  # fmt: skip
    ax_train.plot(
        steps[shown], result.history["mean_relevant_attention"][shown], color="#2ca02c", label="mean relevant attention"
    )
    ax_train.plot(
        steps[shown], result.history["min_relevant_attention"][shown], color="#2ca02c", ls=":", label="min relevant attention"
    )
    ax_train.set_xscale("log")
    ax_train.set_ylim(-0.05, 1.05)
    ax_train.set_xlabel("normalised-GD steps on p (log scale)")
    ax_train.set_ylabel("cosine / attention mass")
    if result.final_cosine is None:
        title = "2. training p: no p_mm"
    else:
        title = f"2. training p: cos(p, p_mm) = {result.final_cosine:.3f}"
        if result.selection_cosine is not None and result.selection_cosine != result.final_cosine:
            title += f"\n(with the p_mm of p's own selection: {result.selection_cosine:.3f})"
    ax_train.set_title(title)
    ax_train.legend(fontsize=8, loc="lower right")

    ax_score.set_xlabel(r"importance: signed frequency $\alpha_s$")
    ax_score.set_ylabel(r"$E_s \cdot p/\|p\|$ after training p")
    ax_score.set_title("3. final scores: the U-shape (colours as in 1)")
    fig.suptitle(result.config.label(), fontsize=10)
    return fig


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width))


def figure_png(fig, dpi: int = 80) -> bytes:
    """PNG bytes of a figure. Displaying PNG works whatever the matplotlib backend (Agg included)."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def notice_html(notice: str):
    """The sentence as a displayable paragraph (a display, not a print, so it stays below its figure)."""
    from IPython.display import HTML

    return HTML(f"<p><b>What to notice:</b> {_escape(notice)}.</p>")


def show_panels(result: ExplorerResult) -> None:
    """Display the three panels and the sentence in the current output area."""
    from IPython.display import Image, display

    display(Image(data=figure_png(draw_panels(result))))
    display(notice_html(result.notice))


class LiveExplorer:
    """ipywidgets controls around ``explore`` and ``draw_panels``.

    Primary sliders: delta, d, T; secondary controls: n, lr (one step), p-steps,
    Zipf exponent, seed. Sliders redraw on release (``continuous_update=False``); a progress bar
    and a status line show while a redraw computes; bad settings show their
    message in the panel. ``redraw()`` returns the seconds it took.
    """

    D_OPTIONS = (8, 16, 32, 64, 128, 256, 512, 1024, 2048)
    T_OPTIONS = (1, 2, 4, 8, 16, 32, 64, 128)
    CONTROL_NAMES = ("delta", "d", "T", "n", "lr", "p_steps", "zipf", "seed")

    def __init__(self, config: ExplorerConfig = DEFAULT_CONFIG) -> None:
        import ipywidgets as widgets

        if config.d not in self.D_OPTIONS or config.T not in self.T_OPTIONS:
            raise ValueError(
                f"the live explorer offers d in {self.D_OPTIONS} and T in {self.T_OPTIONS}, got d={config.d}, T={config.T}"
            )
        self.config = config
        style = {"description_width": "150px"}
        layout = widgets.Layout(width="420px")
        common = dict(continuous_update=False, style=style, layout=layout)
        self.delta = widgets.FloatSlider(
            value=config.delta, min=0.0, max=1.0, step=0.05, description="delta (relevant rate)", **common
        )
        self.d = widgets.SelectionSlider(options=self.D_OPTIONS, value=config.d, description="d (embedding dim)", **common)
        self.T = widgets.SelectionSlider(options=self.T_OPTIONS, value=config.T, description="T (sequence length)", **common)
        self.n = widgets.IntSlider(value=config.n, min=2, max=1000, step=2, description="n (sequences)", **common)
        self.lr = widgets.FloatLogSlider(value=config.lr, base=10, min=-1, max=4, step=0.1, description="one-step lr",
                                         readout_format=".3g", **common)  # fmt: skip
        self.p_steps = widgets.IntSlider(value=config.p_steps, min=10, max=10000, step=10, description="p-steps", **common)
        self.zipf = widgets.FloatSlider(value=config.zipf, min=0.0, max=2.0, step=0.25, description="Zipf exponent", **common)
        self.seed = widgets.BoundedIntText(value=config.seed, min=0, max=10**6, description="seed", style=style, layout=layout)
        self.progress = widgets.IntProgress(value=0, min=0, max=len(STAGES), description="", layout=widgets.Layout(width="200px"))
        self.status = widgets.Label(value="")
        self.output = widgets.Output()
        self.controls = (self.delta, self.d, self.T, self.n, self.lr, self.p_steps, self.zipf, self.seed)
        secondary = widgets.Accordion(
            children=[widgets.VBox([self.n, self.lr, self.p_steps, self.zipf, self.seed])], titles=("more settings",)
        )
        self.widget = widgets.VBox(
            [
                widgets.HBox([widgets.VBox([self.delta, self.d, self.T]), secondary]),
                widgets.HBox([self.progress, self.status]),
                self.output,
            ]
        )
        self.last_result: ExplorerResult | None = None
        self.last_png: bytes = b""
        self.last_error: str = ""
        self._observe(True)

    def _observe(self, on: bool) -> None:
        for control in self.controls:
            (control.observe if on else control.unobserve)(self._on_change, names="value")

    def set_values(self, **values) -> float:
        """Set several controls at once with a single redraw; return its seconds.

        Keys: those of ``CONTROL_NAMES``. A value a control cannot take
        raises ValueError naming the control and what it offers.
        """
        unknown = sorted(set(values) - set(self.CONTROL_NAMES))
        if unknown:
            raise ValueError(f"unknown control(s) {unknown}; the controls are {self.CONTROL_NAMES}")
        self._observe(False)
        try:
            for name, value in values.items():
                control = getattr(self, name)
                options = getattr(control, "options", None)
                if options is not None and value not in options:
                    raise ValueError(f"{name}={value!r} is not on the slider; it offers {tuple(options)}")
                control.value = value
        finally:
            self._observe(True)
        return self.redraw()

    def settings(self) -> dict:
        """Current control values as keyword arguments of ``explore``."""
        values = {name: getattr(self, name).value for name in self.CONTROL_NAMES}
        return {**values, "vocab_size": self.config.vocab_size, "p_lr": self.config.p_lr}

    def _on_change(self, change) -> None:
        self.redraw()

    def _stage(self, stage: str) -> None:
        self.progress.value = STAGES.index(stage)
        self.status.value = f"computing… {stage}"

    def redraw(self) -> float:
        """Recompute and redraw the panels for the current controls; return the seconds taken."""
        from IPython.display import HTML, Image, display

        start = time.perf_counter()
        self.progress.bar_style = ""
        try:
            result = explore(**self.settings(), on_stage=self._stage)
            self._stage(STAGES[4])
            png = figure_png(draw_panels(result))
        except Exception as error:  # any failure becomes a message in the panel, never a traceback
            text = str(error) if isinstance(error, ValueError) else f"{type(error).__name__}: {error}"
            self.last_result, self.last_png, self.last_error = None, b"", text
            self.output.clear_output(wait=True)
            with self.output:
                display(HTML(f'<p style="color:#8b0000"><b>These settings cannot be drawn.</b> {_escape(text)}</p>'))
            self.progress.bar_style = "danger"
            self.status.value = "invalid settings: see the message below"
            return time.perf_counter() - start
        self.last_result, self.last_png, self.last_error = result, png, ""
        self.output.clear_output(wait=True)
        with self.output:
            display(Image(data=png))
            display(notice_html(result.notice))
        seconds = time.perf_counter() - start
        self.progress.value = len(STAGES)
        self.progress.bar_style = "success"
        self.status.value = f"done in {seconds:.2f} s"
        return seconds

    def show(self) -> None:
        """Display the controls (drawn at their defaults), then a static figure of the defaults.

        The static figure is what a page without a kernel (the rendered book) shows.
        """
        from IPython.display import Image, display

        self.redraw()
        display(self.widget)
        if self.last_result is not None:
            print("Static figure of the defaults (for pages without a kernel; the live panels are above):")
            display(Image(data=self.last_png))
            display(notice_html(self.last_result.notice))


def _escape(text: str) -> str:
    import html

    return html.escape(text)


def live_explorer(config: ExplorerConfig = DEFAULT_CONFIG) -> LiveExplorer:
    """Build the live explorer at ``config`` (call ``.show()`` to display it)."""
    return LiveExplorer(config)


STATIC_JS = r"""
(function () {
  var root = document.getElementById("__ID__");
  var grid = JSON.parse(document.getElementById("__ID__-data").textContent);
  var layoutText = document.getElementById("__ID__-layout").textContent;
  var names = ["delta", "d", "T"];
  var axes = grid.config.axes;
  var groups = __GROUPS__;
  var plot = document.getElementById("__ID__-plot");

  function fmt(x, digits) {
    return x === null || x === undefined ? "n/a" : Number(x).toPrecision(digits);
  }
  function current() {
    var idx = names.map(function (name) { return Number(document.getElementById("__ID__-" + name).value); });
    return grid.points[(idx[0] * axes.d.length + idx[1]) * axes.T.length + idx[2]];
  }
  function pick(values, cls) {
    var out = [];
    for (var i = 0; i < values.length; i++) { if (grid.token_class[i] === cls) { out.push(values[i]); } }
    return out;
  }
  function traces(pt) {
    var out = [];
    groups.forEach(function (g) {
      out.push({type: "scatter", mode: "markers", name: g[1], legendgroup: g[1], x: pick(pt.alpha, g[0]),
                y: pick(pt.ev, g[0]), marker: {color: g[2], size: 7}, xaxis: "x", yaxis: "y"});
    });
    var lo = Math.min.apply(null, pt.alpha), hi = Math.max.apply(null, pt.alpha);
    var mean = function (a) { return a.reduce(function (s, x) { return s + x; }, 0) / a.length; };
    var intercept = mean(pt.ev) - pt.slope * mean(pt.alpha);
    out.push({type: "scatter", mode: "lines", name: "fit: slope " + fmt(pt.slope, 3), x: [lo, hi],
              y: [intercept + pt.slope * lo, intercept + pt.slope * hi], line: {color: "black"}, xaxis: "x", yaxis: "y"});
    out.push({type: "scatter", mode: "lines", name: "predicted " + fmt(pt.pred, 3), x: [lo, hi],
              y: [pt.pred * lo, pt.pred * hi], line: {color: "black", dash: "dash"}, xaxis: "x", yaxis: "y"});
    var keep = [];
    pt.step.forEach(function (s, i) { if (s > 0) { keep.push(i); } });
    var at = function (a) { return keep.map(function (i) { return a[i]; }); };
    var steps = at(pt.step);
    out.push({type: "scatter", mode: "lines", name: "cos(p, p_mm)", x: pt.cos ? steps : [], y: pt.cos ? at(pt.cos) : [],
              line: {color: "black"}, xaxis: "x2", yaxis: "y2"});
    out.push({type: "scatter", mode: "lines", name: "mean relevant attention", x: steps, y: at(pt.att_mean),
              line: {color: "#2ca02c"}, xaxis: "x2", yaxis: "y2"});
    out.push({type: "scatter", mode: "lines", name: "min relevant attention", x: steps, y: at(pt.att_min),
              line: {color: "#2ca02c", dash: "dot"}, xaxis: "x2", yaxis: "y2"});
    groups.forEach(function (g) {
      out.push({type: "scatter", mode: "markers", name: g[1], legendgroup: g[1], showlegend: false,
                x: pick(pt.alpha, g[0]), y: pick(pt.ep, g[0]), marker: {color: g[2], size: 7}, xaxis: "x3", yaxis: "y3"});
    });
    return out;
  }
  function draw() {
    var pt = current();
    names.forEach(function (name) {
      var index = Number(document.getElementById("__ID__-" + name).value);
      document.getElementById("__ID__-" + name + "-value").textContent = String(axes[name][index]);
    });
    var layout = JSON.parse(layoutText);
    layout.annotations[0].text = "1. one step: corr(E.v, alpha) = " + fmt(pt.corr, 3);
    layout.annotations[1].text = pt.cos_final === null ? "2. training p: no p_mm" :
      "2. training p: cos(p, p_mm) = " + fmt(pt.cos_final, 3) +
      (pt.cos_own !== null && pt.cos_own !== pt.cos_final ? " (own selection: " + fmt(pt.cos_own, 3) + ")" : "");
    layout.annotations[2].text = "3. final scores: the U-shape";
    if (pt.cos_final === null) {
      layout.annotations.push({text: "no max-margin direction", xref: "x2 domain", yref: "y2 domain", x: 0.5, y: 0.3,
                               showarrow: false, font: {color: "#8b0000"}});
    }
    Plotly.react(plot, traces(pt), layout, {displaylogo: false, responsive: true});
    var own = pt.cos_own !== null && pt.cos_own !== pt.cos_final ?
      "; cos with the p_mm of p's own selection " + fmt(pt.cos_own, 3) : "";
    document.getElementById("__ID__-numbers").textContent =
      "alignment corr(E.v, alpha) = " + fmt(pt.corr, 3) + "; fitted slope " + fmt(pt.slope, 3) +
      " against the predicted " + fmt(pt.pred, 3) + "; cos(p, p_mm) = " + fmt(pt.cos_final, 3) + own +
      "; relevant tokens per sequence " + fmt(pt.rel, 2) + ", selected " + fmt(pt.sel, 2) + ".";
    document.getElementById("__ID__-notice").textContent = "What to notice: " + pt.notice + ".";
    root.setAttribute("data-point", [pt.delta, pt.d, pt.T].join(","));
  }
  var tries = 0;
  function start() {
    if (!window.Plotly) {
      // only this page needs plotly.js: load the copy in the book's own _static folder
      if (tries === 0 && !document.getElementById("plotly-local-js")) {
        var script = document.createElement("script");
        script.id = "plotly-local-js";
        script.src = (document.documentElement.dataset.content_root || "../") + "_static/plotly.min.js";
        document.head.appendChild(script);
      }
      if (tries++ < 100) { setTimeout(start, 100); return; }
      plot.textContent = "This figure needs plotly.js, which the rendered book serves from its own _static folder. " +
        "In Jupyter or Colab, use the live explorer instead.";
      return;
    }
    names.forEach(function (name) {
      var input = document.getElementById("__ID__-" + name);
      input.addEventListener("input", guarded);
      input.addEventListener("change", guarded);
    });
    guarded();
  }
  function guarded() {
    // a failure shows in the page (and in data-error, which the browser test reads), not only in the console
    try { draw(); root.removeAttribute("data-error"); } catch (error) {
      root.setAttribute("data-error", String(error));
      document.getElementById("__ID__-notice").textContent = "The explorer failed: " + error;
    }
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
"""


def _static_layout() -> dict:
    """The plotly layout of the three panels (titles are filled in per grid point)."""
    from plotly.subplots import make_subplots

    fig = make_subplots(rows=1, cols=3, horizontal_spacing=0.07, subplot_titles=("1.", "2.", "3."))
    fig.update_layout(
        template="plotly_white",
        height=430,
        margin=dict(l=60, r=20, t=60, b=60),
        legend=dict(orientation="h", x=0.0, y=-0.22, font=dict(size=11)),
        font=dict(size=12),
    )
    fig.update_xaxes(title_text="signed frequency alpha_s", row=1, col=1)
    fig.update_yaxes(title_text="E_s . v after one step", row=1, col=1)
    fig.update_xaxes(title_text="normalised-GD steps on p (log)", type="log", row=1, col=2)
    fig.update_yaxes(title_text="cosine / attention mass", range=[-0.05, 1.05], row=1, col=2)
    fig.update_xaxes(title_text="importance: signed frequency alpha_s", row=1, col=3)
    fig.update_yaxes(title_text="E_s . p / |p| after training p", row=1, col=3)
    for annotation in fig.layout.annotations:
        annotation.font = dict(size=13)
    return fig.to_plotly_json()["layout"]


def static_explorer_html(grid: dict, *, element_id: str = "ch5-explorer", start: tuple | None = None) -> str:
    """Self-contained HTML for the static explorer: three range sliders over the grid and three plotly panels.

    The grid data and the layout are embedded as JSON; the script waits for
    ``window.Plotly`` (served by the site itself, never a CDN) and redraws with
    ``Plotly.react`` on every slider move. Element ids: ``<element_id>-plot``
    (the figure), ``<element_id>-delta`` / ``-d`` / ``-T`` (the range inputs),
    ``<element_id>-notice`` (the sentence). start: (delta, d, T), default the
    live explorer's defaults when they are a grid point.
    """
    import html as html_module
    import json

    from plotly.utils import PlotlyJSONEncoder

    axes = grid["config"]["axes"]
    wanted = start if start is not None else (DEFAULT_CONFIG.delta, DEFAULT_CONFIG.d, DEFAULT_CONFIG.T)
    position = {}
    for name, value in zip(("delta", "d", "T"), wanted, strict=True):
        options = axes[name]
        position[name] = min(range(len(options)), key=lambda i: abs(options[i] - value))

    def embedded(data) -> str:
        # "</" would end the <script> element early
        return json.dumps(data, separators=(",", ":"), cls=PlotlyJSONEncoder).replace("</", "<\\/")

    from matplotlib.colors import to_hex

    # the colours and names of the matplotlib panels, in drawing order
    groups = [[cls, CLASS_LABELS[cls], to_hex(CLASS_COLORS[cls])] for cls in (1, -1, 0)]
    labels = {"delta": "delta (relevant rate)", "d": "d (embedding dim.)", "T": "T (sequence length)"}
    sliders = "\n".join(
        f'<label style="display:inline-block;width:32%;vertical-align:top">{html_module.escape(labels[name])}: '
        f'<b id="{element_id}-{name}-value">{axes[name][position[name]]}</b><br>'
        f'<input type="range" id="{element_id}-{name}" min="0" max="{len(axes[name]) - 1}" step="1" '
        f'value="{position[name]}" aria-label="{html_module.escape(labels[name])}" style="width:90%"></label>'
        for name in ("delta", "d", "T")
    )
    return f"""<div id="{element_id}" class="token-selection-explorer">
<div>{sliders}</div>
<div id="{element_id}-plot" style="width:100%;min-height:430px"></div>
<p id="{element_id}-numbers" style="font-size:0.9em"></p>
<p id="{element_id}-notice"></p>
<script type="application/json" id="{element_id}-data">{embedded(grid)}</script>
<script type="application/json" id="{element_id}-layout">{embedded(_static_layout())}</script>
<script>{STATIC_JS.replace("__ID__", element_id).replace("__GROUPS__", json.dumps(groups))}</script>
</div>"""


def static_explorer(grid: dict, **kwargs):
    """``static_explorer_html`` wrapped for display in a notebook (``IPython.display.HTML``)."""
    from IPython.display import HTML

    return HTML(static_explorer_html(grid, **kwargs))
