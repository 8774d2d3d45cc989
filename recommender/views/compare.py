"""Two configurations side by side: per class, per cell and their trade-offs."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pandas as pd

from recommender.figures import score_decimals
from recommender.recommendations import ClassRecommendation
from recommender.views.labels import GB_PER_TB, limits_text, rank_label
from recommender.views.rankings import number
from recommender.views.shading import cell_order_key


def compare_scores(recs: Iterable[ClassRecommendation], a: str, b: str) -> pd.DataFrame:
    """Per class: both configurations' rank, score and limits, and the ratio of the scores;
    ``decimals``: the precision of the class's scores (``recommender.figures``), as its
    ranking writes them."""
    rows = []
    for rec in recs:
        part = rec.ranked.set_index("config_key") if len(rec.ranked) else None
        row: dict[str, Any] = {"class": rec.name, "metric": rec.wclass.metric}
        row["decimals"] = score_decimals(rec.ranked["score"]) if len(rec.ranked) else 0
        for side, key in (("A", a), ("B", b)):
            if part is None or key not in part.index:
                row |= {f"rank {side}": "", f"score {side}": math.nan, f"limits {side}": ""}
                continue
            r = part.loc[key]
            row |= {
                f"rank {side}": rank_label(r["rank"], r["tied"]),
                f"score {side}": float(r["score"]),
                f"limits {side}": limits_text(r["meets_limits"], r["violations"]),
            }
        sa, sb = row["score A"], row["score B"]
        row["A / B"] = sa / sb if sb and not math.isnan(sb) else math.nan
        rows.append(row)
    cols = [
        "class",
        "metric",
        "rank A",
        "score A",
        "rank B",
        "score B",
        "A / B",
        "limits A",
        "limits B",
        "decimals",
    ]
    return pd.DataFrame(rows, columns=cols)


COMPARE_METRICS = {
    "IOPS": "iops",
    "MB/s": "mbps",
    "p99 read ms": "read_lat_p99_ms",
    "p99 write ms": "write_lat_p99_ms",
}


def compare_cells(runs: pd.DataFrame, a: str, b: str, metric: str) -> pd.DataFrame:
    """Per workload cell both configurations measured: the mean ``metric`` of each, their ratio,
    and the repetitions behind each figure; a cell where neither has the figure (no writes
    for a write latency) is left out."""
    frames = {}
    for side, key in (("A", a), ("B", b)):
        mine = runs[runs["config_key"] == key]
        frames[side] = mine.groupby("cell_key")[metric].agg(["mean", "count"])
    both = frames["A"].merge(frames["B"], left_index=True, right_index=True, suffixes=("_a", "_b"))
    # a cell where neither measured the figure (a write latency of a read-only cell) is none
    # to compare: not listed as "—" with "0/0" repetitions beside its runs
    both = both[(both["count_a"] > 0) | (both["count_b"] > 0)]
    out = pd.DataFrame(
        {
            "cell": both.index.astype(str),
            "A": both["mean_a"].astype(float).to_numpy(),
            "B": both["mean_b"].astype(float).to_numpy(),
        }
    )
    out["A / B"] = out["A"] / out["B"].where(out["B"] != 0)
    out["repetitions"] = [
        f"{int(x)}/{int(y)}" for x, y in zip(both["count_a"], both["count_b"], strict=True)
    ]
    # by value: pattern, block size in bytes, concurrency as numbers (never 64k before 8k)
    order = sorted(range(len(out)), key=lambda i: cell_order_key(out["cell"].iloc[i]))
    return out.iloc[order].reset_index(drop=True)


TRADEOFF_ROWS = {
    "drives": "drives",
    "usable_tb": "usable TB",
    "usable_share": "usable share",
    "rebuild_h": "rebuild hours",
    "survives_during_rebuild": "further failures survived during a rebuild",
    "loss_risk_per_year": "data-loss risk per year",
    "cost": "cost",
    "cost_per_usable_gb": "cost per usable GB",
}


def compare_tradeoffs(recs: Iterable[ClassRecommendation], a: str, b: str) -> pd.DataFrame:
    """The trade-offs of both configurations, one row per figure (from any class's ranking:
    they do not depend on the class); usable capacity in TB, as the rankings give it."""
    found: dict[str, pd.Series] = {}
    for rec in recs:
        for key in (a, b):
            if key not in found and len(rec.ranked):
                hit = rec.ranked[rec.ranked["config_key"] == key]
                if len(hit):
                    found[key] = hit.iloc[0]
    for key, row in found.items():
        found[key] = row.copy()
        found[key]["usable_tb"] = number(row.get("usable_gb")) / GB_PER_TB
    rows = []
    for col, label in TRADEOFF_ROWS.items():
        va = found[a].get(col) if a in found else None
        vb = found[b].get(col) if b in found else None
        if (va is None or pd.isna(va)) and (vb is None or pd.isna(vb)):
            continue
        rows.append({"figure": label, "A": number(va), "B": number(vb)})
    return pd.DataFrame(rows, columns=["figure", "A", "B"])
