"""Model checkpoints with a SHA-256 checksum, and train-if-missing.

A checkpoint is one checked file (see ``disk_cache``) holding the model's
``state_dict`` (on the CPU), the training history and the full configuration it
was trained under. ``train_or_load`` loads it when its configuration matches and
its checksum holds, and otherwise trains and saves, so a reader who only wants to
look at a trained model never retrains it.
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from torch import nn

from ..disk_cache import CacheWarning, cache_key, load_checked, resolve_cache_dir, save_checked

CHECKPOINT_VERSION = 1
"""Bump when model or training code changes what a checkpoint means: old ones are then ignored."""


def checkpoint_path(name: str, config: dict[str, Any], cache_dir: str | os.PathLike | None = None) -> Path:
    """``<cache>/checkpoints/<name>-<hash of config>.pt``."""
    if not name or any(c in name for c in "/\\"):
        raise ValueError(f"name must be a non-empty file-name stem without slashes, got {name!r}")
    key = cache_key({"checkpoint_version": CHECKPOINT_VERSION, **config})
    return resolve_cache_dir(cache_dir) / "checkpoints" / f"{name}-{key}.pt"


def save_checkpoint(path: str | os.PathLike, model: nn.Module, history: dict[str, Any], config: dict[str, Any]) -> Path:
    """Write ``model``'s parameters (moved to the CPU), ``history`` and ``config`` to a checked file."""
    state = {k: t.detach().cpu() for k, t in model.state_dict().items()}
    return save_checked({"state": state, "history": history, "config": config}, path)


def load_checkpoint(path: str | os.PathLike, model: nn.Module, config: dict[str, Any]) -> dict[str, Any] | None:
    """Load the checkpoint at ``path`` into ``model`` and return its history, or None.

    None (nothing loaded) when the file is missing, fails its checksum (with a
    ``CacheWarning``), or was saved under a different ``config`` or for parameters of
    other names or shapes (also with a warning).
    """
    saved = load_checked(path)
    if saved is None:
        return None
    if saved.get("config") != config:
        warnings.warn(f"{path} was saved under another configuration; retraining", CacheWarning, stacklevel=2)
        return None
    expected = {k: tuple(t.shape) for k, t in model.state_dict().items()}
    found = {k: tuple(t.shape) for k, t in saved["state"].items()}
    if expected != found:
        warnings.warn(f"{path} holds parameters {found}, the model has {expected}; retraining", CacheWarning, stacklevel=2)
        return None
    device = next(model.parameters()).device
    model.load_state_dict({k: t.to(device) for k, t in saved["state"].items()})
    return saved["history"]


@dataclass
class LoadedOrTrained:
    """What ``train_or_load`` did: history (as saved), checkpoint path, and whether it was loaded."""

    history: dict[str, Any]
    path: Path
    loaded: bool


def train_or_load(
    model: nn.Module,
    name: str,
    config: dict[str, Any],
    train: Callable[[nn.Module], dict[str, Any]],
    *,
    cache_dir: str | os.PathLike | None = None,
) -> LoadedOrTrained:
    """Load ``model`` from its checkpoint if a valid one exists, else ``train(model)`` and save it.

    config: everything the trained parameters depend on (JSON-serialisable; it names
    the file and is compared on load). train: trains ``model`` in place and returns
    its history as plain lists, numbers and strings.
    """
    path = checkpoint_path(name, config, cache_dir)
    history = load_checkpoint(path, model, config)
    if history is not None:
        return LoadedOrTrained(history, path, True)
    history = train(model)
    save_checkpoint(path, model, history, config)
    return LoadedOrTrained(history, path, False)
