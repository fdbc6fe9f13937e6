"""The one registry of real-data model kinds and training modes.

A kind is a model class with the interface the trainer calls: ``logits_and_attention(X, mask)``
(logits first, for already checked inputs), ``token_scores()`` (V,) and ``token_values()``
(V,). A mode says which parameters train: everything (``joint``), everything but ``E`` at
its random draw (``frozen_random``), or one full-batch gradient step on ``E`` followed by
training everything but ``E`` (``one_step_frozen``, the setting of the theorems).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from ..theory.model import CLSAttention, gathered_logits, token_table
from .attention_variants import AttentionMLP, KeyQueryTwoLayerAttention, MultiClassCLSAttention
from .two_layer_model import TwoLayerCLSAttention


class OneLayerAttention(CLSAttention):
    """The paper's one-layer model (``CLSAttention``) with the trainer's interface."""

    def logits_and_attention(self, X: torch.Tensor, mask: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        """Logits (B,) and attention weights (B, T) for checked X: (B, T) and mask, by the fast exact form."""
        return gathered_logits(*token_table(self.E, self.p, self.v), X, mask)


@dataclass(frozen=True)
class ModelKind:
    """One model of the registry: how to build it and what its per-token score is called.

    label: a short name for tables; build(vocab_size, d, seed, num_classes) -> an untrained float32 model; score: the
    quantity ``token_scores()`` returns, in words; ours: True when the exact form is the
    course's (the paper's is not public).
    """

    name: str
    label: str
    description: str
    build: Callable[[int, int, int, int], nn.Module]
    score: str
    ours: bool
    num_classes: int = 2


_BUILDERS: dict[str, Callable[[int, int, int, int], nn.Module]] = {
    "one_layer": lambda V, d, seed, K: OneLayerAttention(V, d, seed=seed),
    "two_layer": lambda V, d, seed, K: TwoLayerCLSAttention(V, d, seed=seed),
    "key_query": lambda V, d, seed, K: KeyQueryTwoLayerAttention(V, d, seed=seed),
    "mlp": lambda V, d, seed, K: AttentionMLP(V, d, seed=seed),
    "multiclass": lambda V, d, seed, K: MultiClassCLSAttention(V, d, K, seed=seed),
}
_KINDS = (  # name, label, description, score, ours, number of classes
    ("one_layer", "one-layer", "one-layer <cls> attention (the paper's model)", "E_s . p", False, 2),
    ("two_layer", "two-layer (ours)", "two-layer <cls> attention with a residual stream (ours)", "E_s . p2", True, 2),
    ("key_query", "W_KQ two-layer (ours)", "two-layer attention with W_KQ in both layers (ours)", "p . W2 E_s", True, 2),
    ("mlp", "MLP head (ours)", "one-layer attention followed by a residual MLP of width d (ours)", "E_s . p", True, 2),
    ("multiclass", "K-class one-layer", "one-layer attention with K output vectors (K-class)", "E_s . p", False, 4),
)
MODEL_KINDS: dict[str, ModelKind] = {
    name: ModelKind(name, label, description, _BUILDERS[name], score, ours, classes)
    for name, label, description, score, ours, classes in _KINDS
}

MODE_LABELS = {
    "joint": "joint",
    "joint_converged": "joint, whole budget",
    "frozen_random": "E frozen at random",
    "one_step_frozen": "one step, then E frozen",
    "one_step_converged": "one step, then E frozen, whole budget",
}
"""Short names of the training modes, for tables."""
TRAINING_MODES: dict[str, str] = {
    "joint": "E, p, v (and every other weight) trained jointly",
    "joint_converged": "E, p, v (and every other weight) trained jointly for every epoch of the budget, the last kept",
    "frozen_random": "E frozen at its random initialisation; every other weight trained",
    "one_step_frozen": "one full-batch gradient step on E (p = 0), then E frozen and every other weight trained",
    "one_step_converged": "one full-batch gradient step on E (p = 0), then E frozen and every other weight trained "
    "for every epoch of the budget, the last kept",
}
MODEL_REVISIONS = {"two_layer": 2}
"""Kinds whose computation changed after their first records, and the revision now run. The revision enters the
settings of a record and the configuration of a checkpoint (``revision_setting``), so that records and checkpoints of
an older computation read as stale. two_layer 2: layer-2 scores gathered from a (B, V) table instead of a (B, T, d)
gather; float32 rounding, hence each training path, differs from revision 1."""
ONE_STEP_KINDS = ("one_layer",)
"""Kinds the one step is defined for: its closed form is the one-layer model's (the theory chapters)."""


def check_kind_and_mode(kind: str, mode: str) -> None:
    """ValueError unless ``kind`` is in ``MODEL_KINDS``, ``mode`` in ``TRAINING_MODES``, and they go together."""
    if kind not in MODEL_KINDS:
        raise ValueError(f"kind must be one of {sorted(MODEL_KINDS)}, got {kind!r}")
    if mode not in TRAINING_MODES:
        raise ValueError(f"mode must be one of {sorted(TRAINING_MODES)}, got {mode!r}")
    if mode.startswith("one_step") and kind not in ONE_STEP_KINDS:
        raise ValueError(f"mode {mode!r} is defined for kinds {ONE_STEP_KINDS}, got {kind!r}")


def revision_setting(kind: str) -> dict[str, int]:
    """``{"model_revision": r}`` for a kind of ``MODEL_REVISIONS``, else ``{}`` (the settings of a first revision stay
    as they were written)."""
    check_kind_and_mode(kind, "joint")
    return {"model_revision": MODEL_REVISIONS[kind]} if kind in MODEL_REVISIONS else {}


def build_model(kind: str, vocab_size: int, d: int, *, seed: int = 0) -> nn.Module:
    """An untrained model of ``kind`` (see ``MODEL_KINDS``), float32, drawn from a generator seeded with ``seed``."""
    check_kind_and_mode(kind, "joint")
    entry = MODEL_KINDS[kind]
    return entry.build(vocab_size, d, seed, entry.num_classes)
