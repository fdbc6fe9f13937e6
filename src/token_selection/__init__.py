"""token_selection: the course package for *Attention with Trained Embeddings
Provably Selects Important Tokens* (Wu, Shevchenko, Oymak, Mondelli, NeurIPS 2025).

The package is grouped by what it holds: ``theory`` (the model, token importance, the one
step, max margin, training of ``p``, synthetic data, the shape rule), ``real_data`` (reviews,
tokenisation, settings, the model registry, the trainer, checkpoints, figures), ``explorer``
(chapter 5), ``report`` (the paper's claims and the reproduction table) and ``studies``
(questions beyond the paper). Data flows one way: real-data code uses theory code, never the
reverse. The names the chapters use are importable from here; each is imported at its first use
(``import token_selection`` alone loads neither torch nor matplotlib: a page that reads a record
starts in a fraction of the time).
"""

# ruff: noqa: F401 (the imports under TYPE_CHECKING re-export names that __all__ lists)
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._version import __version__

# name -> the submodule that defines it (relative to this package)
_EXPORTS: dict[str, str] = {
    "check_exercise": "exercises",
    "explore": "explorer.compute",
    "ExplorerConfig": "explorer.config",
    "load_or_compute_grid": "explorer.grid",
    "LiveExplorer": "explorer.live",
    "live_explorer": "explorer.live",
    "draw_panels": "explorer.panels",
    "ExplorerResult": "explorer.result",
    "static_explorer": "explorer.static",
    "arms_table": "real_data.arms",
    "run_arms": "real_data.arms",
    "AttentionMLP": "real_data.attention_variants",
    "KeyQueryTwoLayerAttention": "real_data.attention_variants",
    "MultiClassCLSAttention": "real_data.attention_variants",
    "train_or_load": "real_data.checkpoints",
    "prepare_reviews": "real_data.encoding",
    "attention_html": "real_data.figures",
    "importance_profile": "real_data.figures",
    "plot_importance_profiles": "real_data.figures",
    "profile_verdicts": "real_data.figures",
    "selected_tokens_table": "real_data.figures",
    "TrainedRun": "real_data.pipeline",
    "load_data": "real_data.pipeline",
    "run_experiment": "real_data.pipeline",
    "MODEL_KINDS": "real_data.registry",
    "TRAINING_MODES": "real_data.registry",
    "build_model": "real_data.registry",
    "load_reviews": "real_data.reviews",
    "split_validation": "real_data.reviews",
    "RealDataSettings": "real_data.settings",
    "real_data_settings": "real_data.settings",
    "accuracy": "real_data.trainer",
    "one_step_size": "real_data.trainer",
    "one_step_then_freeze": "real_data.trainer",
    "train_model": "real_data.trainer",
    "TwoLayerCLSAttention": "real_data.two_layer_model",
    "compare_spread": "report.binned",
    "read_record": "results",
    "records_table": "results",
    "write_record": "results",
    "SCALE_VARIABLE": "scale",
    "by_scale": "scale",
    "compute_scale": "scale",
    "finish_setup": "setup_check",
    "FullBatchGD": "theory.full_batch",
    "full_batch_gd_step_": "theory.full_batch",
    "BinnedStats": "theory.importance",
    "bin_by_importance": "theory.importance",
    "posterior_gap": "theory.importance",
    "signed_frequency": "theory.importance",
    "token_counts": "theory.importance",
    "MaxMarginSolution": "theory.max_margin",
    "max_margin_direction": "theory.max_margin",
    "selection_pairs": "theory.max_margin",
    "solve_max_margin": "theory.max_margin",
    "tie_pairs": "theory.max_margin",
    "CLSAttention": "theory.model",
    "gather_tokens": "theory.model",
    "gathered_logits": "theory.model",
    "logistic_loss": "theory.model",
    "masked_softmax": "theory.model",
    "token_table": "theory.model",
    "class_probabilities": "theory.multiclass",
    "class_signed_frequency": "theory.multiclass",
    "multiclass_logits": "theory.multiclass",
    "multiclass_one_step_embeddings": "theory.multiclass",
    "predicted_multiclass_one_step": "theory.multiclass",
    "gather_then_attend": "theory.naive",
    "loop_logits": "theory.naive",
    "one_step_embeddings": "theory.one_step",
    "one_step_sample_weights": "theory.one_step",
    "predicted_correlation": "theory.one_step",
    "predicted_one_step": "theory.one_step",
    "step_size_from_alpha": "theory.one_step",
    "step_size_threshold": "theory.one_step",
    "fit_line": "theory.plots",
    "loglog_slope": "theory.plots",
    "plot_against_importance": "theory.plots",
    "plot_loglog_fit": "theory.plots",
    "plot_training_curves": "theory.plots",
    "ShapeVerdict": "theory.shape",
    "classify_binned": "theory.shape",
    "classify_shape": "theory.shape",
    "REFERENCE_CASE": "theory.synthetic",
    "ReferenceCase": "theory.synthetic",
    "SyntheticData": "theory.synthetic",
    "make_synthetic": "theory.synthetic",
    "DIRECTION_COSINE": "theory.thresholds",
    "SELECTED_ATTENTION": "theory.thresholds",
    "PTrainingHistory": "theory.training",
    "train_cls": "theory.training",
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name: str) -> Any:
    """``token_selection.<name>``, imported from its submodule at first use (PEP 562)."""
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


if TYPE_CHECKING:  # the same names, for type checkers and editors (re-exported: __all__ lists them)
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
    from .theory.training import PTrainingHistory, train_cls
