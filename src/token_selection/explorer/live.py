"""The live explorer: ipywidgets controls around ``explore`` and ``draw_panels`` (Jupyter and Colab).

Written against the API common to ipywidgets 7.7 (Colab's) and 8: the accordion's
header is set with ``set_title``, not the 8-only ``titles=`` argument.
"""

from __future__ import annotations

import html
import time
from dataclasses import asdict

from .compute import STAGES, explore
from .config import DEFAULT_CONFIG, ExplorerConfig
from .panels import draw_panels, figure_png, notice_html
from .result import ExplorerResult

D_OPTIONS = (8, 16, 32, 64, 128, 256, 512, 1024, 2048)
T_OPTIONS = (1, 2, 4, 8, 16, 32, 64, 128)
PRIMARY = ("delta", "d", "T")
"""The controls always in view; the others sit under "more settings"."""


def _controls(config: ExplorerConfig) -> dict:
    """One widget per setting the reader can move, keyed by the ``ExplorerConfig`` field it sets."""
    import ipywidgets as widgets

    style = {"description_width": "150px"}
    common = dict(continuous_update=False, style=style, layout=widgets.Layout(width="420px"))
    return {
        "delta": widgets.FloatSlider(value=config.delta, min=0.0, max=1.0, step=0.05, description="delta (relevant rate)",
                                     **common),
        "d": widgets.SelectionSlider(options=D_OPTIONS, value=config.d, description="d (embedding dim)", **common),
        "T": widgets.SelectionSlider(options=T_OPTIONS, value=config.T, description="T (sequence length)", **common),
        "n": widgets.IntSlider(value=config.n, min=2, max=1000, step=2, description="n (sequences)", **common),
        "step_factor": widgets.FloatLogSlider(value=config.step_factor, base=10, min=-2, max=3, step=0.1,
                                              description="one step: eta / eta*", readout_format=".3g", **common),
        "p_steps": widgets.IntSlider(value=config.p_steps, min=10, max=10000, step=10, description="p-steps", **common),
        "zipf": widgets.FloatSlider(value=config.zipf, min=0.0, max=2.0, step=0.25, description="Zipf exponent", **common),
        "seed": widgets.BoundedIntText(value=config.seed, min=0, max=10**6, description="seed", style=style,
                                       layout=common["layout"]),
    }  # fmt: skip


class LiveExplorer:
    """ipywidgets controls around ``explore`` and ``draw_panels``.

    Primary sliders: delta, d, T; under "more settings": n, the one step as a multiple
    of eta*, p-steps, Zipf exponent, seed. Sliders redraw on release
    (``continuous_update=False``); a progress bar and a status line show while a redraw
    computes; bad settings show their message in the panel.
    """

    def __init__(self, config: ExplorerConfig = DEFAULT_CONFIG) -> None:
        import ipywidgets as widgets

        if config.d not in D_OPTIONS or config.T not in T_OPTIONS:
            raise ValueError(f"the live explorer offers d in {D_OPTIONS} and T in {T_OPTIONS}, got d={config.d}, T={config.T}")
        self.config = config
        self.controls = _controls(config)
        self.progress = widgets.IntProgress(value=0, min=0, max=len(STAGES), layout=widgets.Layout(width="200px"))
        self.status = widgets.Label(value="")
        self.output = widgets.Output()
        self.more = widgets.Accordion(children=[widgets.VBox([w for k, w in self.controls.items() if k not in PRIMARY])])
        self.more.set_title(0, "more settings")
        self.widget = widgets.VBox(
            [
                widgets.HBox([widgets.VBox([self.controls[name] for name in PRIMARY]), self.more]),
                widgets.HBox([self.progress, self.status]),
                self.output,
            ]
        )
        self.last_result: ExplorerResult | None = None
        self.last_png: bytes = b""
        self.last_error: str = ""
        self._observe(True)

    def _observe(self, on: bool) -> None:
        for control in self.controls.values():
            (control.observe if on else control.unobserve)(self._on_change, names="value")

    def set_values(self, **values) -> None:
        """Set several controls at once with a single redraw.

        Keys: those of ``self.controls``. A value a control cannot take raises
        ValueError naming the control and what it offers.
        """
        unknown = sorted(set(values) - set(self.controls))
        if unknown:
            raise ValueError(f"unknown control(s) {unknown}; the controls are {tuple(self.controls)}")
        self._observe(False)
        try:
            for name, value in values.items():
                control = self.controls[name]
                options = getattr(control, "options", None)
                if options is not None and value not in options:
                    raise ValueError(f"{name}={value!r} is not on the slider; it offers {tuple(options)}")
                control.value = value
        finally:
            self._observe(True)
        self.redraw()

    def settings(self) -> dict:
        """Current settings as keyword arguments of ``explore`` (controls over the starting config)."""
        return asdict(self.config) | {name: control.value for name, control in self.controls.items()}

    def _on_change(self, change) -> None:
        self.redraw()

    def _stage(self, stage: str) -> None:
        self.progress.value = STAGES.index(stage)
        self.status.value = f"computing… {stage}"

    def redraw(self) -> None:
        """Recompute and redraw the panels for the current controls; the status line gives the seconds taken."""
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
                display(HTML(f'<p style="color:#8b0000"><b>These settings cannot be drawn.</b> {html.escape(text)}</p>'))
            self.progress.bar_style = "danger"
            self.status.value = "invalid settings: see the message below"
            return
        self.last_result, self.last_png, self.last_error = result, png, ""
        self.output.clear_output(wait=True)
        with self.output:
            display(Image(data=png))
            display(notice_html(result.notice))
        self.progress.value = len(STAGES)
        self.progress.bar_style = "success"
        self.status.value = f"done in {time.perf_counter() - start:.2f} s"

    def show(self) -> None:
        """Display the controls (drawn at their defaults), then a static figure of the defaults, its panels stacked.

        The static figure is what a page without a kernel (the rendered book) shows.
        """
        from IPython.display import Image, display

        self.redraw()
        display(self.widget)
        if self.last_result is not None:
            print("Static figure of the defaults (for pages without a kernel; the live panels are above):")
            # stacked: in a book's text column three panels side by side shrink to small print
            display(Image(data=figure_png(draw_panels(self.last_result, stacked=True))))
            display(notice_html(self.last_result.notice))


def live_explorer(config: ExplorerConfig = DEFAULT_CONFIG) -> LiveExplorer:
    """Build the live explorer at ``config`` (call ``.show()`` to display it)."""
    return LiveExplorer(config)
