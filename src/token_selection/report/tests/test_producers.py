"""Each producer of the one runner writes its record at its scale, with its settings, seeds, protocol and time."""

from __future__ import annotations

from dataclasses import replace

import pytest

from token_selection.real_data.diagnoses import DIAGNOSES, Diagnosis
from token_selection.report import producers
from token_selection.results import RECORDS_VARIABLE, read_record
from token_selection.studies.registry import STUDIES, Study


@pytest.fixture
def records(tmp_path, monkeypatch):
    monkeypatch.setenv(RECORDS_VARIABLE, str(tmp_path))
    return tmp_path


@pytest.mark.parametrize(("seeds", "stored"), [([2, 5], [2, 5]), (None, [0])])
def test_a_diagnosis_is_run_on_its_settings_and_written_with_its_protocol(records, monkeypatch, seeds, stored):
    seen = []

    def settings(scale):
        return {"scale": scale, "preset": {}, "grid": [1, 3]} | ({} if seeds is None else {"seeds": seeds})

    def run(s, progress):
        seen.append((s["scale"], progress))
        return {"value": 0.25}

    probe = Diagnosis("diagnosis-probe", settings, run, "A probe.", (1.0, 1.0))
    monkeypatch.setitem(DIAGNOSES, "diagnosis-probe", probe)
    producers.diagnosis("diagnosis-probe", "full")(True)
    record = read_record("diagnosis-probe", "full", settings=settings("full"))
    assert seen == [("full", True)] and record["metrics"] == {"value": 0.25} and record["seeds"] == stored
    assert record["protocol"] == probe.protocol(settings("full")) and "Grids" in record["protocol"]
    assert 0 <= record["seconds"] < 60 and read_record("diagnosis-probe", "fast") is None


def test_a_study_gets_its_settings_and_a_progress_bar_and_keeps_its_seeds(records, monkeypatch):
    seen = []

    def run(s, track):
        seen.append((s["scale"], list(track(range(4), 4))))
        return {"share": 0.5}

    probe = Study(lambda scale: {"scale": scale, "seeds": [1, 4]}, run, "a probe study")
    monkeypatch.setitem(STUDIES, "probe", probe)
    producers.study("probe", "fast")(False, 3)
    record = read_record("probe", "fast", settings={"scale": "fast", "seeds": [1, 4]})
    assert seen == [("fast", [0, 1, 2, 3])] and record["metrics"] == {"share": 0.5}
    assert record["seeds"] == [1, 4] and record["protocol"] == "a probe study" and 0 <= record["seconds"] < 60


@pytest.mark.parametrize("progress", [True, False])
def test_an_experiment_loads_each_seed_s_reviews_once_and_4_class_yelp_its_own(monkeypatch, progress):
    calls, loads, stars = [], [], []
    monkeypatch.setattr(producers, "run_seeds", lambda kind, mode, preset, **kw: calls.append((kind, mode, preset, kw)))
    monkeypatch.setattr(producers, "load_data", lambda s, progress: loads.append((s.dataset, s.seed, progress)) or s.seed)
    monkeypatch.setattr(producers, "prepare_yelp_stars", lambda s, progress: stars.append((s.seed, progress)) or "stars")
    producers._reviews.cache_clear()
    producers.experiment("imdb", "one_layer", "joint", "fast")(progress)
    producers.experiment("yelp_stars", "multiclass", "joint", "full")(progress, 2)
    (kind, mode, preset, kw), (_, _, star_preset, star_kw) = calls[:2]
    assert (kind, mode, preset.dataset, preset.scale, kw["seeds"], kw["progress"]) == ("one_layer", "joint", "imdb", "fast",
                                                                                      [0], progress)  # fmt: skip
    for _ in range(2):
        assert kw["data_for"](preset) == preset.seed
    assert loads == [("imdb", preset.seed, progress)], "the second call reads the kept reviews"
    for seed in (1, 2, 3):  # an experiment runs seed after seed
        kw["data_for"](replace(preset, seed=seed))
    producers.experiment("imdb", "two_layer", "joint", "fast")(progress)
    assert calls[-1][3]["data_for"](preset) == preset.seed
    assert len(loads) == 4, "the next experiment reads the reviews of its first seed as the first experiment kept them"
    assert (star_preset.dataset, star_kw["seeds"], star_kw["progress"]) == ("yelp_polarity", [0, 1], progress)
    assert star_kw["data_for"](star_preset) == "stars" and stars == [(star_preset.seed, progress)]
    producers._reviews.cache_clear()


def test_without_a_cap_an_experiment_runs_every_seed_of_its_preset(monkeypatch):
    calls = []
    monkeypatch.setattr(producers, "run_seeds", lambda kind, mode, preset, **kw: calls.append(kw["seeds"]))
    producers.experiment("imdb", "two_layer", "joint", "full")(False, None)
    producers.experiment("imdb", "two_layer", "joint", "full")(False, 5)
    assert calls == [[0, 1, 2], [0, 1, 2]], "a cap above the preset's seeds changes nothing"
