"""Stopping by evidence on real sweeps (Ansible, the simulated array, the store), where the
rule cannot or has not yet decided: a near-tie the budget cannot resolve ends unsure and says
so (``run``, ``status``, the progress record), and a self-stopping sweep interrupted half-way
resumes, measures nothing twice and then stops by evidence."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

import pytest

from sweeper.store import ParquetStore
from tests.support.cli import cli, finish, start
from tests.support.specs import self_stopping_spec, write_spec

pytestmark = pytest.mark.integration

SPACE = 24  # self_stopping_spec's configurations
BUDGET = 14


def test_a_near_tie_the_budget_cannot_resolve_ends_unsure_and_says_so(tmp_path: Path) -> None:
    # redo_log's best configurations on the simulated array lie within 2% of each other, their
    # 95% intervals overlapping (the write cache's ceiling): 0.2% is not resolvable from two
    # repetitions of each, whatever the budget
    spec = self_stopping_spec()
    spec["study"] |= {"budget": BUDGET, "stop": {"within_pct": 0.2}}
    path = write_spec(tmp_path, spec, "tie")
    done = cli("run", path, "--store", tmp_path / "store", columns=250)
    out = " ".join(done.stdout.split())
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{BUDGET} configuration(s) completed" in out
    assert "the evidence does not yet show every class's pick within 0.2%" in out
    assert "provisional" in out
    record = json.loads((tmp_path / "store" / spec["name"] / "progress.json").read_text())
    evidence = record["evidence"]
    assert record["state"] == "finished" and evidence["stop"] is False
    assert evidence["measured"] == BUDGET < SPACE
    unsure = [c for c in evidence["classes"] if not c["confident"]]
    assert unsure, evidence
    # judged, not merely short of evidence: the rule weighed the class and is not sure
    assert all(c["unsure"] is None and c["confidence"] < 0.95 for c in unsure), unsure
    assert len(ParquetStore(tmp_path / "store").runs(spec["name"])["config_key"].unique()) == BUDGET
    status = cli("status", "--store", tmp_path / "store", columns=250, check=True).stdout
    said = " ".join(status.split())
    names = ", ".join(c["name"] for c in unsure)
    assert f"not sure of {names}: no pick is yet known within 0.2%" in said
    for c in unsure:
        assert f"{c['name']}: {c['confidence']:.1%} sure of {c['pick']} (not sure)" in said
    doc = json.loads(
        cli("recommend", spec["name"], "--store", tmp_path / "store", "--json", check=True).stdout
    )
    assert doc["evidence"]["stopped_by_evidence"] is False
    for c in doc["classes"]:
        if c["name"] in names.split(", "):
            assert c["confidence"]["sure"] is False
            # a pick whose runner-up is tied with it and within 2% of it: a near-tie
            ranked = c["rankings"]
            top, second = float(ranked[0]["score"]), float(ranked[1]["score"])
            assert ranked[1]["tied"] and second >= 0.98 * top, ranked[:2]


def _configurations_with_runs(store: Path, name: str) -> int:
    if not (store / name).exists():
        return 0
    runs = ParquetStore(store).runs(name)
    return len(runs["config_key"].unique()) if len(runs) else 0


def test_a_self_stopping_sweep_interrupted_half_way_resumes_and_stops(tmp_path: Path) -> None:
    spec = self_stopping_spec()
    path = write_spec(tmp_path, spec, "selfstop")
    store = tmp_path / "store"
    proc = start("run", path, "--store", store, "-q")
    deadline = time.monotonic() + 300
    # four configurations measured and a fifth begun: the rule has not decided yet (it
    # judges no class before every value of every dimension is measured)
    while _configurations_with_runs(store, spec["name"]) < 5:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the sweep made no progress"
        time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    status, out = finish(proc)
    assert status == 130, out
    before = ParquetStore(store).runs(spec["name"])
    first = set(before["config_key"])
    assert 5 <= len(first) < SPACE

    resumed = start("run", path, "--store", store)
    status, out = finish(resumed)
    assert status == 0, out
    assert "stopped by evidence" in out
    record = json.loads((store / spec["name"] / "progress.json").read_text())
    assert record["state"] == "finished" and record["evidence"]["stop"] is True
    runs = ParquetStore(store).runs(spec["name"], include_failed=True)
    ok = runs[runs["status"] == "ok"]
    # nothing measured twice; what the interrupted sweep measured is kept and built on
    assert not ok.duplicated(["config_key", "cell_key", "repetition"]).any()
    assert first <= set(ok["config_key"])
    assert record["evidence"]["measured"] <= len(set(ok["config_key"])) < SPACE
    picks = {c["pick"] for c in record["evidence"]["classes"]}
    assert picks <= set(ok["config_key"])
    # run once more: decided, it measures nothing
    again = cli("run", path, "--store", store, columns=250, check=True)
    assert f"0 run(s) written, {len(runs)} already stored" in " ".join(again.stdout.split())
    assert len(ParquetStore(store).runs(spec["name"], include_failed=True)) == len(runs)
