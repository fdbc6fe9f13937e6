"""Helpers for the device-placement tests: they make a misplaced tensor visible on a CPU-only machine.

On a machine with one device every ``.to(device)`` is a no-op and every factory call lands on
the CPU, so forgetting a device goes unnoticed until a GPU user hits a device mismatch. Two
helpers make the same mistakes visible on the CPU:

- ``MoveRecorder``: a tensor subclass that records where each ``.to(...)`` call sends it (the
  subclass survives torch operations, so the tensors derived from an input record too);
  ``recorded_moves(x)`` wraps ``x`` and ``moves`` lists the targets. A move with no device
  (``.to(None)``, ``.to(dtype=...)``) records ``None``.
- ``factories_on_meta()``: a context in which tensors created without an explicit device
  (``torch.zeros(n)``, ``torch.full(...)``, ``torch.arange(n)``) land on the ``meta`` device,
  so a factory call that omits ``device=`` makes a meta tensor that cannot mix with the
  function's CPU tensors (an error, or a meta result that a test can see).

``cuda`` is the skip marker of the tests that run on a GPU when one is present.
"""

from __future__ import annotations

from typing import Any

import pytest
import torch

cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")


class MoveRecorder(torch.Tensor):
    """A tensor whose ``.to(...)`` calls append their target device (or None) to ``MoveRecorder.moves``."""

    moves: list[torch.device | None] = []

    def to(self, *args: Any, **kwargs: Any) -> torch.Tensor:  # type: ignore[override]
        device = torch._C._nn._parse_to(*args, **kwargs)[0]
        MoveRecorder.moves.append(device)
        return super().to(*args, **kwargs)


def recorded_moves(x: torch.Tensor) -> torch.Tensor:
    """``x`` as a ``MoveRecorder``; clears the record of earlier moves."""
    MoveRecorder.moves = []
    return x.as_subclass(MoveRecorder)


def moves() -> list[torch.device | None]:
    """The targets of the ``.to`` calls since the last ``recorded_moves``."""
    return list(MoveRecorder.moves)


def factories_on_meta() -> torch.device:
    """A context manager: tensors made without a device inside it go to ``meta``."""
    return torch.device("meta")
