"""Long-run drift: does one cell, repeated back to back for hours, hold its figure?

Per configuration, IOPS is regressed on the time each run started (ordinary least squares);
the slope is shown in % of the mean per hour with its 95% interval. A drift is reported when
that interval excludes zero: the device is still settling (flash garbage collection, a cache
filling, thermal throttling) and short runs would misstate it.
"""

from __future__ import annotations

import pandas as pd
from scipy import stats

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
    "drifts",
]


def drift_table(runs: pd.DataFrame, cell_key: str) -> pd.DataFrame:
    """One row per configuration for the runs of ``cell_key``."""
    mine = runs[runs["cell_key"] == cell_key]
    rows = []
    for config_key, grp in mine.groupby("config_key", sort=True):
        grp = grp.sort_values("started_at")
        if len(grp) < 3:
            continue
        start = grp["started_at"].iloc[0]
        hours = (grp["started_at"] - start).dt.total_seconds().to_numpy() / 3600
        iops = grp["iops"].astype(float).to_numpy()
        mean = float(iops.mean())
        fit = stats.linregress(hours, iops)
        half = float(stats.t.ppf(0.975, len(iops) - 2)) * float(fit.stderr)
        scale = 100 / mean if mean else float("nan")
        lo, hi = (fit.slope - half) * scale, (fit.slope + half) * scale
        rows.append(
            {
                "config_key": config_key,
                "runs": int(len(grp)),
                "hours": float(hours[-1]),
                "first_iops": float(iops[0]),
                "last_iops": float(iops[-1]),
                "mean_iops": mean,
                "slope_pct_per_h": float(fit.slope) * scale,
                "slope_lo": lo,
                "slope_hi": hi,
                "p_value": float(fit.pvalue),
                "drifts": bool(lo > 0 or hi < 0),
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)
