import pytest
import torch

from token_selection.disk_cache import CacheWarning
from token_selection.real_data import encoding as text_encoding
from token_selection.real_data import reviews
from token_selection.real_data.encoding import PAD_ID, UNK_ID, build_tokenizer, encode_texts, prepare_reviews, vocabulary


@pytest.fixture
def hub_down(monkeypatch):
    def fail(name, split):
        raise ConnectionError("no network in tests")

    monkeypatch.setattr(reviews, "_load_from_hub", fail)


def test_lower_case_and_html_line_breaks():
    tokenizer = build_tokenizer(["Great FILM<br /><br />great film<br/>film<BR>great"], min_count=1)
    words = vocabulary(tokenizer)
    assert words[:2] == ["<pad>", "<unk>"]
    assert set(words[2:]) == {"great", "film"}
    X, mask = encode_texts(tokenizer, ["GREAT<br />Film"], 4)
    assert X[0, :2].tolist() == [words.index("great"), words.index("film")]
    assert mask[0].tolist() == [True, True, False, False]


def test_escaped_line_breaks_of_the_yelp_files():
    tokenizer = build_tokenizer(["Good food.\\nGreat service", "real\nnewline"], min_count=1)
    assert tokenizer.encode("food.\\nGreat").tokens == ["food", ".", "great"]
    assert "n" not in vocabulary(tokenizer) and "\\" not in vocabulary(tokenizer)


def test_punctuation_is_split_off():
    tokenizer = build_tokenizer(["Wow!!! it's good.", "wow, good"], min_count=1)
    encoded = tokenizer.encode("Wow!!! it's good.")
    assert encoded.tokens == ["wow", "!!!", "it", "'", "s", "good", "."]


def test_min_count_and_unknown_words():
    tokenizer = build_tokenizer(["a a a b b c"], min_count=2)
    words = vocabulary(tokenizer)
    assert set(words) == {"<pad>", "<unk>", "a", "b"}
    assert words.index("a") < words.index("b")  # by decreasing count
    X, _ = encode_texts(tokenizer, ["c a zebra"], 3)
    assert X[0].tolist() == [UNK_ID, words.index("a"), UNK_ID]


def test_vocabulary_is_reproducible():
    texts, _ = reviews.make_toy_reviews(60, seed=2)
    assert vocabulary(build_tokenizer(texts, min_count=2)) == vocabulary(build_tokenizer(texts, min_count=2))


def test_truncation_padding_and_mask():
    tokenizer = build_tokenizer(["one two three four five six"], min_count=1)
    X, mask = encode_texts(tokenizer, ["one two three four five six", "two", ""], 4)
    assert X.dtype == torch.int64 and mask.dtype == torch.bool and X.shape == (3, 4)
    assert mask.sum(1).tolist() == [4, 1, 1]
    assert X[0].tolist() == [tokenizer.token_to_id(w) for w in ("one", "two", "three", "four")]
    assert X[1, 1:].tolist() == [PAD_ID] * 3
    assert X[2, 0] == UNK_ID  # an empty review keeps one real position
    assert tokenizer.encode("one two three four five six").ids[-1] == tokenizer.token_to_id("six")  # truncation is undone


def test_bad_arguments():
    tokenizer = build_tokenizer(["a b"], min_count=1)
    with pytest.raises(ValueError, match="T must be"):
        encode_texts(tokenizer, ["a"], 0)
    with pytest.raises(ValueError, match="min_count"):
        build_tokenizer(["a"], min_count=0)
    with pytest.raises(ValueError, match="vocab must start"):
        text_encoding.tokenizer_from_vocab(["a", "b"])


@pytest.fixture
def toy_dir(tmp_path):
    texts, labels = reviews.make_toy_reviews(200, seed=0)
    reviews.write_parquet_split(tmp_path / "data", "imdb", "train", texts, labels)
    test_texts, test_labels = reviews.make_toy_reviews(40, seed=1)
    reviews.write_parquet_split(tmp_path / "data", "imdb", "test", test_texts + ["zyzzyva only here"], [*test_labels, 1])
    return tmp_path


def test_prepare_reviews_builds_from_the_train_part_only(hub_down, toy_dir):
    data = prepare_reviews("imdb", T=8, min_count=1, data_dir=toy_dir / "data", cache_dir=toy_dir / "cache", progress=False)
    assert (len(data.train), len(data.validation), len(data.test)) == (180, 20, 41)
    assert "zyzzyva" not in data.vocab  # a test-only word is unknown
    assert data.test.X[-1, 0] == UNK_ID
    assert data.T == 8 and data.vocab_size == len(data.vocab)
    assert "local Parquet" in data.describe() and data.source_label == "local Parquet copy of imdb"
    words = {w for text in [data.test_texts[0]] for w in text.lower().split()}
    assert words  # raw test texts are kept for display


def test_cache_is_reused_and_a_corrupted_cache_is_rebuilt(hub_down, toy_dir):
    arguments = {"T": 8, "min_count": 1, "data_dir": toy_dir / "data", "cache_dir": toy_dir / "cache", "progress": False}
    first = prepare_reviews("imdb", **arguments)
    second = prepare_reviews("imdb", **arguments)
    assert not first.from_cache and second.from_cache
    assert torch.equal(first.train.X, second.train.X) and torch.equal(first.test.mask, second.test.mask)
    assert first.vocab == second.vocab and torch.equal(first.validation.y, second.validation.y)

    raw = bytearray(first.cache_path.read_bytes())
    raw[len(raw) // 2] ^= 0xFF  # flip one byte
    first.cache_path.write_bytes(bytes(raw))
    with pytest.warns(CacheWarning, match="corrupted"):
        third = prepare_reviews("imdb", **arguments)
    assert not third.from_cache and torch.equal(third.train.X, first.train.X)
    assert prepare_reviews("imdb", **arguments).from_cache  # rebuilt file is valid again


def test_cache_key_depends_on_every_setting(hub_down, toy_dir):
    base = {"min_count": 1, "data_dir": toy_dir / "data", "cache_dir": toy_dir / "cache", "progress": False}
    paths = {
        prepare_reviews("imdb", T=8, **base).cache_path,
        prepare_reviews("imdb", T=9, **base).cache_path,
        prepare_reviews("imdb", T=8, seed=1, **base).cache_path,
        prepare_reviews("imdb", T=8, limit=100, **base).cache_path,
        prepare_reviews("imdb", T=8, validation_fraction=0.2, **base).cache_path,
        prepare_reviews("imdb", T=8, **{**base, "min_count": 2}).cache_path,
    }
    assert len(paths) == 6
