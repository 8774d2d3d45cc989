"""How well each cell's repetitions agree: spread, interval, outliers, steady state."""

from __future__ import annotations

import pandas as pd

from sweeper.repetitions import AGREEMENT_CV_PCT, summarize

COLUMNS = [
    "config_key",
    "cell_key",
    "n",
    "mean",
    "sd",
    "cv_pct",
    "ci_lo",
    "ci_hi",
    "outlier_repetitions",
    "unsteady_repetitions",
    "steady_judged",
]


def cell_statistics(runs: pd.DataFrame, metric: str = "iops") -> pd.DataFrame:
    """One row per configuration and cell over its stored repetitions of ``metric``."""
    rows = []
    for (config_key, cell_key), grp in runs.groupby(["config_key", "cell_key"], sort=True):
        grp = grp.sort_values("repetition")
        values = grp[metric].astype(float).dropna()
        if values.empty:
            continue
        s = summarize(values.to_numpy())
        reps = grp.loc[values.index, "repetition"].to_numpy()
        steady = grp["steady"] if "steady" in grp else pd.Series(None, index=grp.index)
        unsteady = grp.loc[steady == False, "repetition"]  # noqa: E712
        rows.append(
            {
                "config_key": config_key,
                "cell_key": cell_key,
                "n": s.n,
                "mean": s.mean,
                "sd": s.sd,
                "cv_pct": s.cv_pct,
                "ci_lo": s.ci_lo,
                "ci_hi": s.ci_hi,
                "outlier_repetitions": [int(reps[i]) for i in s.outliers],
                "unsteady_repetitions": [int(r) for r in unsteady],
                # runs whose steady state was judged (None: no per-second log to judge by)
                "steady_judged": int(steady.notna().sum()),
            }
        )
    return pd.DataFrame(rows, columns=COLUMNS)


def repeatability_summary(
    stats: pd.DataFrame, cv_limit_pct: float = AGREEMENT_CV_PCT
) -> dict[str, object]:
    """The few figures a reader checks first, and the cells that need a look."""
    if stats.empty:
        return {"cells": 0}
    # a cell of one repetition has no spread to judge: counted apart, never a CV of 0 or NaN
    spread = stats[stats["n"] >= 2]
    flagged = stats[
        (stats["cv_pct"] > cv_limit_pct)
        | stats["outlier_repetitions"].map(bool)
        | stats["unsteady_repetitions"].map(bool)
    ]
    return {
        "cells": int(len(stats)),
        "cells_with_spread": int(len(spread)),
        "median_cv_pct": (round(float(spread["cv_pct"].median()), 2) if len(spread) else None),
        "cv_limit_pct": cv_limit_pct,
        "cells_above_cv_limit": int((stats["cv_pct"] > cv_limit_pct).sum()),
        "cells_with_outliers": int(stats["outlier_repetitions"].map(bool).sum()),
        "cells_with_unsteady_runs": int(stats["unsteady_repetitions"].map(bool).sum()),
        # a cell none of whose runs was judged is neither steady nor unsteady: said apart
        "cells_steady_not_judged": int((stats["steady_judged"] == 0).sum()),
        "flagged": [
            {
                "configuration": r.config_key,
                "cell": r.cell_key,
                "n": int(r.n),
                "cv_pct": None if pd.isna(r.cv_pct) else round(float(r.cv_pct), 2),
                "outlier_repetitions": r.outlier_repetitions,
                "unsteady_repetitions": r.unsteady_repetitions,
            }
            for r in flagged.itertuples()
        ],
    }
