"""Scores per configuration and workload class, with spread, limits and tie-aware ranks.

Score of configuration k for class c at repetition r:

    S_kr = exp( Σ_i w_i · ln m_ikr / Σ_i w_i )

the weighted geometric mean of the class metric m (IOPS or MB/s) over the class's cells i;
repetitions are aligned by number. The score shown is the mean of S_kr over repetitions with a
95% Student-t interval. A geometric mean keeps every cell's relative change equally visible
whatever its absolute size (4k IOPS and 64k IOPS differ by an order of magnitude).

Rank of k = 1 + the number of configurations whose interval lies wholly above k's; so
configurations whose intervals overlap share a rank (a tie). Configurations measured on fewer
of the class's cells than others (stopped early by pruning, or still running) are ranked after
all measured on every cell, since a score over a subset of cells is not comparable; and
configurations that break a service-level limit in any cell after all that keep them.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from scipy import stats

from recommender.classes import WorkloadClass

FORMULA = (
    "score = weighted geometric mean of the class metric over its cells, "
    "exp(Σ wᵢ·ln mᵢ / Σ wᵢ), per repetition; shown as mean ± 95% t-interval; "
    "ranks are shared where intervals overlap; a configuration measured on fewer of the "
    "class's cells (pruned) ranks after those measured on all; a broken service-level limit "
    "ranks last"
)
RANK_COLUMNS = [
    "class", "rank", "tied", "config_key", "score", "score_lo", "score_hi", "cv_pct",
    "repetitions", "cells_measured", "cells_missing", "meets_limits", "violations",
    "key_cell", "key_value", "worst_latency", "unsteady_runs",
]  # fmt: skip


def cell_metric(runs: pd.DataFrame, metric: str) -> pd.Series:
    """Per run, the class metric: total IOPS or total MB/s over both directions."""
    return runs[metric].astype(float)


def mean_ci(values: np.ndarray, level: float = 0.95) -> tuple[float, float, float, float]:
    """Mean, lower, upper bound of a t-interval, and standard deviation."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    mean = float(values.mean())
    if n < 2:
        return mean, mean, mean, 0.0
    sd = float(values.std(ddof=1))
    half = float(stats.t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    return mean, mean - half, mean + half, sd


def score_class(runs: pd.DataFrame, wclass: WorkloadClass) -> pd.DataFrame:
    """One row per configuration: score, interval, limits and evidence for ``wclass``."""
    weights = {c.cell: c.weight for c in wclass.cells}
    # A class cell without an active range means the whole working set: ws100 where the
    # matrix sweeps active ranges.
    runs = runs.assign(cell_key=runs["cell_key"].str.replace(r"/ws100$", "", regex=True))
    mine = runs[runs["cell_key"].isin(weights)]
    rows = []
    for config_key, grp in mine.groupby("config_key", sort=True):
        measured = sorted(set(grp["cell_key"]))
        missing = [c for c in wclass.cell_keys if c not in measured]
        values = grp.assign(m=cell_metric(grp, wclass.metric)).pivot_table(
            index="repetition", columns="cell_key", values="m", aggfunc="mean"
        )
        w = np.array([weights[c] for c in values.columns])
        logv = np.log(values.clip(lower=1e-9).to_numpy())
        complete = ~np.isnan(logv).any(axis=1)
        if complete.any():
            per_rep = np.exp((logv[complete] * w).sum(axis=1) / w.sum())
        else:  # no repetition has every cell: score the cell means
            per_rep = np.array([np.exp((np.nanmean(logv, axis=0) * w).sum() / w.sum())])
        score, lo, hi, sd = mean_ci(per_rep)
        violations, worst = _limits(grp, wclass)
        key_cell = max(wclass.cells, key=lambda c: c.weight).cell
        key_vals = grp.loc[grp["cell_key"] == key_cell, wclass.metric]
        rows.append(
            {
                "class": wclass.name,
                "config_key": config_key,
                "score": score,
                "score_lo": lo,
                "score_hi": hi,
                "cv_pct": 100 * sd / score if score else 0.0,
                "repetitions": int(len(per_rep)),
                "cells_measured": len(measured),
                "cells_missing": ", ".join(missing),
                "meets_limits": not violations,
                "violations": "; ".join(violations),
                "key_cell": key_cell,
                "key_value": float(key_vals.mean()) if len(key_vals) else float("nan"),
                "worst_latency": worst,
                # Runs the SNIA PTS rule found not steady: counted in, and shown, never hidden.
                "unsteady_runs": int((grp["steady"] == False).sum())  # noqa: E712
                if "steady" in grp
                else 0,
            }
        )
    df = pd.DataFrame(rows, columns=[c for c in RANK_COLUMNS if c not in ("rank", "tied")])
    return df


def _limits(grp: pd.DataFrame, wclass: WorkloadClass) -> tuple[list[str], str]:
    """Limits broken (naming the cell) and the worst figure against each limit."""
    violations, worst = [], []
    means = grp.groupby("cell_key").mean(numeric_only=True)
    for limit in wclass.limits:
        col = limit.column
        if col not in means:
            continue
        vals = means[col].dropna()
        if limit.cells is not None:
            vals = vals[vals.index.isin(limit.cells)]
        if vals.empty:
            continue
        cell = vals.idxmax()
        worst.append(f"{limit.metric} {vals[cell]:.2f} ms ({cell})")
        for c, v in vals.items():
            if v > limit.max_ms:
                violations.append(f"{c}: {limit.metric} {v:.2f} ms > {limit.max}")
    return violations, "; ".join(worst)


def rank(scored: pd.DataFrame) -> pd.DataFrame:
    """Add ``rank`` and ``tied``; sort best first: limit keepers measured on every cell, then
    keepers measured on fewer cells, then limit breakers."""
    if scored.empty:
        return scored.assign(rank=pd.Series(dtype=int), tied=pd.Series(dtype=bool))[RANK_COLUMNS]
    out = []
    offset = 0
    # "Every cell" is relative: a cell no configuration has is missing for all alike.
    complete = scored["cells_measured"] == scored["cells_measured"].max()
    keeps = scored["meets_limits"].astype(bool)
    for tier in (keeps & complete, keeps & ~complete, ~keeps):
        part = scored[tier].copy()
        if part.empty:
            continue  # an empty part would turn the rank column into floats
        lo = part["score_lo"].to_numpy()
        hi = part["score_hi"].to_numpy()
        part["rank"] = [offset + 1 + int((lo > h).sum()) for h in hi]
        offset += len(part)
        out.append(part)
    ranked = pd.concat(out, ignore_index=True)
    ranked["tied"] = ranked.duplicated("rank", keep=False)
    ranked = ranked.sort_values(["rank", "score"], ascending=[True, False], kind="stable")
    return ranked[RANK_COLUMNS].reset_index(drop=True)


def rank_classes(runs: pd.DataFrame, classes: list[WorkloadClass]) -> pd.DataFrame:
    """Ranked table for every class, stacked."""
    frames = [rank(score_class(runs, c)) for c in classes]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame(columns=RANK_COLUMNS)
    return pd.concat(frames, ignore_index=True)


def objective_values(runs: pd.DataFrame, classes: list[WorkloadClass]) -> list[float] | None:
    """Per-class mean score of the runs of one configuration (the study's objectives)."""
    values = []
    for c in classes:
        s = score_class(runs, c)
        if s.empty:
            return None
        values.append(float(s["score"].iloc[0]))
    return values
