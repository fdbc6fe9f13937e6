"""The tokenised toy reviews several test modules train on."""

import pytest

# torch imports torch._dynamo on the first optimizer or gradcheck, which takes seconds; importing it here, at
# collection, pays that once before any test, so that no single test carries it.
import torch._dynamo  # noqa: F401

from token_selection.real_data import reviews
from token_selection.real_data.encoding import prepare_reviews


def offline(name, split):
    raise ConnectionError("no network in tests")


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """Tokenised toy reviews named imdb: 400 train (360 + 40 validation), 200 test, T = 12."""
    root = tmp_path_factory.mktemp("toy")
    for split, n, seed in (("train", 400, 0), ("test", 200, 1)):
        reviews.write_parquet_split(root / "data", "imdb", split, *reviews.make_toy_reviews(n, seed=seed))
    patch = pytest.MonkeyPatch()
    patch.setattr(reviews, "_load_from_hub", offline)
    try:
        return prepare_reviews("imdb", T=12, min_count=1, data_dir=root / "data", cache_dir=root / "cache", progress=False)
    finally:
        patch.undo()
