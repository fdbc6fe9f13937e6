"""The checked cache in detail: where it lives, its key, its checksum files, and every way a cached file is refused.

Written against the mutants ``make mutation`` made of ``disk_cache.py``: each test pins a behaviour a
plausible slip would change (a path, a suffix, a block size, a file mode, who a warning blames).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import warnings
from pathlib import Path

import pytest
import torch

from token_selection import disk_cache
from token_selection.disk_cache import (
    CACHE_VARIABLE,
    CHECKSUM_SUFFIX,
    CacheWarning,
    cache_key,
    checksum_path,
    default_cache_dir,
    file_sha256,
    load_checked,
    resolve_cache_dir,
    save_checked,
)


def test_the_variable_names_the_cache_and_is_created_with_its_parents(tmp_path, monkeypatch):
    assert CACHE_VARIABLE == "TOKEN_SELECTION_CACHE"
    monkeypatch.setenv(CACHE_VARIABLE, f"  {tmp_path / 'a' / 'b'}  ")
    assert default_cache_dir() == tmp_path / "a" / "b" and (tmp_path / "a" / "b").is_dir()
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv(CACHE_VARIABLE, "~/named")
    assert default_cache_dir() == tmp_path / "named" and (tmp_path / "named").is_dir()


def test_without_the_variable_a_writable_checkout_holds_the_cache(monkeypatch):
    monkeypatch.delenv(CACHE_VARIABLE, raising=False)
    checkout = Path(disk_cache.__file__).resolve().parents[2]
    if not ((checkout / "pyproject.toml").is_file() and os.access(checkout, os.W_OK)):
        pytest.skip("the package is not in a writable checkout")
    assert default_cache_dir() == checkout / ".cache" / "token_selection"
    monkeypatch.setenv(CACHE_VARIABLE, "   ")  # blank counts as unset
    assert default_cache_dir() == checkout / ".cache" / "token_selection"


def test_outside_a_checkout_the_cache_is_in_the_home_folder(tmp_path, monkeypatch):
    monkeypatch.delenv(CACHE_VARIABLE, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    fake = tmp_path / "site" / "token_selection" / "disk_cache.py"
    fake.parent.mkdir(parents=True)
    monkeypatch.setattr(disk_cache, "__file__", str(fake))  # an installed package: no pyproject.toml above it
    assert default_cache_dir() == tmp_path / ".cache" / "token_selection" and (tmp_path / ".cache" / "token_selection").is_dir()
    (tmp_path / "pyproject.toml").write_text("")  # a checkout...
    assert default_cache_dir() == tmp_path / ".cache" / "token_selection"
    monkeypatch.setattr(disk_cache.os, "access", lambda path, mode: False)  # ...that is not writable
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "token_selection"


def test_resolve_cache_dir_creates_the_named_folder_or_uses_the_default(tmp_path, monkeypatch):
    named = tmp_path / "x" / "y"
    assert resolve_cache_dir(named) == named and named.is_dir()
    assert resolve_cache_dir(str(named)) == named
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "default"))
    assert resolve_cache_dir(None) == tmp_path / "default"
    monkeypatch.setenv("HOME", str(tmp_path))
    assert resolve_cache_dir("~/z") == tmp_path / "z" and (tmp_path / "z").is_dir()


def test_cache_key_is_the_canonical_json_hash_and_refuses_other_values():
    config = {"b": [1, 2.5], "a": {"y": None, "x": True}}
    expected = hashlib.sha256(b'{"a":{"x":true,"y":null},"b":[1,2.5]}').hexdigest()[:16]
    assert cache_key(config) == expected
    for key, value in config.items():  # every single change moves the key
        assert cache_key({**config, key: [value]}) != expected
    with pytest.raises(ValueError, match=r"config must hold only JSON values \(str, numbers, bool, None, lists, dicts\)"):
        cache_key({"path": Path("x")})  # unlike a record's settings hash, no silent str()


def test_file_sha256_reads_files_larger_than_one_block(tmp_path):
    path = tmp_path / "big"
    data = os.urandom((1 << 20) * 2 + 123)
    path.write_bytes(data)
    assert file_sha256(path) == hashlib.sha256(data).hexdigest()
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    assert file_sha256(empty) == hashlib.sha256(b"").hexdigest()


def test_checksum_file_sits_next_to_the_file():
    assert CHECKSUM_SUFFIX == ".sha256"
    assert checksum_path(Path("/c/reviews-1.pt")) == Path("/c/reviews-1.pt.sha256")


def test_save_checked_writes_a_shared_file_its_checksum_and_no_temporary(tmp_path):
    path = save_checked({"x": torch.arange(3)}, tmp_path / "new" / "deeper" / "a.pt")
    assert path == tmp_path / "new" / "deeper" / "a.pt"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    assert checksum_path(path).read_text() == file_sha256(path) + "\n"
    assert sorted(p.name for p in path.parent.iterdir()) == ["a.pt", "a.pt.sha256"]


def test_the_temporary_file_is_named_after_the_file_next_to_it(tmp_path, monkeypatch):
    """Next to it: the rename is then atomic (one file system); named after it: a crash's leftover says whose it is."""
    written = []
    real_save = torch.save

    def spy(obj, where):
        written.append(Path(where))
        real_save(obj, where)

    monkeypatch.setattr(disk_cache.torch, "save", spy)
    path = save_checked([1], tmp_path / "reviews.pt")
    (temporary,) = written
    assert temporary.parent == path.parent and temporary != path
    assert temporary.name.startswith("reviews.pt") and temporary.name.endswith(".tmp")
    assert not temporary.exists()


def test_a_failed_save_leaves_neither_a_half_file_nor_a_temporary(tmp_path, monkeypatch):
    def broken(obj, where):
        Path(where).write_bytes(b"half")
        raise RuntimeError("disk full")

    monkeypatch.setattr(disk_cache.torch, "save", broken)
    with pytest.raises(RuntimeError, match="disk full"):
        save_checked({"x": 1}, tmp_path / "a.pt")
    assert list(tmp_path.iterdir()) == []


def test_load_checked_returns_tensors_on_the_cpu_by_default_or_where_asked(tmp_path):
    path = save_checked({"x": torch.ones(2)}, tmp_path / "a.pt")
    assert load_checked(path)["x"].device.type == "cpu"
    assert load_checked(str(path), map_location=None)["x"].tolist() == [1.0, 1.0]
    assert load_checked(path, map_location="meta")["x"].device.type == "meta"  # the argument reaches torch.load


def test_only_weights_are_loaded_even_when_the_environment_allows_more(tmp_path, monkeypatch):
    path = tmp_path / "a.pt"
    torch.save({"f": Path("x")}, path)  # loading it would run pickle's code for a Path
    checksum_path(path).write_text(file_sha256(path))
    monkeypatch.setenv("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "1")  # torch's switch for calls that do not say weights_only
    with pytest.warns(CacheWarning, match=r"could not be loaded \(UnpicklingError: "):
        assert load_checked(path) is None


def test_a_checksum_file_with_surrounding_space_is_read(tmp_path):
    path = save_checked([1, 2], tmp_path / "a.pt")
    checksum_path(path).write_text("  " + file_sha256(path) + "  \n\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_checked(path) == [1, 2]


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = call()
    return value, caught


@pytest.mark.parametrize("damage", ["no checksum", "wrong checksum", "not a torch file", "pickled object"])
def test_every_refusal_warns_once_naming_the_file_and_blames_the_caller(tmp_path, damage):
    path = save_checked({"x": torch.ones(3)}, tmp_path / "a.pt")
    if damage == "no checksum":
        checksum_path(path).unlink()
    elif damage == "wrong checksum":
        checksum_path(path).write_text("0" * 64 + "\n")
    else:
        if damage == "not a torch file":
            path.write_bytes(b"plain bytes")
        else:
            torch.save({"f": Path("x")}, path)  # a pickle that weights_only loading refuses
        checksum_path(path).write_text(file_sha256(path))
    value, caught = _caught(lambda: load_checked(path))
    assert value is None and len(caught) == 1
    warning = caught[0]
    assert warning.category is CacheWarning and str(path) in str(warning.message)
    # stacklevel 2: the warning points at the line that asked for the file. Under mutmut (MUTANT_UNDER_TEST in the
    # environment, empty for its clean run) every call passes through mutmut's trampoline, which is then the caller.
    caller = "trampoline.py" if "MUTANT_UNDER_TEST" in os.environ else Path(__file__).name
    assert Path(warning.filename).name == caller
    message = str(warning.message)
    if damage == "no checksum":
        assert message.endswith("has no checksum file a.pt.sha256; ignoring it and rebuilding")
    elif damage == "wrong checksum":
        assert f"(sha256 {file_sha256(path)[:12]}..., expected {'0' * 12}...)" in message
        assert message.startswith(f"{path} is corrupted (sha256 ") and message.endswith("...); ignoring it and rebuilding")
    else:
        assert re.search(r"could not be loaded \((Unpickling|Runtime)Error: .+\); rebuilding$", message, re.DOTALL), message
