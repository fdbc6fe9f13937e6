"""One seed's race run two ways: by unit steps of normalised GD and along the gradient flow, over one arc length.

The seed sweep (``flow_seed_sweep``) counts fewer seeds that reach ``p_mm`` along the flow than with unit steps, and
every seed that unit steps miss the flow misses too. ``parting_seed`` picks the first seed where the two part (unit
steps reach, the flow misses); ``races_both_ways`` retrains that seed of the reference case both ways from ``p = 0``
and returns each way's race (``theory.selection_frames.class_race``): the lean of ``p`` along ``v`` and the worst
attention of each class, so that a page can draw where the two ways part.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from ..theory.selection_frames import Frame, class_race, p_at_steps
from ..theory.synthetic import ReferenceCase
from ..validation import check_positive_int
from .past_floor import continue_flow

WAYS = ("unit steps", "the flow")
"""The two ways, in the order ``races_both_ways`` returns them."""


def parting_seed(unit_reached: Sequence[bool], flow_reached: Sequence[bool]) -> int:
    """The first seed whose unit-step run reaches ``p_mm`` while its flow misses, from the sweep's per-seed verdicts
    (two sequences of the same length, one bool per seed). ValueError when the lengths differ or no seed parts."""
    if len(unit_reached) != len(flow_reached):
        raise ValueError(
            f"unit_reached and flow_reached must give one verdict per seed each, got {len(unit_reached)} and {len(flow_reached)}"
        )
    for seed, (unit, flow) in enumerate(zip(unit_reached, flow_reached, strict=True)):
        if unit and not flow:
            return seed
    raise ValueError(f"no seed of the {len(unit_reached)} given reaches p_mm with unit steps and misses along the flow")


def races_both_ways(
    seed: int, arc: int, *, marks: int = 30, rtol: float = 1e-6, atol: float = 1e-8
) -> dict[str, dict[str, np.ndarray]]:
    """The race of reference-case seed ``seed`` (``ReferenceCase(seed=seed)``: d = 512, E and v frozen after the one
    step, p from 0) over ``arc`` units of arc length, two ways: ``"unit steps"`` (normalised GD with step 1, recorded at
    ``marks`` steps spaced evenly on a log scale from 1 to ``arc``, and at 0) and ``"the flow"`` (the normalised flow
    by scipy's RK45 at ``rtol`` and ``atol``, recorded at every whole unit of arc from 0 to ``arc``).

    Returns ``{way: race}`` with each race as ``class_race`` gives it: (F,) arrays ``step`` (units of arc), ``lean``,
    ``worst +1`` and ``worst -1``. A unit-step run that reaches the float64 floor before ``arc`` ends there.
    """
    seed = check_positive_int(seed, "seed", minimum=0)
    arc = check_positive_int(arc, "arc")
    marks = check_positive_int(marks, "marks", minimum=2)
    data, model = ReferenceCase(seed=seed).build()
    E, v = model.E.detach().double(), model.v.detach().double()
    steps = [0, *np.unique(np.geomspace(1, arc, marks).astype(int)).tolist()]
    unit_frames = p_at_steps(model, data.X, data.y, steps)
    X = data.X.numpy()
    points, _ = continue_flow(
        E.numpy(), (E @ v).numpy()[X], X, data.y.numpy(), np.zeros(E.shape[1]), float(arc), rtol, atol, arc + 1
    )
    flow_frames = [Frame(step, torch.from_numpy(p)) for step, p in enumerate(points)]
    return {
        way: class_race(E, v, data.X, data.y, data.relevant, frames)
        for way, frames in zip(WAYS, (unit_frames, flow_frames), strict=True)
    }
