"""token_selection: the course package for *Attention with Trained Embeddings
Provably Selects Important Tokens* (Wu, Shevchenko, Oymak, Mondelli, NeurIPS 2025)."""

from .explorer.explorer import ExplorerConfig, ExplorerResult, LiveExplorer, draw_panels, explore, live_explorer, static_explorer
from .explorer.grid import load_or_compute_grid
from .real_data.checkpoints import train_or_load
from .real_data.encoding import prepare_reviews
from .real_data.experiment import experiment_settings, trained_model
from .real_data.figures import (
    attention_html,
    importance_profile,
    plot_importance_profiles,
    profile_checks,
    selected_tokens_table,
    token_importance,
)
from .real_data.reviews import load_reviews, split_validation
from .real_data.trainer import accuracy, one_step_then_freeze, train_jointly
from .real_data.two_layer_model import TwoLayerCLSAttention
from .scale import SCALE_VARIABLE, by_scale, compute_scale
from .theory.importance import BinnedStats, bin_by_importance, posterior_gap, signed_frequency, token_counts
from .theory.max_margin import MaxMarginSolution, max_margin_direction, selection_pairs, solve_max_margin
from .theory.model import CLSAttention, gather_tokens, gathered_logits, logistic_loss, masked_softmax, token_table
from .theory.multiclass import (
    class_probabilities,
    class_signed_frequency,
    multiclass_logits,
    multiclass_one_step_embeddings,
    predicted_multiclass_one_step,
)
from .theory.naive import gather_then_attend, loop_logits
from .theory.one_step import one_step_embeddings, one_step_sample_weights, predicted_one_step
from .theory.plots import fit_line, loglog_slope, plot_against_importance, plot_loglog_fit, plot_training_curves
from .theory.synthetic import SyntheticData, make_synthetic
from .theory.training import TrainingHistory, train_cls

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
    "gather_tokens",
    "gathered_logits",
    "gather_then_attend",
    "loop_logits",
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
    "token_table",
    "train_cls",
]
# theory chapters 3-4: the K-class one step and the shared plot helpers
__all__ += [
    "class_probabilities",
    "class_signed_frequency",
    "fit_line",
    "loglog_slope",
    "multiclass_logits",
    "multiclass_one_step_embeddings",
    "plot_against_importance",
    "plot_loglog_fit",
    "plot_training_curves",
    "predicted_multiclass_one_step",
]
# chapter 5: the explorer
__all__ += [
    "ExplorerConfig",
    "ExplorerResult",
    "LiveExplorer",
    "draw_panels",
    "explore",
    "live_explorer",
    "load_or_compute_grid",
    "static_explorer",
]
# real-data chapters 6-7: reviews, tokenisation, checkpoints, joint training, figures
__all__ += [
    "TwoLayerCLSAttention",
    "accuracy",
    "attention_html",
    "experiment_settings",
    "importance_profile",
    "load_reviews",
    "one_step_then_freeze",
    "plot_importance_profiles",
    "prepare_reviews",
    "profile_checks",
    "selected_tokens_table",
    "split_validation",
    "token_importance",
    "train_jointly",
    "train_or_load",
    "trained_model",
]
# chapter 8 and the reproduction report: attention variants (ours) and the shape rules
# (the experiment runners live in token_selection.ablations and token_selection.reproduction)
from .real_data.attention_variants import AttentionMLP, KeyQueryTwoLayerAttention, MultiClassCLSAttention  # noqa: E402
from .theory.shape import ShapeSummary, compare_spread, shape_of, shape_of_means  # noqa: E402

__all__ += [
    "AttentionMLP",
    "KeyQueryTwoLayerAttention",
    "MultiClassCLSAttention",
    "ShapeSummary",
    "compare_spread",
    "shape_of",
    "shape_of_means",
]
from ._version import __version__ as __version__  # noqa: E402
