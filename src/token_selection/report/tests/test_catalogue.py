"""Every record the book reads exists at both scales and is current, and a stale or missing one is recognised."""

from __future__ import annotations

import json

import pytest

from token_selection.report import catalogue as cat
from token_selection.results import read_record, settings_hash, write_record

ENTRIES = cat.catalogue()


@pytest.mark.parametrize("entry", ENTRIES, ids=[f"{e.name}.{e.scale}" for e in ENTRIES])
def test_every_record_the_book_reads_is_current(entry):
    state = cat.record_state(entry)
    assert state == "current", f"the {entry.scale} record {entry.name} is {state}: produce it with {entry.command}"


def test_catalogue_covers_both_scales_and_every_kind_of_record():
    names = {scale: {e.name for e in ENTRIES if e.scale == scale} for scale in ("fast", "full")}
    assert names["fast"] == names["full"]
    for expected in ("imdb-one_layer-joint", "yelp_stars-multiclass-joint", "diagnosis-frozen_capacity", "report-theory",
                     "global_local"):  # fmt: skip
        assert expected in names["fast"]


def test_states_of_a_record_written_under_one_setting_and_read_under_another(tmp_path, monkeypatch):
    monkeypatch.setenv("TOKEN_SELECTION_RECORDS", str(tmp_path))
    entry = cat.Entry("probe", "fast", lambda: {"d": 64, "seeds": [0]}, "make records")
    assert cat.record_state(entry) == "missing"
    write_record("probe", "fast", protocol="probe", settings={"d": 64, "seeds": [0]}, metrics={})
    assert cat.record_state(entry) == "current"
    for other in ({"d": 65, "seeds": [0]}, {"d": 64, "seeds": [0, 1]}, {"d": 64}):
        assert cat.record_state(cat.Entry("probe", "fast", lambda o=other: o, "")) == "stale"
    # the same record read at the other scale is missing, not current
    assert cat.record_state(cat.Entry("probe", "full", lambda: {"d": 64, "seeds": [0]}, "")) == "missing"
    # a hand-edited settings block no longer matches its stored hash: stale
    path = tmp_path / "probe.fast.json"
    record = json.loads(path.read_text())
    record["settings_hash"] = settings_hash({"d": 63, "seeds": [0]})
    path.write_text(json.dumps(record))
    assert read_record("probe", "fast", settings={"d": 64, "seeds": [0]}) is None
    assert cat.record_state(entry) == "stale"


def test_the_theory_entry_takes_its_scale_as_an_argument_and_never_touches_the_environment(monkeypatch):
    import os

    monkeypatch.setenv("TOKEN_SELECTION_SCALE", "fast")
    theory = {e.scale: e for e in cat.catalogue() if e.name == "report-theory"}
    assert theory["full"].settings()["seeds"] != theory["fast"].settings()["seeds"]
    assert os.environ["TOKEN_SELECTION_SCALE"] == "fast"
    monkeypatch.delenv("TOKEN_SELECTION_SCALE")
    theory["full"].settings()
    assert "TOKEN_SELECTION_SCALE" not in os.environ


def test_state_of_an_unknown_record_names_the_known_ones():
    with pytest.raises(ValueError, match="no record 'nope'"):
        cat.state_of("nope", "fast")


def test_the_catalogue_built_in_a_test_names_each_record_its_scale_command_and_current_settings():
    # built here, not at collection: what a run of the code now gives, entry by entry
    entries = cat.catalogue()
    assert [(e.name, e.scale) for e in entries] == [(e.name, e.scale) for e in ENTRIES]
    assert [cat.record_state(e) for e in entries] == ["current"] * len(entries)
    for entry in entries:
        assert entry.command == f"scripts/run_records.py --scale {entry.scale} --only {entry.name}", entry
    groups = {e.name: e.group for e in entries if e.scale == "fast"}
    assert groups["imdb-one_layer-joint"] == "experiment" and groups["diagnosis-frozen_capacity"] == "diagnosis"
    assert groups["one_step_direct"] == "diagnosis" and groups["flow_seed_sweep"] == "study"
    assert groups["report-theory"] == "theory" and set(groups.values()) == set(cat.GROUPS)
    assert cat.catalogue(("full",))[0].scale == "full" and {e.scale for e in cat.catalogue(("fast",))} == {"fast"}
    for name in ("yelp_stars-multiclass-joint", "diagnosis-frozen_capacity", "global_local", "report-theory"):
        assert cat.state_of(name, "full") == "current"


def test_4_class_yelp_uses_the_yelp_preset():
    from token_selection.real_data.settings import real_data_settings

    for scale in ("fast", "full"):
        assert cat.preset_of("yelp_stars", scale) == real_data_settings(scale, "yelp_polarity")
        assert cat.preset_of("imdb", scale) == real_data_settings(scale, "imdb") != cat.preset_of("yelp_stars", scale)


def test_each_entry_writes_its_own_record_at_its_own_scale(tmp_path, monkeypatch):
    """The one runner calls ``entry.write``: a study and the theory claims write their record at the entry's scale
    through the producer; an entry built without one refuses and says so."""
    from token_selection.report import producers
    from token_selection.studies.registry import STUDIES, Study

    monkeypatch.setenv("TOKEN_SELECTION_RECORDS", str(tmp_path))
    seen = {}

    def run(settings, track):
        seen["items"] = list(track(range(3), 3))
        return {"value": 1.5}

    monkeypatch.setitem(STUDIES, "probe_study", Study(lambda scale: {"scale": scale, "seeds": [0, 2]}, run, "probe"))
    producers.study("probe_study", "full")(False)
    record = read_record("probe_study", "full", settings={"scale": "full", "seeds": [0, 2]})
    assert record["metrics"] == {"value": 1.5} and record["seeds"] == [0, 2] and seen["items"] == [0, 1, 2]
    assert read_record("probe_study", "fast") is None
    written = []
    monkeypatch.setattr(producers.theory_claims, "write_theory_record", written.append)
    producers.theory("fast")(True, 3)
    assert written == ["fast"]
    with pytest.raises(ValueError, match="^this entry has no producer"):
        cat.Entry("probe", "fast", dict, "command").write(False, None)


def test_an_experiment_runs_the_presets_seeds_capped_by_max_seeds(monkeypatch):
    from token_selection.report import producers

    calls = []
    monkeypatch.setattr(producers, "run_seeds", lambda kind, mode, preset, **kw: calls.append((kind, mode, preset, kw)))
    producers.experiment("imdb", "one_layer", "frozen_random", "full")(False)
    producers.experiment("yelp_stars", "multiclass", "joint", "full")(False, 2)
    (kind, mode, preset, kw), (_, _, stars, capped) = calls
    assert (kind, mode, preset.scale, preset.dataset, kw["seeds"]) == (
        "one_layer",
        "frozen_random",
        "full",
        "imdb",
        [0, 1, 2, 3, 4],
    )
    assert stars.dataset == "yelp_polarity" and capped["seeds"] == [0, 1], "4-class Yelp: the Yelp preset, two seeds"


def test_each_entry_holds_the_settings_of_its_own_record():
    """A stale record is told from a current one by these settings: each entry's must be its experiment's own."""
    from token_selection.real_data.diagnoses import DIAGNOSES
    from token_selection.real_data.pipeline import record_settings
    from token_selection.report import theory_claims
    from token_selection.studies.registry import STUDIES

    for scale in ("fast", "full"):
        entries = {e.name: e for e in cat.catalogue((scale,))}
        for dataset, kind, mode in cat.EXPERIMENTS:
            name = f"{dataset}-{kind}-{mode}"
            assert entries[name].settings() == record_settings(kind, mode, cat.preset_of(dataset, scale), dataset), name
        for name, diagnosis in DIAGNOSES.items():
            assert entries[name].settings() == diagnosis.settings(scale), name
        for name, study in STUDIES.items():
            assert entries[name].settings() == study.settings(scale), name
        assert entries["report-theory"].settings() == theory_claims.record_settings(scale)


def test_each_entry_writes_its_own_record_through_its_group_s_producer(monkeypatch):
    from token_selection.real_data.diagnoses import DIAGNOSES, Diagnosis
    from token_selection.report import producers
    from token_selection.studies.registry import STUDIES, Study

    calls = []
    monkeypatch.setattr(producers, "run_seeds", lambda kind, mode, preset, **kw: calls.append(
        ("experiment", kind, mode, preset.dataset, preset.scale, kw["seeds"])))  # fmt: skip
    monkeypatch.setattr(producers, "write_record", lambda name, scale, **kw: calls.append(("record", name, scale)))
    name = "diagnosis-accuracy_reference"
    found = DIAGNOSES[name]
    monkeypatch.setitem(DIAGNOSES, name, Diagnosis(name, found.settings, lambda s, progress: {"ran": s["scale"]},
                                                   found.description, found.cost))  # fmt: skip
    study = STUDIES["negation"]
    monkeypatch.setitem(STUDIES, "negation", Study(study.settings, lambda s, track: {"n": 1}, study.protocol))
    monkeypatch.setattr(producers.theory_claims, "write_theory_record", lambda scale: calls.append(("theory", scale)))
    entries = {e.name: e for e in cat.catalogue(("full",))}
    for entry in ("yelp_stars-multiclass-joint", name, "negation", "report-theory"):
        entries[entry].write(False, 1)
    assert calls == [
        ("experiment", "multiclass", "joint", "yelp_polarity", "full", [0]),
        ("record", name, "full"),
        ("record", "negation", "full"),
        ("theory", "full"),
    ]
