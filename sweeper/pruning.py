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


class Pruner:
    """What the configurations completed so far set as the bar, computed once per
    configuration; ``reason`` is then cheap enough to ask after every cell."""

    def __init__(self, others: pd.DataFrame, classes: list[WorkloadClass]):
        self.classes = classes
        #: class name -> (best keeper's config key, its lower bound), when one exists
        self.bar: dict[str, tuple[str, float]] = {}
        #: (metric, cell) -> best mean any configuration reached there
        self.best_seen: dict[tuple[str, str], float] = {}
        if others.empty:
            return
        for wclass in classes:
            scored = score_class(others, wclass)
            keepers = scored[scored["meets_limits"] & scored["cells_missing"].eq("")]
            if len(keepers):
                # a keeper of one repetition has no interval: its score is its bar
                low = keepers["score_lo"].fillna(keepers["score"])
                best = low.idxmax()
                self.bar[wclass.name] = (str(keepers.loc[best, "config_key"]), float(low[best]))
            o = _cell_values(others, wclass.metric)
            means = o.groupby(["cell_key", "config_key"])["m"].mean()
            for cell, value in means.groupby(level=0).max().items():
                self.best_seen[(wclass.metric, str(cell))] = float(value)

    def best_possible(self, mine: pd.DataFrame, wclass: WorkloadClass) -> float | None:
        """Optimistic score of ``mine`` for ``wclass``; None when a cell has no bound yet."""
        m = _cell_values(mine, wclass.metric)
        measured = m.groupby("cell_key")["m"].max()
        logs, weights = [], []
        for cell in wclass.cells:
            if cell.cell in measured.index:
                value = float(measured[cell.cell])
            elif (wclass.metric, cell.cell) in self.best_seen:
                value = self.best_seen[(wclass.metric, cell.cell)]
            else:
                return None
            logs.append(math.log(max(value, 1e-9)))
            weights.append(cell.weight)
        return float(np.exp(np.dot(logs, weights) / sum(weights)))

    def reason(self, mine: pd.DataFrame) -> str | None:
        """Why the configuration of ``mine`` cannot be best for any class, or None."""
        if mine.empty or len(self.bar) < len(self.classes):
            return None  # some class has nothing to compare with yet
        reasons = []
        for wclass in self.classes:
            best_key, best_lo = self.bar[wclass.name]
            own = score_class(mine, wclass)
            if len(own) and not bool(own["meets_limits"].iloc[0]):
                broken = str(own["violations"].iloc[0]).split("; ")[0]
                reasons.append(f"{wclass.name}: breaks {broken} while {best_key} keeps all")
                continue
            bound = self.best_possible(mine, wclass)
            if bound is None or bound >= best_lo:
                return None
            reasons.append(
                f"{wclass.name}: at most {bound:,.0f} {wclass.metric} < {best_lo:,.0f}"
                f" ({best_key}, lower bound)"
            )
        return "; ".join(reasons)


def best_possible(mine: pd.DataFrame, others: pd.DataFrame, wclass: WorkloadClass) -> float | None:
    """Optimistic score of ``mine`` for ``wclass`` against ``others``; see ``Pruner``."""
    return Pruner(others, [wclass]).best_possible(mine, wclass)


def prune_reason(
    mine: pd.DataFrame, others: pd.DataFrame, classes: list[WorkloadClass]
) -> str | None:
    """Why the configuration of ``mine`` cannot be best for any class, or None.

    ``others``: the runs of the configurations completed so far.
    """
    return Pruner(others, classes).reason(mine)


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
