"""Checksummed files in an on-disk cache: tokenised reviews and trained checkpoints.

Every cached object is one ``torch.save`` file ``<name>.pt`` with a sidecar
``<name>.pt.sha256`` that holds the SHA-256 of its bytes. A file is used only
when its checksum matches and ``torch.load(..., weights_only=True)`` accepts it;
otherwise it is reported with a warning and treated as missing, so the caller
rebuilds it. Nothing corrupted is ever used silently.

The cache directory is ``$TOKEN_SELECTION_CACHE`` if set, else
``<repository>/.cache/token_selection`` when the package sits in a writable
checkout (git ignores ``.cache/``), else ``~/.cache/token_selection``.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import Any

import torch

CACHE_VARIABLE = "TOKEN_SELECTION_CACHE"
CHECKSUM_SUFFIX = ".sha256"


class CacheWarning(UserWarning):
    """A cached file was missing its checksum, corrupted or unreadable, and will be rebuilt."""


def default_cache_dir() -> Path:
    """The cache directory (created if needed); see the module docstring for the order tried."""
    named = os.environ.get(CACHE_VARIABLE, "").strip()
    if named:
        path = Path(named).expanduser()
    else:
        checkout = Path(__file__).resolve().parents[2]
        writable = (checkout / "pyproject.toml").is_file() and os.access(checkout, os.W_OK)
        path = checkout / ".cache" / "token_selection" if writable else Path.home() / ".cache" / "token_selection"
    path.mkdir(parents=True, exist_ok=True)
    return path


def resolve_cache_dir(cache_dir: str | os.PathLike | None) -> Path:
    """``cache_dir`` as a created directory, or the default one when None."""
    if cache_dir is None:
        return default_cache_dir()
    path = Path(cache_dir).expanduser()
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_key(config: dict[str, Any]) -> str:
    """A short stable hash of ``config`` (JSON-serialisable values; key order does not matter)."""
    try:
        text = json.dumps(config, sort_keys=True, separators=(",", ":"))
    except TypeError as error:
        raise ValueError(f"config must hold only JSON values (str, numbers, bool, None, lists, dicts): {error}") from None
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def file_sha256(path: str | os.PathLike) -> str:
    """SHA-256 hex digest of a file's bytes, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def checksum_path(path: Path) -> Path:
    """The sidecar file that holds ``path``'s SHA-256."""
    return path.with_name(path.name + CHECKSUM_SUFFIX)


def save_checked(obj: Any, path: str | os.PathLike) -> Path:
    """``torch.save`` ``obj`` to ``path`` and write its SHA-256 next to it; returns the path.

    ``obj`` must hold only what ``torch.load(weights_only=True)`` accepts: tensors,
    numbers, strings, bools, None, and lists, tuples and dicts of them. The file is
    written to a temporary name and renamed, so a crash never leaves a half file
    under the final name.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    os.close(handle)
    os.chmod(temporary, 0o644)  # mkstemp makes it private; a cache is shared like any other file
    try:
        torch.save(obj, temporary)
        digest = file_sha256(temporary)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)
    checksum_path(path).write_text(digest + "\n")
    return path


def load_checked(path: str | os.PathLike, *, map_location: str | torch.device | None = "cpu") -> Any | None:
    """The object saved by ``save_checked`` at ``path``, or None when it must be rebuilt.

    Returns None silently when the file does not exist; with a ``CacheWarning`` when
    its checksum is missing or wrong, or when ``torch.load(weights_only=True)`` rejects it.
    """
    path = Path(path)
    if not path.exists():
        return None
    sidecar = checksum_path(path)
    if not sidecar.exists():
        warnings.warn(f"{path} has no checksum file {sidecar.name}; ignoring it and rebuilding", CacheWarning, stacklevel=2)
        return None
    expected = sidecar.read_text().strip()
    actual = file_sha256(path)
    if actual != expected:
        warnings.warn(
            f"{path} is corrupted (sha256 {actual[:12]}..., expected {expected[:12]}...); ignoring it and rebuilding",
            CacheWarning,
            stacklevel=2,
        )
        return None
    try:
        return torch.load(path, map_location=map_location, weights_only=True)
    except Exception as error:  # any unpickling failure means the file cannot be trusted
        warnings.warn(f"{path} could not be loaded ({type(error).__name__}: {error}); rebuilding", CacheWarning, stacklevel=2)
        return None
