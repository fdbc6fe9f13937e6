"""token_selection: the course package for *Attention with Trained Embeddings
Provably Selects Important Tokens* (Wu, Shevchenko, Oymak, Mondelli, NeurIPS 2025).

The package is grouped by what it holds: ``theory`` (the model, token importance, the one
step, max margin, training of ``p``, synthetic data, the shape rule), ``real_data`` (reviews,
tokenisation, settings, the model registry, the trainer, checkpoints, figures), ``explorer``
(chapter 5), ``report`` (the paper's claims and the reproduction table) and ``studies``
(questions beyond the paper). Data flows one way: real-data code uses theory code, never the
reverse. The names the chapters use are importable from here.
"""

from ._version import __version__
from .exercises import check_exercise
from .explorer.compute import explore
from .explorer.config import ExplorerConfig
from .explorer.grid import load_or_compute_grid
from .explorer.live import LiveExplorer, live_explorer
from .explorer.panels import draw_panels
from .explorer.result import ExplorerResult
from .explorer.static import static_explorer
from .real_data.arms import arms_table, run_arms
from .real_data.attention_variants import AttentionMLP, KeyQueryTwoLayerAttention, MultiClassCLSAttention
from .real_data.checkpoints import train_or_load
from .real_data.encoding import prepare_reviews
from .real_data.figures import (
    attention_html,
    importance_profile,
    plot_importance_profiles,
    profile_verdicts,
    selected_tokens_table,
)
from .real_data.pipeline import TrainedRun, load_data, run_experiment
from .real_data.registry import MODEL_KINDS, TRAINING_MODES, build_model
from .real_data.reviews import load_reviews, split_validation
from .real_data.settings import RealDataSettings, real_data_settings
from .real_data.trainer import accuracy, one_step_size, one_step_then_freeze, train_model
from .real_data.two_layer_model import TwoLayerCLSAttention
from .report.binned import compare_spread
from .results import read_record, records_table, write_record
from .scale import SCALE_VARIABLE, by_scale, compute_scale
from .setup_check import finish_setup
from .theory.full_batch import FullBatchGD, full_batch_gd_step_
from .theory.importance import BinnedStats, bin_by_importance, posterior_gap, signed_frequency, token_counts
from .theory.max_margin import MaxMarginSolution, max_margin_direction, selection_pairs, solve_max_margin, tie_pairs
from .theory.model import CLSAttention, gather_tokens, gathered_logits, logistic_loss, masked_softmax, token_table
from .theory.multiclass import (
    class_probabilities,
    class_signed_frequency,
    multiclass_logits,
    multiclass_one_step_embeddings,
    predicted_multiclass_one_step,
)
from .theory.naive import gather_then_attend, loop_logits
from .theory.one_step import (
    one_step_embeddings,
    one_step_sample_weights,
    predicted_correlation,
    predicted_one_step,
    step_size_from_alpha,
    step_size_threshold,
)
from .theory.plots import fit_line, loglog_slope, plot_against_importance, plot_loglog_fit, plot_training_curves
from .theory.shape import ShapeVerdict, classify_binned, classify_shape
from .theory.synthetic import REFERENCE_CASE, ReferenceCase, SyntheticData, make_synthetic
from .theory.thresholds import DIRECTION_COSINE, SELECTED_ATTENTION
from .theory.training import TrainingHistory, train_cls

__all__ = [
    "__version__",
    "AttentionMLP",
    "BinnedStats",
    "CLSAttention",
    "DIRECTION_COSINE",
    "ExplorerConfig",
    "ExplorerResult",
    "FullBatchGD",
    "KeyQueryTwoLayerAttention",
    "LiveExplorer",
    "MODEL_KINDS",
    "MaxMarginSolution",
    "MultiClassCLSAttention",
    "REFERENCE_CASE",
    "RealDataSettings",
    "ReferenceCase",
    "SCALE_VARIABLE",
    "SELECTED_ATTENTION",
    "ShapeVerdict",
    "SyntheticData",
    "TRAINING_MODES",
    "TrainedRun",
    "TrainingHistory",
    "TwoLayerCLSAttention",
    "accuracy",
    "arms_table",
    "attention_html",
    "bin_by_importance",
    "build_model",
    "by_scale",
    "check_exercise",
    "class_probabilities",
    "class_signed_frequency",
    "classify_binned",
    "classify_shape",
    "compare_spread",
    "compute_scale",
    "draw_panels",
    "explore",
    "finish_setup",
    "fit_line",
    "full_batch_gd_step_",
    "gather_then_attend",
    "gather_tokens",
    "gathered_logits",
    "importance_profile",
    "live_explorer",
    "load_data",
    "load_or_compute_grid",
    "load_reviews",
    "logistic_loss",
    "loglog_slope",
    "loop_logits",
    "make_synthetic",
    "masked_softmax",
    "max_margin_direction",
    "multiclass_logits",
    "multiclass_one_step_embeddings",
    "one_step_embeddings",
    "one_step_sample_weights",
    "one_step_size",
    "one_step_then_freeze",
    "plot_against_importance",
    "plot_importance_profiles",
    "plot_loglog_fit",
    "plot_training_curves",
    "posterior_gap",
    "predicted_correlation",
    "predicted_multiclass_one_step",
    "predicted_one_step",
    "prepare_reviews",
    "profile_verdicts",
    "read_record",
    "real_data_settings",
    "records_table",
    "run_arms",
    "run_experiment",
    "selected_tokens_table",
    "selection_pairs",
    "signed_frequency",
    "solve_max_margin",
    "split_validation",
    "static_explorer",
    "step_size_from_alpha",
    "step_size_threshold",
    "tie_pairs",
    "token_counts",
    "token_table",
    "train_cls",
    "train_model",
    "train_or_load",
    "write_record",
]
