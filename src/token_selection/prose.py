"""Numbers for a chapter's prose: ``glue`` records a computed value for the book to insert.

The book build (myst-nb) inserts each glued value where the Markdown names it, so no
number in the prose is typed by hand. Where myst-nb is not installed (Colab, a plain
Jupyter), nothing is recorded and the cells still run.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

try:
    from myst_nb import glue as _myst_glue
except ImportError:  # not building the book
    _myst_glue = None


def plain(value: Any) -> Any:
    """``value`` as a plain Python number when it is a numpy or one-element torch scalar, else unchanged."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, torch.Tensor):
        if value.numel() != 1:
            raise ValueError(f"only a single number can be glued into the prose, got a tensor of shape {tuple(value.shape)}")
        return value.item()
    return value


def glue(name: str, value: Any, display: bool = False) -> None:
    """Record ``value`` (a number or a short text) under ``name`` for the prose (``display``: also show it here)."""
    if _myst_glue is not None:
        _myst_glue(name, plain(value), display=display)
