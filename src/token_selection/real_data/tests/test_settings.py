"""The real-data settings: presets per scale and dataset, overrides, what a record stores, and a hash that sees every setting.

The hash tests walk ``dataclasses.fields(RealDataSettings)``, so a setting added later is covered
without a change here: changing any one setting must change the hash of the record it would write.
"""

from __future__ import annotations

import dataclasses
import random

import pytest

from token_selection.real_data.pipeline import record_settings
from token_selection.real_data.settings import (
    OPTIMISER,
    REBUTTAL_VOCABULARY,
    SEEDS,
    TOKENISER,
    RealDataSettings,
    real_data_settings,
    seed_count,
)
from token_selection.results import settings_hash
from token_selection.scale import SCALE_VARIABLE

FIELDS = [f.name for f in dataclasses.fields(RealDataSettings)]


def other_value(settings: RealDataSettings, name: str, rng: random.Random):
    """A valid value of setting ``name`` other than its value in ``settings``."""
    value = getattr(settings, name)
    if name == "scale":
        return "full" if value == "fast" else "fast"
    if name == "dataset":
        return "yelp_polarity" if value == "imdb" else "imdb"
    if value is None:
        return rng.randrange(100, 10_000)
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.randrange(1, 5)
    if isinstance(value, float):
        return value * rng.choice([0.5, 1.5, 2.0]) if value else 0.25
    raise AssertionError(f"no other value for setting {name}={value!r}: teach other_value this type")


def test_every_setting_is_a_field_with_a_known_kind_of_value():
    settings = real_data_settings("fast")
    rng = random.Random(0)
    for name in FIELDS:
        assert other_value(settings, name, rng) != getattr(settings, name), name


SCALES_AND_DATASETS = [("fast", "imdb"), ("full", "imdb"), ("fast", "yelp_polarity"), ("full", "yelp_polarity")]


@pytest.mark.parametrize(("scale", "dataset"), SCALES_AND_DATASETS)
@pytest.mark.parametrize("kind_mode", [("one_layer", "joint"), ("two_layer", "joint"), ("one_layer", "one_step_frozen")])
def test_a_record_hash_changes_when_any_single_setting_changes(scale, dataset, kind_mode):
    kind, mode = kind_mode
    rng = random.Random(f"{scale}-{dataset}-{kind}-{mode}")
    settings = real_data_settings(scale, dataset)
    base = settings_hash(record_settings(kind, mode, settings, dataset))
    for name in FIELDS:
        changed = dataclasses.replace(settings, **{name: other_value(settings, name, rng)})
        digest = settings_hash(record_settings(kind, mode, changed, dataset))
        if name == "seed":
            # a record is identified by its list of seeds (run_seeds sets each run's seed from it): see below
            assert digest == base
        else:
            assert digest != base, f"{name} is not in the hash of the record it changes"


def test_a_record_hash_changes_with_its_seeds_its_experiment_and_its_dataset():
    settings = real_data_settings("fast")
    base = settings_hash(record_settings("one_layer", "joint", settings, "imdb"))
    assert base == settings_hash(record_settings("one_layer", "joint", settings, "imdb", [0]))  # the fast preset's seeds
    for seeds in ([1], [0, 1], [1, 0], [0, 0]):
        assert settings_hash(record_settings("one_layer", "joint", settings, "imdb", seeds)) != base, seeds
    assert settings_hash(record_settings("one_layer", "frozen_random", settings, "imdb")) != base
    assert settings_hash(record_settings("mlp", "joint", settings, "imdb")) != base
    stored = record_settings("one_layer", "joint", settings, "imdb", [3, 4])
    assert stored["seed"] == 3 and stored["seeds"] == [3, 4] and stored["kind"] == "one_layer" and stored["mode"] == "joint"


def test_a_record_hash_and_its_stored_dataset_follow_the_dataset_argument():
    settings = real_data_settings("fast", "yelp_polarity")
    stored = record_settings("multiclass", "joint", settings, "yelp_stars")
    assert stored["dataset"] == "yelp_stars"
    assert settings_hash(stored) != settings_hash(record_settings("multiclass", "joint", settings, "yelp_polarity"))


def test_as_dict_holds_every_setting_and_the_tokeniser_and_optimiser_in_words():
    settings = real_data_settings("full", "yelp_polarity")
    stored = settings.as_dict()
    assert set(stored) == set(FIELDS) | {"tokeniser", "optimiser"}
    assert all(stored[name] == getattr(settings, name) for name in FIELDS)
    assert stored["tokeniser"] == TOKENISER and "word-level" in TOKENISER and "min_count" in TOKENISER
    assert stored["optimiser"] == OPTIMISER and OPTIMISER.startswith("Adam")


def test_data_arguments_are_the_settings_that_shape_the_tokenised_reviews():
    settings = real_data_settings("full", "imdb", T=100, min_count=3, limit=50, validation_fraction=0.2, seed=4)
    assert settings.data_arguments() == {
        "T": 100,
        "min_count": 3,
        "max_vocab": REBUTTAL_VOCABULARY["imdb"],
        "limit": 50,
        "validation_fraction": 0.2,
        "seed": 4,
    }


EXPECTED_PRESETS = {  # setting: (fast, full), as the module's table gives them
    "T": (256, 512),
    "min_count": (10, 10),
    "limit": (25_000, None),
    "d": (64, 2048),
    "epochs": (8, 10),
    "batch_size": (512, 512),
    "lr": (5e-3, 5e-4),
    "patience": (2, 2),
    "frozen_lr": (0.1, 0.02),
    "frozen_epochs": (20, 20),
    "frozen_patience": (5, 5),
    "step_factor": (2.0, 2.0),
    "importance_min_count": (20, 20),
    "n_boot": (200, 1000),
}


@pytest.mark.parametrize("dataset", ["imdb", "yelp_polarity"])
def test_presets_per_scale_and_dataset(dataset):
    for index, scale in enumerate(("fast", "full")):
        settings = real_data_settings(scale, dataset)
        assert settings.scale == scale and settings.dataset == dataset
        assert {name: getattr(settings, name) for name in EXPECTED_PRESETS} == {k: v[index] for k, v in EXPECTED_PRESETS.items()}
        assert settings.validation_fraction == 0.1 and settings.seed == 0
    assert real_data_settings("fast", dataset).max_vocab is None
    assert real_data_settings("full", dataset).max_vocab == REBUTTAL_VOCABULARY[dataset]
    assert REBUTTAL_VOCABULARY == {"imdb": 7766, "yelp_polarity": 5424}


def test_the_scale_defaults_to_the_environment(monkeypatch):
    monkeypatch.setenv(SCALE_VARIABLE, "full")
    assert real_data_settings() == real_data_settings("full", "imdb")
    monkeypatch.setenv(SCALE_VARIABLE, "fast")
    assert real_data_settings(dataset="yelp_polarity") == real_data_settings("fast", "yelp_polarity")


def test_overrides_win_over_the_preset_and_unknown_ones_are_named():
    settings = real_data_settings("full", "imdb", max_vocab=None, d=8, seed=2)
    assert settings.max_vocab is None and settings.d == 8 and settings.seed == 2 and settings.T == 512
    with pytest.raises(ValueError, match=r"unknown settings \['depth', 'width'\]; allowed: \['T', 'batch_size'"):
        real_data_settings("fast", width=1, depth=3)
    for scale in ("huge", "FAST", ""):
        with pytest.raises(ValueError, match=r"scale must be one of \['fast', 'full'\]"):
            real_data_settings(scale)
    with pytest.raises(ValueError, match="name must be one of"):
        real_data_settings("fast", "yelp_stars")


def test_settings_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        real_data_settings("fast").d = 3


def test_seed_counts_per_kind_and_scale():
    assert SEEDS == {"fast": {"paper": 1, "variant": 1}, "full": {"paper": 5, "variant": 3}}
    assert seed_count("one_layer", "full") == 5 and seed_count("one_layer", "fast") == 1
    for kind in ("two_layer", "key_query", "mlp", "multiclass"):
        assert seed_count(kind, "full") == 3 and seed_count(kind, "fast") == 1
    with pytest.raises(ValueError, match=r"scale must be one of \['fast', 'full'\], got 'medium'"):
        seed_count("one_layer", "medium")


def test_a_diagnosis_stores_its_name_scale_imdbs_preset_and_its_grids():
    from token_selection.real_data.settings import diagnosis_settings

    for scale in ("fast", "full"):
        assert diagnosis_settings("x", scale, grid=[1, 3], seeds=[0]) == {
            "diagnosis": "x", "scale": scale, "dataset": "imdb",
            "preset": real_data_settings(scale, "imdb").as_dict(), "grid": [1, 3], "seeds": [0],
        }  # fmt: skip
    assert diagnosis_settings("y", "fast") == {k: v for k, v in diagnosis_settings("y", "fast", a=1).items() if k != "a"}
