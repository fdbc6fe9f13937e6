"""The stand-in's row counts the Yelp chapter prints: against the files and the data README, when they are here."""

from __future__ import annotations

import re

import pytest

from token_selection.real_data import reviews


@pytest.fixture
def data_dir():
    found = reviews.data_directory(None)
    if found is None or not (found / "yelp_polarity" / "train.parquet").is_file():
        pytest.skip("no local data: set TOKEN_SELECTION_DATA")
    return found


def test_counts_group_the_sources_by_origin(monkeypatch):
    monkeypatch.setattr(
        reviews, "STAND_IN_SOURCES", {"train": {"yue_a": 3, "kaggle": 5, "yue_b": 7}, "test": {"dcwe": 1, "yue_c": 2}}
    )
    assert reviews.stand_in_counts() == {"train": 15, "test": 3, "total": 18, "yue": 12, "open_dataset": 6}


def test_a_tag_that_only_contains_yue_is_not_counted_as_yue(monkeypatch):
    monkeypatch.setattr(reviews, "STAND_IN_SOURCES", {"train": {"not_yue_x": 4, "yue_": 1}, "test": {}})
    counts = reviews.stand_in_counts()
    assert (counts["yue"], counts["open_dataset"], counts["test"]) == (1, 4, 0)


def test_each_split_total_is_the_files_row_count(data_dir):
    import pyarrow.parquet as pq

    counts = reviews.stand_in_counts()
    for split in reviews.SPLITS:
        assert pq.read_metadata(data_dir / "yelp_polarity" / f"{split}.parquet").num_rows == counts[split], split
        assert pq.read_metadata(data_dir / "imdb" / f"{split}.parquet").num_rows == reviews.HUB_ROWS["imdb"][split]


def readme_sources(text: str, split: str) -> dict[str, int]:
    """The "rows per source" cell of the README's row for ``yelp_polarity/<split>.parquet``: tag -> rows."""
    line = next(line for line in text.splitlines() if line.startswith(f"| yelp_polarity/{split}.parquet"))
    cell = line.split("|")[4]
    return {tag: int(n.replace(",", "")) for tag, n in re.findall(r"(\w+) ([\d,]+)", cell)}


def test_readme_sources_reads_the_row_of_its_split():
    text = (
        "| yelp_polarity/train.parquet | 9 | 4 / 5 | yue_train 1,000 · kaggle 20 | 1 | `ab` |\n"
        "| yelp_polarity/test.parquet | 3 | 1 / 2 | dcwe 3 | 1 | `cd` |\n"
    )
    assert readme_sources(text, "train") == {"yue_train": 1000, "kaggle": 20}
    assert readme_sources(text, "test") == {"dcwe": 3}


def test_every_source_count_is_the_data_readmes(data_dir):
    readme = data_dir / "README.md"
    if not readme.is_file():
        pytest.skip(f"no {readme}")
    text = readme.read_text()
    for split in reviews.SPLITS:
        assert readme_sources(text, split) == reviews.STAND_IN_SOURCES[split], split
