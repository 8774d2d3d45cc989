"""Stopping by evidence (sweeper/sweep/stopping.py) on synthetic score tables: a clear winner
stops early, a flat or structureless landscape does not stop before it has evidence."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from sweeper.configuration import Configuration
from sweeper.spec import load_spec
from sweeper.sweep.stopping import judge, predictions
from tests.support.landscape import SPACE, sample, smooth, table
from tests.support.specs import problems_of, quick_spec, write_spec


def decide(measured: list[Configuration], score=smooth, **kw: float) -> object:
    scores = {c.key: score(c) for c in measured}
    return judge(
        table(scores),
        SPACE,
        set(),
        ["redo_log"],
        measured=len(measured),
        within_pct=kw.get("within_pct", 3.0),
        confidence=kw.get("confidence", 0.95),
    )


def test_a_clear_winner_stops_early_and_its_pick_is_the_true_best() -> None:
    best = max(SPACE, key=smooth)
    measured = sample(30, seed=1)
    if best not in measured:
        measured.append(best)
    decision = decide(measured)
    (ev,) = decision.classes
    assert decision.stop, ev
    assert ev.pick == best.key and ev.confidence >= 0.95 and ev.unsure is None
    assert len(measured) < len(SPACE) / 3  # early: a third of the space or less


def test_a_winner_not_yet_measured_keeps_the_sweep_going() -> None:
    best = max(SPACE, key=smooth)
    # the measured part of the space is all RAID 5 / 6 plus one weak RAID 10 point
    measured = [c for c in sample(40, seed=2) if c.raid_level != "raid10"]
    weak = min((c for c in SPACE if c.raid_level == "raid10"), key=smooth)
    decision = decide([*measured, weak])
    (ev,) = decision.classes
    assert not decision.stop
    assert ev.p_beaten > 0.05 and ev.pick != best.key
    # what the sweep measures next: an unmeasured RAID 10 configuration
    assert ev.threat is not None and ev.threat.startswith("raid10/") and ev.p_threat > 0.5
    assert ev.threat not in {c.key for c in measured}


def test_too_little_evidence_is_never_judged() -> None:
    measured = SPACE[:3]
    decision = decide(measured, score=lambda c: 1000.0)  # flat: every configuration alike
    (ev,) = decision.classes
    assert not decision.stop and not ev.confident
    assert ev.unsure and "not yet measured" in ev.unsure


def test_a_landscape_without_structure_does_not_stop() -> None:
    rng = np.random.default_rng(3)
    noise = {c.key: float(math.exp(rng.normal(0, 0.3))) for c in SPACE}
    decision = decide(sample(25, seed=3), score=lambda c: 1000.0 * noise[c.key])
    assert not decision.stop
    assert decision.classes[0].confidence < 0.95


def test_stop_needs_every_class_confident() -> None:
    measured = sample(30, seed=1) + [max(SPACE, key=smooth)]
    rng = np.random.default_rng(4)
    noise = {c.key: float(math.exp(rng.normal(0, 0.3))) for c in SPACE}
    ranked = pd.concat(
        [
            table({c.key: smooth(c) for c in measured}, "redo_log"),
            table({c.key: 1000 * noise[c.key] for c in measured}, "data_file"),
        ]
    )
    decision = judge(
        ranked,
        SPACE,
        set(),
        ["redo_log", "data_file"],
        measured=len(measured),
        within_pct=3.0,
        confidence=0.95,
    )
    confident = {e.name: e.confident for e in decision.classes}
    assert confident == {"redo_log": True, "data_file": False} and not decision.stop
    assert decision.record()["classes"][1]["name"] == "data_file"


def test_predictions_are_only_for_unmeasured_configurations_and_marked() -> None:
    measured = sample(30, seed=1)
    scores = {c.key: smooth(c) for c in measured}
    out = predictions(table(scores), SPACE, ["redo_log"])
    assert set(out["kind"]) == {"predicted"}
    assert set(out["config_key"]).isdisjoint(scores)
    assert len(out) == len(SPACE) - len(measured)
    assert (out["predicted_lo"] <= out["predicted"]).all()
    assert (out["predicted"] <= out["predicted_hi"]).all()
    # the structure is learnt: the true scores mostly fall inside the 95% intervals
    truth = out["config_key"].map({c.key: smooth(c) for c in SPACE})
    inside = ((truth >= out["predicted_lo"]) & (truth <= out["predicted_hi"])).mean()
    assert inside >= 0.8


@pytest.mark.parametrize("within_pct", [3.0, 10.0])
def test_a_wider_tolerance_is_never_less_sure(within_pct: float) -> None:
    measured = sample(20, seed=5)
    narrow = decide(measured, within_pct=1.0).classes[0]
    wide = decide(measured, within_pct=within_pct).classes[0]
    assert wide.confidence >= narrow.confidence


def test_the_stop_rule_is_off_by_default_and_leaves_fingerprints_alone(tmp_path: Path) -> None:
    plain = quick_spec(study={"mode": "optimize", "budget": 5})
    spec, _ = load_spec(write_spec(tmp_path, plain, "plain"))
    assert spec.study.stop is None
    with_stop = quick_spec(study={"mode": "optimize", "budget": 5, "stop": True})
    stopping, _ = load_spec(write_spec(tmp_path, with_stop, "stop"))
    assert stopping.study.stop is not None and stopping.study.stop.within_pct == 3.0
    assert stopping.study.stop.confidence == 0.95
    assert stopping.fingerprint() != spec.fingerprint()
    # a spec written before the option existed keeps its fingerprint (and its stored sweep)
    off = quick_spec(study={"mode": "optimize", "budget": 5, "stop": False})
    assert load_spec(write_spec(tmp_path, off, "off"))[0].fingerprint() == spec.fingerprint()
    grid = write_spec(tmp_path, quick_spec(study={"mode": "grid", "stop": True}), "grid")
    assert any("stop" in p and "optimize" in p for p in problems_of(grid))
    bad = quick_spec(study={"mode": "optimize", "stop": {"confidence": 1.0}})
    assert any("study.stop.confidence" in p for p in problems_of(write_spec(tmp_path, bad, "b")))
