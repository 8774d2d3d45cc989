"""Stop measuring a configuration that can no longer be the best for any class.

After each workload cell, every class gets an optimistic bound on what the configuration
could still score: its measured cells at their best repetition, and each cell not measured
yet at the best any configuration reached there so far. If, for every class, that bound is
below the lower end of the interval of the best configuration that keeps the class's limits
(or the configuration has already broken one of the class's limits while another keeps them),
the configuration is pruned and the reason stored. Pure functions over run tables.

The bound is a real upper bound for the score only as far as "no cell beats the best seen
there so far" holds; that optimism is what keeps pruning from throwing away a configuration
that merely started on its weakest cells.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from recommender.classes import WorkloadClass
from recommender.scoring import score_class


def _cell_values(runs: pd.DataFrame, metric: str) -> pd.DataFrame:
    keys = runs["cell_key"].str.replace(r"/ws100$", "", regex=True)
    return runs.assign(cell_key=keys, m=runs[metric].astype(float))


def best_possible(mine: pd.DataFrame, others: pd.DataFrame, wclass: WorkloadClass) -> float | None:
    """Optimistic score of ``mine`` for ``wclass``; None when some cell has no bound yet."""
    m = _cell_values(mine, wclass.metric)
    o = _cell_values(others, wclass.metric)
    logs, weights = [], []
    for cell in wclass.cells:
        measured = m.loc[m["cell_key"] == cell.cell, "m"]
        if len(measured):
            value = float(measured.max())
        else:
            seen = o.loc[o["cell_key"] == cell.cell].groupby("config_key")["m"].mean()
            if seen.empty:
                return None
            value = float(seen.max())
        logs.append(math.log(max(value, 1e-9)))
        weights.append(cell.weight)
    return float(np.exp(np.dot(logs, weights) / sum(weights)))


def prune_reason(
    mine: pd.DataFrame, others: pd.DataFrame, classes: list[WorkloadClass]
) -> str | None:
    """Why the configuration of ``mine`` cannot be best for any class, or None.

    ``others``: the runs of the configurations completed so far.
    """
    if others.empty or mine.empty:
        return None
    reasons = []
    for wclass in classes:
        scored = score_class(others, wclass)
        keepers = scored[scored["meets_limits"] & scored["cells_missing"].eq("")]
        if keepers.empty:
            return None  # nothing to compare with yet for this class
        best = keepers.loc[keepers["score_lo"].idxmax()]
        own = score_class(mine, wclass)
        if len(own) and not bool(own["meets_limits"].iloc[0]):
            broken = str(own["violations"].iloc[0]).split("; ")[0]
            reasons.append(f"{wclass.name}: breaks {broken} while {best['config_key']} keeps all")
            continue
        bound = best_possible(mine, others, wclass)
        if bound is None or bound >= float(best["score_lo"]):
            return None
        reasons.append(
            f"{wclass.name}: at most {bound:,.0f} {wclass.metric} < {float(best['score_lo']):,.0f}"
            f" ({best['config_key']}, lower bound)"
        )
    return "; ".join(reasons)


def separating_order(
    cells: list[str], others: pd.DataFrame, metric_of: dict[str, str]
) -> list[str]:
    """Cells by how much they separated the configurations so far, most first.

    The spread is the standard deviation of log mean per configuration (a relative spread);
    cells nobody has measured keep their place after the ranked ones.
    """
    if others.empty:
        return list(cells)
    spread = {}
    for cell in cells:
        metric = metric_of.get(cell, "iops")
        sel = others[others["cell_key"] == cell]
        means = sel.groupby("config_key")[metric].mean().astype(float)
        means = means[means > 0]
        if len(means) >= 2:
            spread[cell] = float(np.log(means).std(ddof=0))
    ranked = sorted(spread, key=lambda c: (-spread[c], cells.index(c)))
    return ranked + [c for c in cells if c not in spread]
