"""Every setting of the real-data experiments, with one preset per compute scale.

    settings = real_data_settings()                       # fast (CI) or full (paper's d), by $TOKEN_SELECTION_SCALE
    settings = real_data_settings("full", dataset="yelp_polarity", d=512)

All of these are the course's choices unless a comment says otherwise: the authors'
public rebuttal gives d = 2048 and the vocabulary sizes, and nothing about the tokeniser,
review length, optimiser, epochs or batch size.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from ..scale import compute_scale
from .reviews import check_dataset_name

TOKENISER = "word-level (lower-case; words seen at least min_count times in the training reviews; encoding.py)"
OPTIMISER = "Adam (fused where available), float32, logistic loss (cross-entropy for K classes)"


@dataclass(frozen=True)
class RealDataSettings:
    """Data, model and training settings of one real-data run.

    Data: ``dataset``, the first ``T`` tokens of each review, words seen at least ``min_count``
    times, at most ``limit`` reviews per split (None: all), ``validation_fraction`` of the
    training reviews held out for early stopping. Model: embedding dimension ``d``.
    Joint training: Adam with ``lr`` on batches of ``batch_size``, at most ``epochs`` epochs,
    stopping after ``patience`` epochs without a better validation accuracy. Frozen ``E``
    (p, v and any other weights trained; slower to converge): ``frozen_lr``, ``frozen_epochs``,
    ``frozen_patience``. One step: ``eta = step_factor * eta*`` with
    ``eta* = 2 / (sqrt(d) std(alpha))``. Vocabulary: the ``max_vocab`` most frequent
    training words among those seen ``min_count`` times (None: all of them). Figures: words seen at least ``importance_min_count``
    times get a posterior gap, and shapes get bootstrap intervals from ``n_boot`` resamples of
    the tokens. ``seed``: data subsample, validation split, initialisation, shuffling.
    """

    scale: str
    dataset: str
    T: int
    min_count: int
    limit: int | None
    d: int
    epochs: int
    batch_size: int
    lr: float
    patience: int
    frozen_lr: float
    frozen_epochs: int
    frozen_patience: int
    step_factor: float
    importance_min_count: int
    n_boot: int
    max_vocab: int | None = None
    validation_fraction: float = 0.1
    seed: int = 0

    def data_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``prepare_reviews`` (the dataset name is ``self.dataset``)."""
        return {
            "T": self.T,
            "min_count": self.min_count,
            "max_vocab": self.max_vocab,
            "limit": self.limit,
            "validation_fraction": self.validation_fraction,
            "seed": self.seed,
        }

    def as_dict(self) -> dict[str, Any]:
        """Every setting, plus the tokeniser and optimiser in words (what a record stores)."""
        return {**asdict(self), "tokeniser": TOKENISER, "optimiser": OPTIMISER}


_PRESETS = {  # setting: (fast, full)
    # Fast: every local IMDB training review, d = 64: about a second per epoch of the one-layer model on 2 cores.
    # Full: the paper's d = 2048 (rebuttal to reviewer E1M4), longer reviews, every review; a GPU when there is one.
    "T": (256, 512),
    "min_count": (10, 10),
    "limit": (25_000, None),
    "d": (64, 2048),
    "epochs": (8, 10),
    "batch_size": (512, 512),
    # Adam moves every coordinate by about lr per step, and a dot product over 32 times more coordinates moves
    # about sqrt(32) times as far: hence the smaller learning rates at d = 2048.
    "lr": (5e-3, 5e-4),
    "patience": (2, 2),
    "frozen_lr": (0.1, 0.02),
    "frozen_epochs": (20, 20),
    "frozen_patience": (5, 5),
    "step_factor": (2.0, 2.0),
    "importance_min_count": (20, 20),
    "n_boot": (200, 1000),
}
_SCALE_INDEX = {"fast": 0, "full": 1}
REBUTTAL_VOCABULARY = {"imdb": 7766, "yelp_polarity": 5424}
"""[discussion] The vocabulary sizes of the authors' rebuttal (reply to reviewer E1M4, Q3): tokens seen in training.
The full preset keeps that many of the most frequent training words (which words: our choice)."""
SEEDS = {"fast": {"paper": 1, "variant": 1}, "full": {"paper": 5, "variant": 3}}
"""Seeds per experiment: the paper's one-layer model, and the variants (two-layer, W_KQ, MLP, 4-class)."""


def seed_count(kind: str, scale: str) -> int:
    """How many seeds an experiment of model ``kind`` runs at ``scale`` (``SEEDS``)."""
    if scale not in SEEDS:
        raise ValueError(f"scale must be one of {sorted(SEEDS)}, got {scale!r}")
    return SEEDS[scale]["paper" if kind == "one_layer" else "variant"]


def real_data_settings(scale: str | None = None, dataset: str = "imdb", **overrides: Any) -> RealDataSettings:
    """The preset of ``scale`` ("fast" or "full"; default ``compute_scale()``) for ``dataset``, with ``overrides``."""
    scale = compute_scale() if scale is None else scale
    if scale not in _SCALE_INDEX:
        raise ValueError(f"scale must be one of {sorted(_SCALE_INDEX)}, got {scale!r}")
    check_dataset_name(dataset)
    unknown = sorted(set(overrides) - set(RealDataSettings.__dataclass_fields__))
    if unknown:
        raise ValueError(f"unknown settings {unknown}; allowed: {sorted(RealDataSettings.__dataclass_fields__)}")
    preset = {name: values[_SCALE_INDEX[scale]] for name, values in _PRESETS.items()}
    preset["max_vocab"] = REBUTTAL_VOCABULARY[dataset] if scale == "full" else None
    settings = RealDataSettings(scale=scale, dataset=dataset, **preset)
    return replace(settings, **overrides)


def diagnosis_settings(name: str, scale: str, **grids: Any) -> dict[str, Any]:
    """What a diagnosis record stores as its settings: its ``name``, ``scale``, IMDB's preset at that scale (every
    diagnosis runs on IMDB) and its own ``grids`` (lists of values, thresholds, seeds)."""
    return {
        "diagnosis": name,
        "scale": scale,
        "dataset": "imdb",
        "preset": real_data_settings(scale, "imdb").as_dict(),
        **grids,
    }
