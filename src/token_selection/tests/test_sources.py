from pathlib import Path

import numpy as np
import pytest

from token_selection import sources as pn

SOURCE = Path(__file__).resolve().parents[3] / ".." / "shared" / "sources" / "openreview-discussion.txt"


def _printed(row: np.ndarray, decimals: int) -> str:
    """A row as the saved page prints it: numbers run together with no separator."""
    return "".join(f"{value:.{decimals}f}" for value in row)


@pytest.mark.skipif(not SOURCE.is_file(), reason="the saved OpenReview page is not next to the repository")
def test_every_table_row_is_printed_in_the_source():
    text = SOURCE.read_text()
    rows = [pn.REBUTTAL_BIN_CENTRES, *pn.REBUTTAL_KEY_QUERY.values(), *pn.REBUTTAL_MLP.values()]
    for row in rows:
        assert _printed(row, 2) in text
    for centres, means in pn.REBUTTAL_YELP_STARS.values():
        assert _printed(centres, 3) in text and _printed(means, 3) in text
    for phrase in ("around 72%", "around 95%", "roughly 8 times", "roughly 6 times", "7766", "5424", "2048"):
        assert phrase in text


def test_table_shapes():
    assert pn.REBUTTAL_BIN_CENTRES.shape == (20,) and np.all(np.diff(pn.REBUTTAL_BIN_CENTRES) > 0)
    assert not np.allclose(np.diff(pn.REBUTTAL_BIN_CENTRES), np.diff(pn.REBUTTAL_BIN_CENTRES)[0])  # not a linspace
    for table in (pn.REBUTTAL_KEY_QUERY, pn.REBUTTAL_MLP):
        assert all(row.shape == (20,) for row in table.values())
    for centres, means in pn.REBUTTAL_YELP_STARS.values():
        assert centres.shape == means.shape == (19,)
