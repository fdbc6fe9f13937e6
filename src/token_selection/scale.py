"""The one compute-scale setting every chapter reads.

``TOKEN_SELECTION_SCALE=fast`` (the default, used by CI) runs each chapter in
seconds to a minute on two CPU cores; ``full`` runs the paper-scale settings
(a GPU or patience).
"""

from __future__ import annotations

import os

SCALE_VARIABLE = "TOKEN_SELECTION_SCALE"
SCALES = ("fast", "full")


def compute_scale() -> str:
    """The scale named by ``$TOKEN_SELECTION_SCALE``: "fast" (default) or "full"."""
    scale = os.environ.get(SCALE_VARIABLE, "fast").strip().lower() or "fast"
    if scale not in SCALES:
        raise ValueError(f"{SCALE_VARIABLE} must be one of {SCALES}, got {scale!r}")
    return scale


def by_scale(fast, full):
    """Pick the value for the current scale."""
    return full if compute_scale() == "full" else fast


def is_full(scale: str) -> bool:
    """Whether ``scale`` is "full" (True) or "fast" (False); any other value is refused, naming the two."""
    if scale not in SCALES:
        raise ValueError(f"scale must be 'fast' or 'full', got {scale!r}")
    return scale == "full"
