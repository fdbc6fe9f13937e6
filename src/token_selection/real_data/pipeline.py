"""The one real-data pipeline: data, a model of the registry, train-or-load, measurements, and a results record.

    settings = real_data_settings()                        # fast or full preset
    run = run_experiment("one_layer", "joint", settings)   # trains, or loads the checkpoint
    run.metrics["test_accuracy"], run.metrics["scores"]["shape"]

A single run writes nothing. ``run_seeds`` runs an experiment at a preset over its seeds
(``settings.seed_count``) and writes the record ``<dataset>-<kind>-<mode>.<scale>.json``
(``results.write_record``): the first seed's metrics (curves, verdicts) and, for every
scalar metric, the per-seed values and their seed interval. Records are written only by
``scripts/run_records.py`` (``make records``, ``make full``), so running a chapter never
rewrites a committed record.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import torch
from torch import nn

from ..intervals import seed_interval
from ..machine import default_device
from ..results import missing_record_message, read_record, write_record
from .checkpoints import checkpoint_path, save_checkpoint, train_or_load
from .encoding import EncodedReviews, prepare_reviews
from .measurements import binary_metrics, multiclass_metrics
from .registry import MODEL_KINDS, TRAINING_MODES, build_model, check_kind_and_mode, revision_setting
from .settings import RealDataSettings, real_data_settings, seed_count
from .trainer import TrainingHistory, accuracy, one_step_size, one_step_then_freeze, train_model

WHOLE_BUDGET = {"joint_converged": "epochs", "one_step_converged": "frozen_epochs"}  # the setting holding the budget
FULL_COMMAND = "make full (scripts/run_records.py --scale full)"
FAST_COMMAND = "make records (scripts/run_records.py --scale fast)"
"""How a missing full-scale record is produced."""


def record_name(dataset: str, kind: str, mode: str) -> str:
    """The record of one experiment: ``<dataset>-<kind>-<mode>``, e.g. ``imdb-one_layer-joint``."""
    check_kind_and_mode(kind, mode)
    return f"{dataset}-{kind}-{mode}"


def load_data(settings: RealDataSettings, *, progress: bool = True) -> EncodedReviews:
    """The tokenised reviews of ``settings.dataset`` under ``settings`` (cached with a checksum)."""
    return prepare_reviews(settings.dataset, **settings.data_arguments(), progress=progress)


def preset_seeds(kind: str, scale: str) -> list[int]:
    """The seeds of an experiment of ``kind`` at ``scale``: 0, 1, ..., ``seed_count(kind, scale) - 1``."""
    return list(range(seed_count(kind, scale)))


def record_settings(
    kind: str, mode: str, settings: RealDataSettings, dataset: str, seeds: list[int] | None = None
) -> dict[str, Any]:
    """What a record's settings hash covers: the experiment, every setting, and the seeds (default: the preset's).

    ``dataset`` is the data the record was trained on. When the preset was made for another
    dataset (the 4-class run uses the Yelp polarity preset on ``yelp_stars``), that one is kept
    as ``preset_dataset``.
    """
    seeds = preset_seeds(kind, settings.scale) if seeds is None else list(seeds)
    stored = settings.as_dict()
    if stored["dataset"] != dataset:
        stored["preset_dataset"] = stored["dataset"]
    return {**stored, "dataset": dataset, "kind": kind, "mode": mode, "seed": seeds[0], "seeds": seeds,
            **revision_setting(kind)}  # fmt: skip


def protocol(kind: str, mode: str, settings: RealDataSettings, data: EncodedReviews) -> str:
    """The experiment in words, for its record."""
    s = settings
    frozen = f"Adam lr {s.frozen_lr:g}, at most {s.frozen_epochs} epochs, patience {s.frozen_patience}"
    training = {
        "joint": f"Adam lr {s.lr:g}, batches of {s.batch_size}, at most {s.epochs} epochs, patience {s.patience}",
        "joint_converged": f"Adam lr {s.lr:g}, batches of {s.batch_size}, all {s.epochs} epochs, the last kept",
        "frozen_random": frozen,
        "one_step_frozen": f"one full-batch GD step on E of size {s.step_factor:g} eta*, then {frozen}",
        "one_step_converged": f"one full-batch GD step on E of size {s.step_factor:g} eta*, then Adam lr "
        f"{s.frozen_lr:g}, all {s.frozen_epochs} epochs, the last kept",
    }[mode]
    return (
        f"{MODEL_KINDS[kind].description}; {TRAINING_MODES[mode]}. Data: {data.name} from {data.source_label}, "
        f"{len(data.train):,} training / {len(data.validation):,} validation / {len(data.test):,} test reviews, "
        f"first {s.T} tokens, vocabulary V = {data.vocab_size - 2:,} words plus <pad> and <unk> ("
        + (f"the {s.max_vocab:,} words seen most often" if s.max_vocab else f"words seen >= {s.min_count} times")
        + " in training). "
        f"d = {s.d}; {training}; "
        + ("no early stopping" if mode in WHOLE_BUDGET else "early stopping on validation accuracy, best epoch kept")
        + f"; seed {s.seed}. "
        f"Curves: tokens seen >= {s.importance_min_count} times, binned at the rebuttal's 20 centres "
        f"(edges at midpoints: our inference); shapes by classify_shape with {s.n_boot} bootstrap resamples."
    )


@dataclass
class TrainedRun:
    """A trained (or loaded) model, its history and its metrics (as in its record)."""

    dataset: str
    kind: str
    mode: str
    settings: RealDataSettings
    model: nn.Module
    history: TrainingHistory
    metrics: dict[str, Any]
    record: str | None
    loaded: bool
    checkpoint: Path

    @property
    def test_accuracy(self) -> float:
        return float(self.metrics["test_accuracy"])

    def summary(self) -> str:
        """One line: what it is, test accuracy, epochs, time, hardware, loaded or trained."""
        h = self.history
        how = "loaded from its checkpoint" if self.loaded else "trained now"
        return (
            f"{self.dataset}, {MODEL_KINDS[self.kind].description}, {self.mode}: test accuracy {self.test_accuracy:.1%}; "
            f"best epoch {h.best_epoch} of {len(h.epoch)} ({h.stop_reason}); {h.seconds:.1f} s on {h.hardware}; {how}"
        )


def _checkpoint(kind: str, mode: str, settings: RealDataSettings, data: EncodedReviews) -> tuple[str, dict[str, Any]]:
    """The checkpoint name and configuration of a run: everything its trained parameters depend on."""
    training = {k: v for k, v in settings.as_dict().items() if k not in ("importance_min_count", "n_boot", "scale")}
    configuration = {"kind": kind, "mode": mode, "data": data.config, "settings": training, **revision_setting(kind)}
    return f"{data.name}-{kind}-{mode}", configuration


def _saver_on_the_way(
    model: nn.Module,
    kind: str,
    mode: str,
    settings: RealDataSettings,
    data: EncodedReviews,
    budgets: tuple[int, ...],
    cache_dir,
    extra: dict[str, float],
) -> Callable[[TrainingHistory], None]:
    """``train_model``'s ``on_epoch`` for a run to the end of its budget (a mode of ``WHOLE_BUDGET``): at the end of
    each of the shorter ``budgets`` it saves the checkpoint a run of that length would save. A run to the end of a
    budget keeps its last epoch, with the same shuffles and optimiser steps whatever the budget, so its first ``b``
    epochs are the run of ``b`` epochs: one run of the longest budget gives every shorter one on the way. ``extra``:
    what the run adds to its checkpoint besides the history (the step size of a one-step run, filled in by then)."""

    def save(history: TrainingHistory) -> None:
        epochs = len(history.epoch)
        if epochs not in budgets:
            return
        name, config = _checkpoint(kind, mode, replace(settings, **{WHOLE_BUDGET[mode]: epochs}), data)
        passed = TrainingHistory.from_dict(history.as_dict())  # as_dict copies the lists: later epochs stay out
        passed.stop_reason = f"ran all {epochs} epochs"
        saved = {**passed.as_dict(), "test_accuracy": accuracy(model, data.test), **extra}
        save_checkpoint(checkpoint_path(name, config, cache_dir), model, saved, config)

    return save


def _trainer(
    mode: str,
    data: EncodedReviews,
    settings: RealDataSettings,
    common: dict[str, Any],
    on_epoch: Callable[[TrainingHistory], None] | None = None,
    extra: dict[str, float] | None = None,
):
    """The function ``train_or_load`` calls: trains a model in place, returns its history and test accuracy.
    ``extra``: filled with the one step's sizes (where the mode takes one) before training goes on."""
    s = settings
    frozen = {"epochs": s.frozen_epochs, "lr": s.frozen_lr, "patience": s.frozen_patience, **common}
    extra = {} if extra is None else extra

    def train(model: nn.Module) -> dict[str, Any]:
        start = time.perf_counter()
        if mode == "joint":
            history = train_model(model, data.train, data.validation, epochs=s.epochs, lr=s.lr, patience=s.patience, **common)
        elif mode == "joint_converged":
            history = train_model(
                model, data.train, data.validation, epochs=s.epochs, lr=s.lr, keep="last", on_epoch=on_epoch, **common
            )
        elif mode == "frozen_random":
            history = train_model(model, data.train, data.validation, train_embeddings=False, **frozen)
        else:
            eta_star, eta = one_step_size(data.train, data.vocab_size, s.d, s.step_factor)
            extra.update({"eta_star": eta_star, "step_size": eta, "step_factor": s.step_factor})
            whole = {"keep": "last", "on_epoch": on_epoch} if mode == "one_step_converged" else {}
            history = one_step_then_freeze(model, data.train, data.validation, step_lr=eta, **frozen, **whole)
        history.seconds = time.perf_counter() - start
        return {**history.as_dict(), "test_accuracy": accuracy(model, data.test), **extra}

    return train


def run_experiment(
    kind: str = "one_layer",
    mode: str = "joint",
    settings: RealDataSettings | None = None,
    *,
    data: EncodedReviews | None = None,
    device: torch.device | str | None = None,
    cache_dir: str | None = None,
    progress: bool = True,
    on_the_way: Sequence[int] = (),
) -> TrainedRun:
    """Train (or load) a model of ``kind`` in ``mode`` on ``data`` (default: ``load_data(settings)``), measure it,
    and return it with its metrics. Writes no record (``run_seeds`` does).

    on_the_way: shorter budgets (epochs, each below the run's budget) whose checkpoints a run to the end of its budget
    (a mode of ``WHOLE_BUDGET``) saves as it passes the end of them, so that running those budgets next loads them
    (``_saver_on_the_way``).
    """
    check_kind_and_mode(kind, mode)
    settings = real_data_settings() if settings is None else settings
    budgets = tuple(on_the_way)
    if budgets and mode not in WHOLE_BUDGET:
        raise ValueError(f"on_the_way needs a mode of {sorted(WHOLE_BUDGET)} (training to the end of a budget), got {mode!r}")
    budget = getattr(settings, WHOLE_BUDGET.get(mode, "epochs"))
    bad = [b for b in budgets if isinstance(b, bool) or not isinstance(b, int) or not 0 < b < budget]
    if bad:
        raise ValueError(f"on_the_way must hold whole numbers of epochs from 1 to {budget - 1}, got {bad}")
    data = load_data(settings, progress=progress) if data is None else data
    device = torch.device(device) if device is not None else default_device()
    model = build_model(kind, data.vocab_size, settings.d, seed=settings.seed).to(device)
    common = {"batch_size": settings.batch_size, "seed": settings.seed, "device": device, "progress": progress}
    common["desc"] = f"{data.name}: {kind}, {mode}"
    name, config = _checkpoint(kind, mode, settings, data)
    extra: dict[str, float] = {}
    on_epoch = _saver_on_the_way(model, kind, mode, settings, data, budgets, cache_dir, extra)  # none without budgets
    trainer = _trainer(mode, data, settings, common, on_epoch, extra)
    result = train_or_load(model, name, config, trainer, cache_dir=cache_dir)
    model.to(device)
    saved = dict(result.history)
    trained = {key: saved.pop(key) for key in ("test_accuracy", "eta_star", "step_size", "step_factor") if key in saved}
    history = TrainingHistory.from_dict(saved)
    measure = multiclass_metrics if MODEL_KINDS[kind].num_classes > 2 else binary_metrics
    metrics = {
        **trained,
        "best_validation_accuracy": history.best_validation_accuracy,
        "best_epoch": history.best_epoch,
        "epochs_run": len(history.epoch),
        "train_seconds": history.seconds,
        "hardware": history.hardware,
        "source": data.source_label,
        "stand_in": data.stand_in,
        "vocab_size": data.vocab_size,
        "n_train": len(data.train),
        "n_test": len(data.test),
        **measure(model, data, min_count=settings.importance_min_count, n_boot=settings.n_boot, seed=settings.seed),
    }
    name = record_name(data.name, kind, mode)
    return TrainedRun(data.name, kind, mode, settings, model, history, metrics, name, result.loaded, result.path)


def read_run_record(dataset: str, kind: str, mode: str, scale: str) -> dict[str, Any] | None:
    """The record of an experiment at ``scale`` (any settings: a record written under other settings is still shown,
    with its protocol), or None."""
    return read_record(record_name(dataset, kind, mode), scale)


def missing_message(dataset: str, kind: str, mode: str, scale: str) -> str:
    """What a page prints for a missing record: how to produce it."""
    command = FULL_COMMAND if scale == "full" else FAST_COMMAND
    return missing_record_message(record_name(dataset, kind, mode), scale, command)


_UNIT, _POSITIVE, _RANK = (0.0, 1.0), (0.0, math.inf), (-1.0, 1.0)
SEEDED_BOUNDS = {
    "test_accuracy": _UNIT,
    "best_validation_accuracy": _UNIT,
    "epochs_run": _POSITIVE,
    "train_seconds": _POSITIVE,
    "values.mean_bin_std": _POSITIVE,
    "scores.mean_bin_std": _POSITIVE,
    "values.verdict.spearman": _RANK,
    "scores.verdict.spearman": _RANK,
    "p_norm": _POSITIVE,
    "scores.token_std": _POSITIVE,
}
"""The range each seeded metric cannot leave; its seed interval is clipped to it (``intervals.seed_interval``)."""
SEEDED_METRICS = tuple(SEEDED_BOUNDS)
"""Scalar metrics whose per-seed values and seed interval a record keeps (those a run has)."""


def seeded_bounds(path: str) -> tuple[float, float] | None:
    """The bounds of a seeded metric at ``path`` (a class's Spearman in [-1, 1]), or None for an unbounded one."""
    if path.startswith("classes.") and path.endswith(".verdict.spearman"):
        return _RANK
    return SEEDED_BOUNDS.get(path)


SEEDED_SHAPES = (
    "values.shape",
    "scores.shape",
    "values.bin_shape",
    "scores.bin_shape",
    "values.verdict.left_spearman",
    "values.verdict.right_spearman",
    "scores.verdict.left_spearman",
    "scores.verdict.right_spearman",
)
"""Shape verdicts and the arms' rank correlations (NaN where a fit has no interior minimum) whose per-seed values
a record keeps, without a seed interval."""


def metric_at(metrics: dict[str, Any], path: str) -> Any:
    """``metrics`` at a dotted ``path`` (a number in the path indexes a list), or None where it does not exist."""
    value: Any = metrics
    for part in path.split("."):
        if isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        elif isinstance(value, dict) and part in value:
            value = value[part]
        else:
            return None
    return value


def seed_paths(metrics: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(scalar paths, shape paths) a record of these metrics aggregates over seeds, per class for K classes."""
    numbers = [p for p in SEEDED_METRICS if metric_at(metrics, p) is not None]
    shapes = [p for p in SEEDED_SHAPES if metric_at(metrics, p) is not None]
    for k in range(len(metrics.get("classes", []))):
        numbers.append(f"classes.{k}.verdict.spearman")
        shapes += [f"classes.{k}.shape", f"classes.{k}.verdict.left_spearman", f"classes.{k}.verdict.right_spearman"]
    return numbers, shapes


def aggregate_seeds(per_run: list[dict[str, Any]], seeds: list[int]) -> dict[str, Any]:
    """The metrics of a multi-seed record: the first seed's metrics, plus ``per_seed`` (path -> one value per seed,
    the shapes included) and ``seed_summary`` (path -> ``seed_interval`` of a scalar metric)."""
    if len(per_run) != len(seeds) or not per_run:
        raise ValueError(f"need one metrics dict per seed, got {len(per_run)} for seeds {seeds}")
    numbers, shapes = seed_paths(per_run[0])
    per_seed = {path: [metric_at(m, path) for m in per_run] for path in numbers + shapes}
    summary = {path: seed_interval([float(v) for v in per_seed[path]], bounds=seeded_bounds(path)) for path in numbers}
    return {**per_run[0], "seeds": list(seeds), "per_seed": per_seed, "seed_summary": summary}


def run_seeds(
    kind: str,
    mode: str,
    settings: RealDataSettings,
    *,
    seeds: list[int] | None = None,
    data_for: Callable[[RealDataSettings], EncodedReviews] | None = None,
    progress: bool = True,
) -> dict[str, Any]:
    """Run ``kind`` in ``mode`` at the preset ``settings`` once per seed and write its record; return the record.

    seeds: default ``preset_seeds(kind, settings.scale)``; each seed draws its own data split,
    initialisation and batches. data_for: settings -> data (default ``load_data``; the 4-class
    experiment passes its own). A record whose settings and seeds are current is returned as is.
    """
    check_kind_and_mode(kind, mode)
    preset = real_data_settings(settings.scale, settings.dataset)
    if replace(settings, seed=preset.seed) != preset:
        raise ValueError("run_seeds writes records, so settings must be a preset (real_data_settings(scale, dataset))")
    seeds = preset_seeds(kind, settings.scale) if seeds is None else list(seeds)
    data_for = data_for or (lambda s: load_data(s, progress=progress))
    runs, start, data = [], time.perf_counter(), None
    for seed in seeds:
        data = data_for(replace(settings, seed=seed))
        runs.append(run_experiment(kind, mode, replace(settings, seed=seed), data=data, progress=progress))
    assert data is not None
    name = record_name(data.name, kind, mode)
    seed_list = ", ".join(map(str, seeds))
    text = protocol(kind, mode, replace(settings, seed=seeds[0]), data) + (
        f" Seeds {seed_list}: each draws its own validation split, initialisation and batches; curves and shapes "
        f"shown are seed {seeds[0]}'s, and every scalar metric keeps its per-seed values and a 95% Student-t interval."
    )
    write_record(
        name,
        settings.scale,
        protocol=text,
        settings=record_settings(kind, mode, settings, data.name, seeds),
        metrics=aggregate_seeds([run.metrics for run in runs], seeds),
        seeds=seeds,
        seconds=time.perf_counter() - start,
    )
    record = read_record(name, settings.scale)
    assert record is not None
    return record
