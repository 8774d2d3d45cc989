"""Reading the store for the recommender, the report and the app (no writes)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from recommender.classes import WorkloadClass, load_classes
from recommender.recommendations import ClassRecommendation, class_recommendations
from recommender.scoring import rank_classes
from recommender.tradeoffs import hardware_facts


def sweep_classes(record: dict[str, Any]) -> list[WorkloadClass]:
    """The sweep's classes with the limits for its drives' media."""
    media = hardware_facts(record).get("media")
    return load_classes(record["spec"]["classes"], media)


def load_rankings(store: Any, record: dict[str, Any]) -> tuple[pd.DataFrame, list[WorkloadClass]]:
    classes = sweep_classes(record)
    runs = store.runs(record["sweep_id"])
    return rank_classes(runs, classes), classes


def load_recommendations(
    store: Any, record: dict[str, Any], runs: pd.DataFrame | None = None
) -> list[ClassRecommendation]:
    """Per class, the decision with its trade-offs and evidence (see recommendations.py)."""
    if runs is None:
        runs = store.runs(record["sweep_id"])
    return class_recommendations(
        runs,
        sweep_classes(record),
        hardware_facts(record),
        (record.get("spec") or {}).get("prices"),
    )


HEATMAP_METRICS = {
    "IOPS": "iops",
    "MB/s": "mbps",
    "p99 read latency (ms)": "read_lat_p99_ms",
    "p99 write latency (ms)": "write_lat_p99_ms",
}


def heatmap_frame(
    runs: pd.DataFrame,
    pattern: str,
    metric: str,
    concurrency: str | None = None,
    active_pct: int | None = None,
) -> pd.DataFrame:
    """Mean of ``metric`` per configuration × block size for one pattern (and concurrency,
    and active range when the matrix has one)."""
    sel = runs[runs["pattern"] == pattern]
    if active_pct is not None:
        sel = sel[sel["active_pct"] == active_pct]
    if concurrency:
        qd = sel["iodepth"].astype(str) + "x" + sel["numjobs"].astype(str)
        sel = sel[("qd" + qd) == concurrency]
    if sel.empty:
        return pd.DataFrame(columns=["config_key", "block_size", "value", "sd", "n"])
    out = (
        sel.groupby(["config_key", "block_size"])[metric]
        .agg(value="mean", sd="std", n="count")
        .reset_index()
    )
    return out
