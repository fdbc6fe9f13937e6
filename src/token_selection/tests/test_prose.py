import numpy as np
import pytest
import torch

from token_selection import prose


def test_plain_turns_scalars_into_python_numbers():
    assert type(prose.plain(np.float64(0.5))) is float
    assert type(prose.plain(np.int64(3))) is int
    assert type(prose.plain(torch.tensor(2.5))) is float
    assert prose.plain("24 of 24") == "24 of 24"
    with pytest.raises(ValueError, match="single number"):
        prose.plain(torch.zeros(2))


def test_glue_records_through_myst_nb(monkeypatch):
    seen = []
    monkeypatch.setattr(prose, "_myst_glue", lambda name, value, display: seen.append((name, value, display)))
    prose.glue("x", np.float32(0.25))
    assert seen == [("x", 0.25, False)] and type(seen[0][1]) is float


def test_glue_without_myst_nb_records_nothing(monkeypatch):
    monkeypatch.setattr(prose, "_myst_glue", None)
    prose.glue("x", 1.0)  # no error: Colab has no myst-nb
