"""Long-run drift: does one cell, repeated back to back for hours, hold its figure?

Per configuration, IOPS is regressed on the time each run started; the slope is shown in % of
the mean per hour with its 95% interval. A drift is reported when that interval excludes zero:
the device is still settling (flash garbage collection, a cache filling, thermal throttling)
and short runs would misstate it.

Runs back to back are not independent draws: a device's state carries from one run into the
next (a cache's fill, garbage collection in cycles), so a run above the line tends to be
followed by another. Ordinary least squares takes each run as new evidence and its interval
comes out too narrow: on a steady device whose runs correlate 0.6 with the one before, it
reported a drift in 33% of 48-run tests, not 5%. The slope is therefore fitted with first-order
autoregressive errors (feasible GLS, iterated Cochrane–Orcutt: statsmodels' ``GLSAR``), which
holds that to 11% at 48 runs and 7% at 300 (5–6% for independent runs); ``autocorrelation``
is the estimated correlation of one run's residual with the next. Below ``MIN_RUNS_AR`` runs
the correlation cannot be estimated and the fit is ordinary least squares.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd

COLUMNS = [
    "config_key",
    "runs",
    "hours",
    "first_iops",
    "last_iops",
    "mean_iops",
    "slope_pct_per_h",
    "slope_lo",
    "slope_hi",
    "p_value",
    "autocorrelation",
    "drifts",
]

#: the fewest runs from which the runs' autocorrelation is estimated
MIN_RUNS_AR = 10


def drift_table(runs: pd.DataFrame, cell_key: str) -> pd.DataFrame:
    """One row per configuration for the runs of ``cell_key``."""
    mine = runs[runs["cell_key"] == cell_key]
    rows = []
    for config_key, grp in mine.groupby("config_key", sort=True):
        grp = grp.sort_values("started_at")
        if len(grp) < 3:
            continue
        hours = array_hours(grp)
        iops = grp["iops"].astype(float).to_numpy()
        mean = float(iops.mean())
        slope, lo, hi, p_value, rho = _fit(hours, iops)
        scale = 100 / mean if mean else float("nan")
        rows.append(
            {
                "config_key": config_key,
                "runs": int(len(grp)),
                "hours": float(hours[-1]),
                "first_iops": float(iops[0]),
                "last_iops": float(iops[-1]),
                "mean_iops": mean,
                "slope_pct_per_h": slope * scale,
                "slope_lo": lo * scale,
                "slope_hi": hi * scale,
                "p_value": p_value,
                "autocorrelation": rho,
                "drifts": bool(lo > 0 or hi < 0),
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def array_hours(runs: pd.DataFrame) -> np.ndarray:
    """Each run's start in hours from the first, on the array's clock: the wall-clock gap
    between two runs, but never less than the earlier run's own array time (a run cannot
    start before the one before it has finished). On real storage that is the wall clock,
    idle gaps included; a simulated array answers a run of minutes in milliseconds, and its
    runs follow each other at the pace they model."""
    wall = runs["started_at"].diff().dt.total_seconds().fillna(0.0).to_numpy()
    if "array_time_s" in runs:
        took = runs["array_time_s"].astype(float).fillna(0.0).shift(1, fill_value=0.0)
        wall = np.maximum(wall, took.to_numpy())
    return np.cumsum(wall) / 3600


def _fit(hours: np.ndarray, iops: np.ndarray) -> tuple[float, float, float, float, float]:
    """Slope of ``iops`` on ``hours`` (IOPS per hour), its 95% interval, its p-value and the
    residuals' lag-1 autocorrelation (NaN where it is not estimated)."""
    import statsmodels.api as sm

    if np.ptp(iops) == 0:
        return 0.0, 0.0, 0.0, 1.0, float("nan")  # identical runs: flat, nothing to estimate
    x = sm.add_constant(hours, has_constant="add")
    with warnings.catch_warnings():
        # runs exactly on a line leave no residual spread to divide by: the interval is the slope
        warnings.simplefilter("ignore", RuntimeWarning)
        if len(iops) >= MIN_RUNS_AR:
            fit = sm.GLSAR(iops, x, rho=1).iterative_fit(maxiter=20)
            rho = float(fit.model.rho[0])
            if abs(rho) < 1 and all(map(math.isfinite, fit.conf_int()[1])):
                return _figures(fit) + (rho,)
        fit = sm.OLS(iops, x).fit()
    return _figures(fit) + (float("nan"),)


def _figures(fit: object) -> tuple[float, float, float, float]:
    lo, hi = fit.conf_int(alpha=0.05)[1]  # type: ignore[attr-defined]
    return float(fit.params[1]), float(lo), float(hi), float(fit.pvalues[1])  # type: ignore[attr-defined]
