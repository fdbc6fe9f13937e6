"""token_selection: the course package for *Attention with Trained Embeddings
Provably Selects Important Tokens* (Wu, Shevchenko, Oymak, Mondelli, NeurIPS 2025)."""

from .importance import BinnedStats, bin_by_importance, posterior_gap, signed_frequency, token_counts
from .max_margin import MaxMarginSolution, max_margin_direction, selection_pairs, solve_max_margin
from .model import CLSAttention, gathered_logits, logistic_loss, masked_softmax
from .one_step import one_step_embeddings, one_step_sample_weights, predicted_one_step
from .scale import SCALE_VARIABLE, by_scale, compute_scale
from .synthetic import SyntheticData, make_synthetic
from .training import TrainingHistory, train_cls

__all__ = [
    "SCALE_VARIABLE",
    "BinnedStats",
    "CLSAttention",
    "MaxMarginSolution",
    "SyntheticData",
    "TrainingHistory",
    "bin_by_importance",
    "by_scale",
    "compute_scale",
    "gathered_logits",
    "logistic_loss",
    "make_synthetic",
    "masked_softmax",
    "max_margin_direction",
    "one_step_embeddings",
    "one_step_sample_weights",
    "posterior_gap",
    "predicted_one_step",
    "selection_pairs",
    "signed_frequency",
    "solve_max_margin",
    "token_counts",
    "train_cls",
]
__version__ = "0.1.0"
