"""Acceptance gates judged on runs made here (``recommender.acceptance.judge``): a class
score gate judges the class's score, never one over the cells a sweep happened to measure; a
baseline gate compares what both sweeps measured, as ``compare`` does, and says so; the
figures are written with the decimals that tell them from the bound."""

from __future__ import annotations

import pandas as pd
import pytest

from recommender.acceptance import (
    FAIL,
    PASS,
    UNDECIDED,
    AcceptanceError,
    SweepRuns,
    judge,
    measured_text,
)
from recommender.classes import WorkloadClass
from sweeper.spec.acceptance import Acceptance

CONFIG = "raid10/host_stripe/ranks4/stripe16k/wb-ra"
READ, MIX = "randread/8k/qd1x16", "randrw70/8k/qd1x16"
DATA_FILE = WorkloadClass.model_validate(
    {"name": "data_file", "cells": [{"cell": READ, "weight": 4}, {"cell": MIX, "weight": 2}]}
)


def _runs(figures: dict[str, list[float]], config: str = CONFIG) -> pd.DataFrame:
    rows = [
        {
            "config_key": config,
            "cell_key": cell,
            "repetition": r,
            "iops": v,
            "mbps": v * 8192 / 1e6,
            "read_lat_p99_ms": 2.0,
        }
        for cell, values in figures.items()
        for r, v in enumerate(values, 1)
    ]
    return pd.DataFrame(rows)


def _acceptance(**block: object) -> Acceptance:
    return Acceptance.model_validate(block)


def test_a_class_gate_without_every_class_cell_is_undecided_and_names_them() -> None:
    """Reads alone at 49,000: a score of the reads alone would pass 45,000, the class's
    score (its mixed cell weighs 2 of 6) is not known."""
    new = SweepRuns("new", _runs({READ: [48_900.0, 49_000.0, 49_100.0]}))
    gates = {"gates": [{"class": "data_file", "min_iops": 45_000}]}
    verdict = judge(_acceptance(**gates), new, [DATA_FILE])
    (check,) = verdict.checks
    assert check.verdict == UNDECIDED and verdict.verdict == UNDECIDED
    assert f"on 1 of the class's 2 cells measured: {MIX} (weight 2 of 6) not" in check.note
    whole = SweepRuns("whole", _runs({READ: [48_900.0, 49_000.0, 49_100.0], MIX: [30_000.0] * 3}))
    (check,) = judge(_acceptance(**gates), whole, [DATA_FILE]).checks
    assert check.verdict == FAIL and check.note == ""  # (49,000⁴ 30,000²)^(1/6) < 45,000


def test_a_class_latency_bound_on_a_cell_not_measured_is_undecided() -> None:
    new = SweepRuns("new", _runs({READ: [48_900.0, 49_000.0, 49_100.0]}))
    gates = {"gates": [{"class": "data_file", "max_latency": {"read_lat_p99": "5ms"}}]}
    checks = judge(_acceptance(**gates), new, [DATA_FILE]).checks
    assert [(c.target.split(" · cell ")[-1], c.verdict) for c in checks] == [
        (READ, PASS),
        (MIX, UNDECIDED),
    ]
    assert "not measured" in checks[1].note


def test_a_baseline_gate_compares_the_cells_both_sweeps_measured_and_says_so() -> None:
    """The old sweep measured reads alone; the new one reads and mixes. Against the
    baseline the reads are compared (what compare does), not a two-cell score against a
    one-cell one (which read 78% of baseline where nothing changed)."""
    old = SweepRuns("old", _runs({READ: [49_000.0, 49_200.0, 48_800.0]}))
    new = SweepRuns(
        "new", _runs({READ: [49_100.0, 48_900.0, 49_000.0], MIX: [30_000.0, 30_100.0, 29_900.0]})
    )
    block = {
        "configuration": CONFIG,
        "baseline": {"sweep": "old", "tolerance_pct": 2.5},
        "gates": [{"class": "data_file", "min_iops": "baseline"}],
    }
    (check,) = judge(_acceptance(**block), new, [DATA_FILE], old).checks
    assert check.measured == pytest.approx(1.0, abs=0.01)
    assert check.verdict == PASS
    assert f"on 1 of the class's 2 cells measured by both sweeps: {MIX}" in check.note
    assert check.required.startswith("≥ 97.5% of baseline") and "e+" not in check.required
    assert "(49,000 IOPS)" in check.required


def test_a_measured_figure_is_written_apart_from_its_bound() -> None:
    """3,007.52 on every run against a minimum of 3,007.6: it fails, and reads 3,007.5, not
    3,008 (which would seem to clear the bound)."""
    cell = "read/256k/qd1x64"
    new = SweepRuns("new", _runs({cell: [3007.52, 3007.52, 3007.52]}))
    (check,) = judge(
        _acceptance(gates=[{"cell": cell, "min_iops": 3007.6}]), new, [DATA_FILE]
    ).checks
    assert check.verdict == FAIL
    assert measured_text(check) == "3,007.5 (3,007.5 … 3,007.5) IOPS"


def test_a_baseline_configuration_missing_names_the_baseline_field() -> None:
    old = SweepRuns(
        "old",
        pd.concat([_runs({READ: [1.0, 2.0]}, "a/single_rank/wb-ra"), _runs({READ: [1.0, 2.0]})]),
    )
    new = SweepRuns("new", _runs({READ: [1.0, 2.0]}))
    block = {
        "configuration": CONFIG,
        "baseline": {"sweep": "old"},
        "gates": [{"cell": READ, "min_iops": "baseline"}],
    }
    with pytest.raises(AcceptanceError) as caught:
        judge(_acceptance(**block), new, [DATA_FILE], old)
    assert "name acceptance.baseline.configuration" in str(caught.value)
