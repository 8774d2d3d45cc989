"""The evidence behind a recommendation: which cells decided it against the runner-up.

The score is a weighted geometric mean, so the log of the ratio of two scores splits exactly
into one term per cell: ln(S_a / S_b) = Σ_i w_i · ln(m_ia / m_ib) / Σ_i w_i. A cell's share is
its term over the terms' absolute values summed (``contribution_pct``: + for the recommended,
− for the runner-up; the shares' absolute values add up to 100%). It is a share of what the
cells pulled either way, not of the net difference: cells that pull against each other would
give shares of the net far above 100%. The cells with the largest terms are the evidence.
Pure functions over run tables and the ranked table.
"""

from __future__ import annotations

import math

import pandas as pd

from recommender.classes import WorkloadClass

#: what a cell's share (``contribution_pct``) means, in every surface alike
SHARE_MEANING = (
    "the share is the cell's weighted log ratio over all the cells' in absolute value: "
    "+ where the recommended configuration is ahead, − where the runner-up is"
)
EVIDENCE_COLUMNS = [
    "cell",
    "weight",
    "recommended",
    "runner_up",
    "ratio",
    "contribution_pct",
    "repetitions",
]


def _cell_means(runs: pd.DataFrame, key: str, metric: str) -> pd.DataFrame:
    mine = runs[runs["config_key"] == key]
    cells = mine["cell_key"].str.replace(r"/ws100$", "", regex=True)
    return mine.assign(cell_key=cells).groupby("cell_key")[metric].agg(["mean", "count"])


def evidence(runs: pd.DataFrame, wclass: WorkloadClass, best: str, runner_up: str) -> pd.DataFrame:
    """Per class cell: both configurations' mean figures, their ratio and the cell's signed
    share of the pull between them (largest share first)."""
    a = _cell_means(runs, best, wclass.metric)
    b = _cell_means(runs, runner_up, wclass.metric)
    total_w = sum(c.weight for c in wclass.cells)
    rows = []
    for cell in wclass.cells:
        if cell.cell not in a.index or cell.cell not in b.index:
            continue
        ma, mb = float(a.loc[cell.cell, "mean"]), float(b.loc[cell.cell, "mean"])
        term = cell.weight * math.log(max(ma, 1e-9) / max(mb, 1e-9)) / total_w
        rows.append(
            {
                "cell": cell.cell,
                "weight": cell.weight,
                "recommended": ma,
                "runner_up": mb,
                "ratio": ma / mb if mb else math.inf,
                "term": term,
                "repetitions": f"{int(a.loc[cell.cell, 'count'])}/{int(b.loc[cell.cell, 'count'])}",
            }
        )
    out = pd.DataFrame(rows)
    if out.empty:
        return pd.DataFrame(columns=EVIDENCE_COLUMNS)
    spread = out["term"].abs().sum()
    out["contribution_pct"] = 100 * out["term"] / spread if spread else 0.0
    out = out.reindex(out["term"].abs().sort_values(ascending=False).index)
    return out[EVIDENCE_COLUMNS].reset_index(drop=True)


def recommendation(ranked: pd.DataFrame, class_name: str) -> tuple[pd.Series, pd.Series | None]:
    """The recommended row of a class (first of the ranking) and the runner-up's (second)."""
    part = ranked[ranked["class"] == class_name]
    if part.empty:
        raise KeyError(f"no ranking for class {class_name!r}")
    runner = part.iloc[1] if len(part) > 1 else None
    return part.iloc[0], runner
