"""What a self-stopping sweep shows of its decision (a real sweep on the simulated array):
the confidence per class in ``status``, ``recommend`` (text and --json) and the report; and,
on a sweep that leaves part of its space unmeasured, the surrogate's predictions for the
unmeasured configurations, which never enter a ranking."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recommender.classes import load_classes
from recommender.predictions import annotate, nearest, surrogate_all, sweep_space
from recommender.scoring import rank_classes
from sweeper.store import ParquetStore
from tests.support.cli import cli
from tests.support.specs import partly_measured_spec, self_stopping_spec, write_spec
from tests.support.sweeps import sweep

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def stopped(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, ParquetStore]:
    tmp = tmp_path_factory.mktemp("selfstop")
    spec = self_stopping_spec()
    store, outcome = sweep(write_spec(tmp, spec, "selfstop"), tmp / "store")
    assert outcome.evidence is not None and outcome.evidence.stop
    return tmp / "store", spec["name"], store


@pytest.fixture(scope="module")
def partial(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, ParquetStore]:
    tmp = tmp_path_factory.mktemp("partial")
    spec = partly_measured_spec()
    store, outcome = sweep(write_spec(tmp, spec, "partial"), tmp / "store")
    assert outcome.configurations_done == len(spec["study"]["seed_configurations"])
    return tmp / "store", spec["name"], store


def test_status_shows_the_decision_and_each_class_confidence(stopped) -> None:
    root, name, _ = stopped
    text = cli("status", "--store", root, columns=200, check=True).stdout
    assert "stopped by evidence" in text and "with 95% confidence" in text
    assert "redo_log:" in text and "% sure of " in text
    doc = json.loads(cli("status", "--store", root, "--json", check=True).stdout)
    evidence = doc["sweeps"][0]["evidence"]
    assert evidence["stopped_by_evidence"] is True and evidence["within_pct"] == 5
    assert set(evidence["classes"]) == {"redo_log", "data_file"}
    assert all(c["sure"] and c["confidence"] >= 0.95 for c in evidence["classes"].values())


def test_recommend_says_how_sure_the_search_is(stopped) -> None:
    root, name, _ = stopped
    doc = json.loads(cli("recommend", name, "--store", root, "--json", check=True).stdout)
    assert doc["evidence"]["stopped_by_evidence"] is True
    for c in doc["classes"]:
        assert c["confidence"]["pick"] == c["recommended"]
    text = cli("recommend", name, "--store", root, columns=200, check=True).stdout
    assert "% sure of" in text


def test_recommend_keeps_predictions_out_of_the_ranking(partial) -> None:
    root, name, store = partial
    doc = json.loads(cli("recommend", name, "--store", root, "--json", check=True).stdout)
    measured = set(store.runs(name)["config_key"])
    predicted_any = False
    for c in doc["classes"]:
        ranked = {r["configuration"] for r in c["rankings"]}
        assert ranked <= measured  # every ranked row is a measurement
        for p in c["predictions"]:
            predicted_any = True
            assert p["kind"] == "predicted" and p["configuration"] not in measured
            assert p["predicted_lo"] <= p["predicted"] <= p["predicted_hi"]
    assert predicted_any, "the RAID 10 host stripes were never measured: some are predicted"
    text = cli("recommend", name, "--store", root, columns=200, check=True).stdout
    assert "predicted, not measured" in text


def test_predictions_are_of_unmeasured_configurations_only(partial) -> None:
    _, name, store = partial
    record = store.get_sweep(name)
    assert record is not None
    ranked = rank_classes(store.runs(name), load_classes(["redo_log", "data_file"]))
    raw = surrogate_all(ranked, sweep_space(record), ["redo_log", "data_file"])
    found = nearest(annotate(raw, ranked), 100)
    assert len(found) and set(found["kind"]) == {"predicted"}
    assert not set(found["config_key"]) & set(ranked["config_key"])
    # a prediction's interval reaches the class's pick (only those could change a decision)
    for name_, part in found.groupby("class"):
        pick = float(ranked[ranked["class"] == name_].iloc[0]["score"])
        assert (part["predicted_hi"] >= pick).all()
        assert (part["beats_pick"] == (part["predicted"] > pick)).all()


def test_the_report_says_how_sure_the_search_is(stopped, partial, tmp_path: Path) -> None:
    root, name, _ = stopped
    out = tmp_path / "report.html"
    cli("report", name, "--store", root, "-o", out, check=True)
    page = out.read_text()
    assert "How sure the search is" in page and "stopped by evidence" in page
    root, name, _ = partial
    cli("report", name, "--store", root, "-o", out, check=True)
    page = out.read_text()
    assert "Predicted, not measured" in page and 'class="predicted"' in page
