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
autoregressive errors (feasible GLS, iterated Prais–Winsten: Cochrane–Orcutt's transform of
each run against the one before, ``y_t − ρ y_{t−1}``, with the first run kept, scaled by
``√(1 − ρ²)``), which holds that to about one in ten at 48 runs; ``autocorrelation`` is the
estimated correlation of one run's residual with the next. Every run is in the fit: the
first is often the one a cache filling makes different, and Cochrane–Orcutt alone (statsmodels'
``GLSAR``) drops it, so a drop after the first run did not show in the slope beside it. Below
``MIN_RUNS_AR`` runs the correlation cannot be estimated and the fit is ordinary least
squares.
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
            found = _prais_winsten(iops, x)
            if found is not None:
                fit, rho = found
                return _figures(fit) + (rho,)
        fit = sm.OLS(iops, x).fit()
    return _figures(fit) + (float("nan"),)


def _prais_winsten(
    y: np.ndarray, x: np.ndarray, iterations: int = 50
) -> tuple[object, float] | None:
    """Least squares on every run transformed by the residuals' lag-1 correlation ``ρ``
    (re-estimated from the untransformed residuals until it settles); None where ``ρ`` is
    not below 1 in size or the interval is not finite."""
    import statsmodels.api as sm

    beta = sm.OLS(y, x).fit().params
    rho, fit = 0.0, None
    for _ in range(iterations):
        e = y - x @ beta
        lagged = float(np.dot(e[:-1], e[:-1]))
        new = float(np.dot(e[1:], e[:-1]) / lagged) if lagged > 0 else 0.0
        if not abs(new) < 1:
            return None
        head = math.sqrt(1 - new * new)
        ys = np.concatenate([[head * y[0]], y[1:] - new * y[:-1]])
        xs = np.vstack([head * x[:1], x[1:] - new * x[:-1]])
        fit = sm.OLS(ys, xs).fit()
        beta = fit.params
        settled = abs(new - rho) < 1e-6
        rho = new
        if settled:
            break
    if fit is None or not all(map(math.isfinite, fit.conf_int()[1])):
        return None
    return fit, rho


def _figures(fit: object) -> tuple[float, float, float, float]:
    lo, hi = fit.conf_int(alpha=0.05)[1]  # type: ignore[attr-defined]
    return float(fit.params[1]), float(lo), float(hi), float(fit.pvalues[1])  # type: ignore[attr-defined]
