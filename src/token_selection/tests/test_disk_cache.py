import pytest
import torch

from token_selection import disk_cache
from token_selection.disk_cache import CacheWarning, cache_key, checksum_path, load_checked, save_checked


def test_round_trip(tmp_path):
    obj = {"X": torch.arange(6).reshape(2, 3), "name": "imdb", "lists": [1, 2.5, None], "flag": True}
    path = save_checked(obj, tmp_path / "a.pt")
    loaded = load_checked(path)
    assert torch.equal(loaded["X"], obj["X"]) and loaded["name"] == "imdb" and loaded["lists"] == [1, 2.5, None]
    assert len(checksum_path(path).read_text().strip()) == 64


def test_missing_file_is_none_without_warning(tmp_path, recwarn):
    assert load_checked(tmp_path / "missing.pt") is None
    assert not recwarn.list


def test_flipped_byte_is_detected(tmp_path):
    path = save_checked({"x": torch.ones(100)}, tmp_path / "a.pt")
    raw = bytearray(path.read_bytes())
    raw[-40] ^= 0x01
    path.write_bytes(bytes(raw))
    with pytest.warns(CacheWarning, match="corrupted"):
        assert load_checked(path) is None


def test_missing_checksum_is_not_trusted(tmp_path):
    path = save_checked({"x": torch.ones(3)}, tmp_path / "a.pt")
    checksum_path(path).unlink()
    with pytest.warns(CacheWarning, match="no checksum"):
        assert load_checked(path) is None


def test_unloadable_file_with_valid_checksum_is_rejected(tmp_path):
    path = tmp_path / "a.pt"
    path.write_bytes(b"not a torch file")
    checksum_path(path).write_text(disk_cache.file_sha256(path))
    with pytest.warns(CacheWarning, match="could not be loaded"):
        assert load_checked(path) is None


def test_cache_key():
    assert cache_key({"a": 1, "b": [1, 2]}) == cache_key({"b": [1, 2], "a": 1})
    assert cache_key({"a": 1}) != cache_key({"a": 2})
    with pytest.raises(ValueError, match="JSON"):
        cache_key({"a": object()})


def test_cache_directory_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(disk_cache.CACHE_VARIABLE, str(tmp_path / "c"))
    assert disk_cache.default_cache_dir() == tmp_path / "c" and (tmp_path / "c").is_dir()
    monkeypatch.delenv(disk_cache.CACHE_VARIABLE)
    assert disk_cache.default_cache_dir().name == "token_selection"
