"""Long-run drift: the slope of IOPS over time, with its interval, per configuration."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recommender.drift import array_hours, drift_table

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


def _autoregressive(rng: np.random.Generator, n: int, phi: float) -> np.ndarray:
    """A steady device's IOPS whose runs correlate ``phi`` with the run before (AR(1))."""
    noise = rng.normal(0, 1, n)
    state = np.empty(n)
    state[0] = noise[0] / np.sqrt(1 - phi**2)
    for i in range(1, n):
        state[i] = phi * state[i - 1] + noise[i]
    return 10_000 + 150 * state


def test_runs_that_follow_each_other_are_no_drift_by_themselves() -> None:
    # A steady device whose runs carry state into the next (correlation 0.6): least squares
    # named a drift in about a third of such 48-run tests; the autoregressive fit in about
    # one in ten, and it estimates the correlation.
    rng = np.random.default_rng(2026)
    rows = [drift_table(_runs(_autoregressive(rng, 48, 0.6)), CELL).iloc[0] for _ in range(200)]
    named = sum(bool(r["drifts"]) for r in rows)
    assert named / 200 < 0.16, named
    assert 0.35 < np.median([r["autocorrelation"] for r in rows]) < 0.75


def test_a_real_drift_still_shows_through_correlated_runs() -> None:
    rng = np.random.default_rng(3)
    hours = np.arange(48) * 10 / 60
    iops = _autoregressive(rng, 48, 0.6) * (1 - 0.01 * hours)  # loses 1 % an hour
    (row,) = drift_table(_runs(iops), CELL).itertuples()
    assert row.drifts and row.slope_hi < 0
    assert row.slope_lo < -1.0 < row.slope_hi


def test_identical_runs_are_flat() -> None:
    (row,) = drift_table(_runs(np.full(12, 5_000.0)), CELL).itertuples()
    assert not row.drifts and row.slope_pct_per_h == 0 and np.isnan(row.autocorrelation)


def test_the_clock_is_the_arrays() -> None:
    # Real storage: runs of 60 s, 10 minutes apart (idle gaps count). Simulated: runs of
    # 60 s answered 5 ms apart, which follow each other a minute apart on the array.
    real = _runs(np.full(4, 1_000.0)).assign(array_time_s=60.0)
    assert array_hours(real).tolist() == pytest.approx([0, 1 / 6, 2 / 6, 3 / 6])
    simulated = _runs(np.full(4, 1_000.0), minutes=0.005 / 60).assign(array_time_s=60.0)
    assert array_hours(simulated).tolist() == pytest.approx([0, 1 / 60, 2 / 60, 3 / 60])


def test_every_run_is_in_the_fit_the_first_too() -> None:
    """A first run a clean cache made faster, then a flat series: the slope beside "10,692
    → 6,795" must feel the first run (Cochrane–Orcutt alone dropped it: +0.1 %/h)."""
    rng = np.random.default_rng(5)
    iops = np.concatenate([[10_692.0], 6_800 + rng.normal(0, 80, 23)])
    (row,) = drift_table(_runs(iops), CELL).itertuples()
    assert row.runs == 24 and row.first_iops == 10_692.0
    assert row.slope_pct_per_h < -2.0
    without_first = drift_table(_runs(iops[1:]), CELL).iloc[0]
    assert abs(without_first["slope_pct_per_h"]) < 1.0
