"""Scores per configuration and workload class, with spread, limits and tie-aware ranks.

Score of configuration k for class c at repetition r:

    S_kr = exp( Σ_i w_i · ln m_ikr / Σ_i w_i )

the weighted geometric mean of the class metric m (IOPS or MB/s) over the class's cells i;
repetitions are aligned by number. The score shown is the mean of S_kr over repetitions with a
95% Student-t interval on its logarithm (``sweeper.repetitions.mean_bounds``: a positive score's
interval never reaches zero). A geometric mean keeps every cell's relative change equally visible
whatever its absolute size (4k IOPS and 64k IOPS differ by an order of magnitude).

Ranks are competition ranks (1, =1, =1, 4) over the configurations in order of mean score,
and the rows stay in that order: going down it, a configuration whose 95% interval overlaps the
interval of the current rank's first configuration (its *leader*) joins that rank, shown ``=N``
(tied with the configuration ranked N); one that does not leads a new rank, numbered by its
position. So every ``=N`` row's interval overlaps the row ranked N, every leader's interval
misses the leader's of the rank above, a leader's number is its row in the table, and a lower
mean never stands above a higher one (within the parts below). Configurations measured on fewer
of the class's cells than others (stopped early by pruning, or still running) are ranked after
all measured on every cell, since a score over a subset of cells is not comparable; and
configurations that break a service-level limit in any cell after all that keep them; the
numbers go on counting rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from recommender.classes import WorkloadClass
from sweeper.repetitions import mean_bounds
from sweeper.units import format_ms

FORMULA = (
    "score = weighted geometric mean of the class metric over its cells, "
    "exp(Σ wᵢ·ln mᵢ / Σ wᵢ), per repetition; shown as mean with its 95% t-interval "
    "(on the logarithm); "
    "a configuration measured on fewer of the class's cells (pruned) ranks after those "
    "measured on all; a broken service-level limit ranks last"
)
#: the columns every ranking starts with: the class, the rank and the score with its spread
SCORE_COLUMNS = [
    "class",
    "rank",
    "tied",
    "config_key",
    "score",
    "score_lo",
    "score_hi",
    "cv_pct",
    "repetitions",
]
RANK_COLUMNS = [
    *SCORE_COLUMNS,
    "cells_measured",
    "cells_missing",
    "meets_limits",
    "violations",
    "key_cell",
    "key_value",
    "worst_latency",
    "unsteady_runs",
    "flagged_runs",
]


def cell_metric(runs: pd.DataFrame, metric: str) -> pd.Series:
    """Per run, the class metric: total IOPS or total MB/s over both directions."""
    return runs[metric].astype(float)


def mean_ci(values: np.ndarray, level: float = 0.95) -> tuple[float, float, float, float]:
    """Mean, lower and upper bound of its interval (``sweeper.repetitions.mean_bounds``: on
    the logarithm for positive figures), and standard deviation."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    mean = float(values.mean())
    if n < 2:
        return mean, mean, mean, 0.0
    sd = float(values.std(ddof=1))
    lo, hi = mean_bounds(mean, sd, n, level, positive=bool((values > 0).all()))
    return mean, float(lo), float(hi), sd


@dataclass(frozen=True)
class _Scores:
    """What every figure of a class's ranking starts from: the runs of the class's cells
    (``keep``, ``mine``), which cells each configuration was measured on, and the scores (``out``:
    score, repetitions and their standard deviation, per configuration)."""

    keep: pd.Series  # per run: of one of the class's cells
    mine: pd.DataFrame
    cell_names: list[str]
    measured: pd.DataFrame
    out: pd.DataFrame
    sd: pd.Series


def _scores(runs: pd.DataFrame, wclass: WorkloadClass) -> _Scores | None:
    """The class's score per configuration, or None where no run is of its cells."""
    weights = {c.cell: c.weight for c in wclass.cells}
    # A class cell without an active range means the whole working set: ws100 where the
    # matrix sweeps active ranges.
    cells = runs["cell_key"].str.replace(r"/ws100$", "", regex=True)
    keep = cells.isin(weights)
    if not keep.any():
        return None
    limit_cols = sorted({lim.column for lim in wclass.limits} & set(runs.columns))
    mine = runs.loc[keep, ["config_key", "repetition", wclass.metric, *limit_cols]].assign(
        cell_key=cells[keep], m=cell_metric(runs.loc[keep], wclass.metric)
    )
    # (configuration, repetition) × cell: the mean metric, as the per-repetition scores need
    # (what pivot_table gives, at half its cost: rows and columns without a figure dropped).
    wide = (
        mine.groupby(["config_key", "repetition", "cell_key"])["m"]
        .mean()
        .unstack("cell_key")
        .dropna(how="all")
        .dropna(axis=1, how="all")
    )
    w = np.array([weights[c] for c in wide.columns])
    logv = np.log(wide.clip(lower=1e-9).to_numpy())
    present = ~np.isnan(logv)
    configs = wide.index.get_level_values(0)
    # The cells each configuration was measured on; a repetition counts when it has them all.
    measured = pd.DataFrame(present, index=configs).groupby(level=0).any()
    measured_rows = measured.loc[configs].to_numpy()
    complete = (present | ~measured_rows).all(axis=1)
    wsum = (measured_rows * w).sum(axis=1)
    per_rep = np.exp(np.where(present, logv, 0.0) @ w / wsum)
    reps = pd.DataFrame({"config_key": configs, "s": per_rep, "complete": complete})
    full = reps[reps["complete"]].groupby("config_key")["s"].agg(["mean", "std", "count"])
    # No repetition with every cell: score the cell means instead (one value, no spread).
    cell_means = (
        pd.DataFrame(np.where(present, logv, np.nan), index=configs).groupby(level=0).mean()
    )
    mw = measured.to_numpy() * w
    fallback = np.exp(np.nansum(cell_means.to_numpy() * w, axis=1) / mw.sum(axis=1))
    fallback = pd.Series(fallback, index=cell_means.index)
    out = pd.DataFrame(index=measured.index)
    out["score"] = full["mean"].reindex(out.index).fillna(fallback)
    out["repetitions"] = full["count"].reindex(out.index).fillna(1).astype(int)
    sd = full["std"].reindex(out.index).fillna(0.0)
    return _Scores(keep, mine, list(wide.columns), measured, out, sd)


def score_class(runs: pd.DataFrame, wclass: WorkloadClass) -> pd.DataFrame:
    """One row per configuration: score, interval, limits and evidence for ``wclass``.

    Computed for all configurations at once (one pivot, one group-by per figure): ranking a
    store of 100,000 runs must take well under a second.
    """
    columns = [c for c in RANK_COLUMNS if c not in ("rank", "tied")]
    scored = _scores(runs, wclass)
    if scored is None:
        return pd.DataFrame(columns=columns)
    keep, mine, measured, out, sd = (
        scored.keep,
        scored.mine,
        scored.measured,
        scored.out,
        scored.sd,
    )
    n = out["repetitions"].to_numpy()
    score = out["score"].to_numpy(dtype=float)
    lo, hi = mean_bounds(score, sd.to_numpy(), n)
    # one repetition: no interval and no spread (NaN), never a point taken for certainty; a
    # row without an interval overlaps none, so its rank is its mean's
    out["score_lo"], out["score_hi"] = lo, hi
    out["cv_pct"] = np.where(
        n > 1,
        np.where(out["score"] != 0, 100 * sd / out["score"].where(out["score"] != 0, 1), 0.0),
        np.nan,
    )
    out["cells_measured"] = measured.sum(axis=1).astype(int)
    out["cells_missing"] = _cells_missing(measured.to_numpy(), scored.cell_names, wclass)
    violations, worst = _limits_all(mine, wclass, out.index)
    out["meets_limits"] = [not v for v in violations]
    out["violations"] = ["; ".join(v) for v in violations]
    out["worst_latency"] = worst
    key_cell = max(wclass.cells, key=lambda c: c.weight).cell
    out["key_cell"] = key_cell
    key_vals = mine.loc[mine["cell_key"] == key_cell].groupby("config_key")[wclass.metric].mean()
    out["key_value"] = key_vals.reindex(out.index).astype(float)
    if "steady" in runs:
        # Runs the SNIA PTS rule found not steady (False, not unknown): counted, never hidden.
        flagged = runs.loc[keep, "steady"].eq(False).astype(int)
        unsteady = flagged.groupby(runs.loc[keep, "config_key"]).sum()
        out["unsteady_runs"] = unsteady.reindex(out.index).fillna(0).astype(int)
    else:
        out["unsteady_runs"] = 0
    if "telemetry_flag" in runs:
        # Runs whose telemetry casts doubt on them (a saturated or shared load host, a block
        # layer that disagrees with fio): counted beside the figures like unsteady runs.
        suspect = runs.loc[keep, "telemetry_flag"].fillna("").astype(str).ne("").astype(int)
        flagged_n = suspect.groupby(runs.loc[keep, "config_key"]).sum()
        out["flagged_runs"] = flagged_n.reindex(out.index).fillna(0).astype(int)
    else:
        out["flagged_runs"] = 0
    out["class"] = wclass.name
    out = out.rename_axis("config_key").reset_index()
    return out[columns]


def _cells_missing(measured: np.ndarray, names: list[str], wclass: WorkloadClass) -> list[str]:
    """Per configuration (a row of ``measured``: which of ``names`` it was measured on), the
    class's cells it lacks, in the class's order; worked out once per distinct row."""
    texts: dict[bytes, str] = {}
    out = []
    for row in measured:
        key = row.tobytes()
        if key not in texts:
            have = {names[i] for i in np.flatnonzero(row)}
            texts[key] = ", ".join(c for c in wclass.cell_keys if c not in have)
        out.append(texts[key])
    return out


def _limits_all(
    mine: pd.DataFrame, wclass: WorkloadClass, configs: pd.Index
) -> tuple[list[list[str]], list[str]]:
    """Per configuration: the limits broken (naming the cell) and the worst figure against
    each limit, from the per-cell means."""
    violations: dict[str, list[str]] = {k: [] for k in configs}
    worst: dict[str, list[str]] = {k: [] for k in configs}
    for limit in wclass.limits:
        col = limit.column
        if col not in mine:
            continue
        means = mine.groupby(["config_key", "cell_key"])[col].mean().dropna()
        if limit.cells is not None:
            means = means[means.index.get_level_values(1).isin(limit.cells)]
        if means.empty:
            continue
        by_config = means.groupby(level=0)
        top, highest = by_config.idxmax(), by_config.max()
        for config, (_, cell), value in zip(top.index, top, highest, strict=True):
            worst[config].append(f"{limit.metric} {format_ms(value)} ms ({cell})")
        for (config, cell), v in means[means > limit.max_ms].items():
            violations[config].append(
                f"{cell}: {limit.metric} {format_ms(v)} ms > {limit.max_ms:g} ms"
            )
    return [violations[k] for k in configs], ["; ".join(worst[k]) for k in configs]


def rank(scored: pd.DataFrame) -> pd.DataFrame:
    """Add ``rank`` and ``tied`` (shown ``=rank``: tied with the rank's leader); sort best
    first: limit keepers measured on every cell, then keepers measured on fewer cells, then
    limit breakers, each part ranked as the module's docstring says."""
    if scored.empty:
        return scored.assign(rank=pd.Series(dtype=int), tied=pd.Series(dtype=bool))[RANK_COLUMNS]
    out = []
    offset = 0
    # "Every cell" is relative: a cell no configuration has is missing for all alike.
    complete = scored["cells_measured"] == scored["cells_measured"].max()
    keeps = scored["meets_limits"].astype(bool)
    for tier in (keeps & complete, keeps & ~complete, ~keeps):
        part = scored[tier].sort_values("score", ascending=False, kind="stable")
        if part.empty:
            continue  # an empty part would turn the rank column into floats
        group = _sequential_ranks(part["score_lo"].to_numpy(), part["score_hi"].to_numpy())
        leads = np.r_[True, group[1:] != group[:-1]]
        position = offset + 1 + np.arange(len(part))
        # A rank's number is its leader's position; the rows after the leader are tied.
        part["rank"] = position[group]
        part["tied"] = ~leads
        offset += len(part)
        out.append(part)
    ranked = pd.concat(out, ignore_index=True)
    return ranked[RANK_COLUMNS].reset_index(drop=True)


def _sequential_ranks(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Per row (in order of score, best first), the row index of its rank's leader: the
    current leader when the row's interval [lo, hi] overlaps the leader's, else the row
    itself (a new rank)."""
    leader = np.empty(len(lo), dtype=int)
    current = 0
    for i in range(len(lo)):
        if i == 0 or not (lo[current] <= hi[i] and lo[i] <= hi[current]):
            current = i
        leader[i] = current
    return leader


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
        scored = _scores(runs, c)
        if scored is None:
            return None
        values.append(float(scored.out["score"].iloc[0]))
    return values
