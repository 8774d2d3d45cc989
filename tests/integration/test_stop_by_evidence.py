"""A real sweep (Ansible, the simulated array, the store) in optimize mode with study.stop:
it stops by evidence before it has measured the space, keeps the decision in its progress
record, and run again it resumes into the same decision without measuring anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.specs import self_stopping_spec, write_spec
from tests.support.sweeps import sweep

pytestmark = pytest.mark.integration


def test_a_self_stopping_sweep_stops_early_and_resumes_into_its_decision(tmp_path: Path) -> None:
    spec = self_stopping_spec()
    path = write_spec(tmp_path, spec, "selfstop")
    store, outcome = sweep(path, tmp_path / "store")
    space = 3 * 4 * 2
    decision = outcome.evidence
    assert decision is not None and decision.stop, decision
    assert outcome.configurations_done < space
    assert {c.name for c in decision.classes} == {"redo_log", "data_file"}
    assert all(c.confident and c.confidence >= 0.95 for c in decision.classes)
    # no pick is recommended while an unmeasured configuration is predicted above it
    assert all(c.predicted_best is None for c in decision.classes), decision
    record = json.loads((tmp_path / "store" / spec["name"] / "progress.json").read_text())
    assert record["state"] == "finished" and record["evidence"]["stop"] is True
    assert [c["pick"] for c in record["evidence"]["classes"]] == [c.pick for c in decision.classes]
    runs = len(store.runs(spec["name"]))
    _, again = sweep(path, tmp_path / "store")
    assert again.configurations_done == 0 and again.runs_written == 0
    assert again.evidence is not None and again.evidence.stop
    assert [c.pick for c in again.evidence.classes] == [c.pick for c in decision.classes]
    assert len(store.runs(spec["name"])) == runs
