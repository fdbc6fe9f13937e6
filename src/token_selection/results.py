"""Versioned results records: one JSON file per experiment and compute scale, shipped with the package.

Every number a page shows that is not computed on the page is read from such a
record. A record holds what produced it: the experiment's name, the compute
scale, the settings (and their hash, so a stale record is recognised), the
seeds, the package version, the machine, the protocol in words, and the metrics.

Records live in ``token_selection/records/<name>.<scale>.json`` (package data, so
a chapter opened alone in Colab reads the same numbers as the book).
``$TOKEN_SELECTION_RECORDS`` points writers and readers at another directory.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import torch

RECORD_VERSION = 1
"""Bump when the layout of a record changes."""
RECORDS_VARIABLE = "TOKEN_SELECTION_RECORDS"
SCALES = ("fast", "full")


def records_dir() -> Path:
    """``$TOKEN_SELECTION_RECORDS`` if set, else the package's own ``records/`` folder."""
    named = os.environ.get(RECORDS_VARIABLE, "").strip()
    return Path(named).expanduser() if named else Path(__file__).resolve().parent / "records"


def settings_hash(settings: dict[str, Any]) -> str:
    """A short stable hash of ``settings`` (JSON-serialisable; key order does not matter)."""
    text = json.dumps(settings, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def record_path(name: str, scale: str) -> Path:
    """Where the record of experiment ``name`` at ``scale`` lives."""
    if not name or any(c in name for c in "/\\. "):
        raise ValueError(f"name must be a non-empty word without slashes, dots or spaces, got {name!r}")
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, got {scale!r}")
    return records_dir() / f"{name}.{scale}.json"


def machine_description() -> str:
    """The processor, core count and accelerator: where a record was produced."""
    gpu = f", GPU {torch.cuda.get_device_name(0)}" if torch.cuda.is_available() else ", no GPU"
    return f"{platform.machine()}, {os.cpu_count()} CPU cores{gpu}, torch {torch.__version__}"


def write_record(
    name: str,
    scale: str,
    *,
    protocol: str,
    settings: dict[str, Any],
    metrics: dict[str, Any],
    seeds: list[int] | None = None,
    seconds: float | None = None,
) -> Path:
    """Write the record of ``name`` at ``scale`` and return its path.

    protocol: what was run, in words (it is shown next to the numbers); settings: every
    setting the metrics depend on; metrics: JSON-serialisable numbers, lists and strings.
    """
    from ._version import __version__

    if not protocol.strip():
        raise ValueError("protocol must describe in words what was run")
    record = {
        "name": name,
        "scale": scale,
        "record_version": RECORD_VERSION,
        "package_version": __version__,
        "created": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine_description(),
        "protocol": protocol,
        "settings": settings,
        "settings_hash": settings_hash(settings),
        "seeds": list(seeds or []),
        "seconds": seconds,
        "metrics": metrics,
    }
    path = record_path(name, scale)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1, sort_keys=True, default=float) + "\n")
    return path


def read_record(name: str, scale: str, *, settings: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The record of ``name`` at ``scale``, or None when there is none.

    With ``settings``, a record written under other settings counts as missing (stale).
    """
    path = record_path(name, scale)
    if not path.is_file():
        return None
    record = json.loads(path.read_text())
    if record.get("record_version") != RECORD_VERSION:
        return None
    if settings is not None and record.get("settings_hash") != settings_hash(settings):
        return None
    return record


def missing_record_message(name: str, scale: str, command: str) -> str:
    """What a page prints in place of a missing record: how to produce it."""
    return f"No {scale}-scale record '{name}' yet ({record_path(name, scale)}). Produce it with: {command}"
