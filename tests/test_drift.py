"""Long-run drift: the slope of IOPS over time, with its interval, per configuration."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recommender.drift import drift_table

CELL = "randwrite/4k/qd1x16"


def _runs(iops: np.ndarray, minutes: float = 10.0) -> pd.DataFrame:
    start = pd.Timestamp("2026-01-01", tz="UTC")
    return pd.DataFrame(
        {
            "config_key": "raid5/single_rank/wb-ra",
            "cell_key": CELL,
            "iops": iops,
            "started_at": [start + pd.Timedelta(minutes=minutes * i) for i in range(len(iops))],
        }
    )


def test_a_settling_device_drifts_by_its_slope() -> None:
    rng = np.random.default_rng(7)
    hours = np.arange(48) * 10 / 60
    iops = 10_000 * (1 - 0.02 * hours) + rng.normal(0, 50, 48)  # loses 2 % of 10k per hour
    (row,) = drift_table(_runs(iops), CELL).itertuples()
    assert row.drifts and row.runs == 48 and row.hours == pytest.approx(47 * 10 / 60)
    slope_iops_per_h = -200.0
    assert row.slope_pct_per_h == pytest.approx(slope_iops_per_h * 100 / row.mean_iops, rel=0.1)
    assert row.slope_lo < row.slope_pct_per_h < row.slope_hi < 0


def test_noise_alone_is_no_drift() -> None:
    rng = np.random.default_rng(11)
    (row,) = drift_table(_runs(10_000 + rng.normal(0, 100, 48)), CELL).itertuples()
    assert not row.drifts and row.slope_lo < 0 < row.slope_hi


def test_fewer_than_three_runs_give_no_row() -> None:
    assert drift_table(_runs(np.array([1.0, 2.0])), CELL).empty
