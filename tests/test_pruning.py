"""Pruning's pure parts: the optimistic bound and the separating cell order."""

from __future__ import annotations

import pandas as pd
import pytest

from recommender.classes import ClassCell, WorkloadClass
from sweeper.pruning import best_possible, prune_reason, separating_order

A, B = "randread/8k/qd1x16", "write/64k/qd1x1"


def _runs(rows: list[tuple[str, str, int, float]]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=["config_key", "cell_key", "repetition", "iops"])
    return df.assign(read_lat_p99_ms=1.0, write_lat_p99_ms=1.0, mbps=df["iops"] / 100)


def _class() -> WorkloadClass:
    return WorkloadClass(
        name="c",
        description="two cells",
        metric="iops",
        cells=[ClassCell(cell=A, weight=3), ClassCell(cell=B, weight=1)],
    )


def test_bound_takes_the_best_seen_for_cells_not_measured_yet() -> None:
    others = _runs([("x", A, 1, 100.0), ("x", B, 1, 10.0), ("y", A, 1, 50.0), ("y", B, 1, 40.0)])
    mine = _runs([("z", A, 1, 20.0), ("z", A, 2, 30.0)])
    # A at its best repetition (30), B at the best mean seen (40): (30³·40)^(1/4)
    assert best_possible(mine, others, _class()) == pytest.approx((30**3 * 40) ** 0.25)
    assert best_possible(mine, others.iloc[:0], _class()) is None


def test_prune_only_below_the_best_lower_bound() -> None:
    others = _runs([("x", c, r, v) for r, v in ((1, 100.0), (2, 101.0)) for c in (A, B)])
    weak = _runs([("z", A, 1, 10.0)])
    strong = _runs([("z", A, 1, 200.0)])
    assert "at most" in (prune_reason(weak, others, [_class()]) or "")
    assert prune_reason(strong, others, [_class()]) is None


def test_cells_that_separate_most_come_first() -> None:
    others = _runs([("x", A, 1, 100.0), ("y", A, 1, 10.0), ("x", B, 1, 50.0), ("y", B, 1, 45.0)])
    assert separating_order([B, A, "read/1m/qd1x1"], others, {}) == [A, B, "read/1m/qd1x1"]
