"""A rebuttal table row as printed (numbers separated by spaces) becomes a float64 array."""

from __future__ import annotations

import numpy as np

from token_selection.sources import _row


def test_a_printed_row_becomes_float64_numbers():
    row = _row("15.47 -0.61  3e-2\t7")
    assert row.dtype == np.float64 and row.tolist() == [15.47, -0.61, 0.03, 7.0]
    assert _row("").shape == (0,)
