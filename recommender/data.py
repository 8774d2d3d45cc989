"""Reading the store for the recommender, the report and the app (no writes)."""

from __future__ import annotations

from typing import Any

import pandas as pd
import pyarrow as pa

from recommender.classes import WorkloadClass, load_classes
from recommender.recommendations import ClassRecommendation, class_recommendations
from recommender.scoring import rank_classes
from recommender.tradeoffs import hardware_facts
from recommender.views.grids import HEATMAP_METRICS, heatmap_frame
from sweeper.spec import Matrix
from sweeper.store.records import RUN_SCHEMA, run_columns

__all__ = [
    "HEATMAP_METRICS",
    "SCORING_COLUMNS",
    "heatmap_frame",
    "load_rankings",
    "load_recommendations",
    "scoring_frame",
    "sweep_classes",
]


def sweep_classes(record: dict[str, Any]) -> list[WorkloadClass]:
    """The sweep's classes with the limits for its drives' media, each as it scores the
    sweep's matrix (a stand-in in place of a cell the matrix lacks)."""
    media = hardware_facts(record).get("media")
    cells = [c.key for c in Matrix.model_validate(record["spec"]["matrix"]).cells()]
    return load_classes(record["spec"]["classes"], media, cells)


def load_rankings(store: Any, record: dict[str, Any]) -> tuple[pd.DataFrame, list[WorkloadClass]]:
    classes = sweep_classes(record)
    runs = store.runs(record["sweep_id"])
    return rank_classes(runs, classes), classes


#: the text columns the ranking reads; every other text column of a run (its ids, its
#: configuration and cell spelled out, tools, errors) and its timestamps are left behind
SCORED_TEXT = ("config_key", "cell_key", "telemetry_flag")
#: the store's columns that ``scoring_frame`` keeps: a read of these alone ranks the same
SCORING_COLUMNS = tuple(
    n
    for n in run_columns()
    if n in SCORED_TEXT
    or not (
        pa.types.is_string(RUN_SCHEMA.field(n).type)
        or pa.types.is_timestamp(RUN_SCHEMA.field(n).type)
    )
)


def scoring_frame(runs: pd.DataFrame) -> pd.DataFrame:
    """The runs as the ranking reads them: the same rankings as from the whole frame, for a
    fraction of the work at 100,000 runs. Every row a class selects is copied column by
    column, so only the text columns the ranking reads are kept (a store's are Arrow-backed,
    whose row selection costs most), and the cell key, which every class, limit and evidence
    rewrites (``/ws100`` is the whole volume), is categorical: the rewrite then runs once per
    distinct cell, not once per run, and yields plain strings as before."""
    keep = [
        c
        for c in runs.columns
        if c in SCORED_TEXT
        or not (
            isinstance(runs[c].dtype, pd.StringDtype)
            or pd.api.types.is_datetime64_any_dtype(runs[c])
        )
    ]
    out = runs[keep]
    if "cell_key" in out:
        out = out.assign(cell_key=out["cell_key"].astype("category"))
    return out


def load_recommendations(
    store: Any, record: dict[str, Any], runs: pd.DataFrame | None = None
) -> list[ClassRecommendation]:
    """Per class, the decision with its trade-offs and evidence (see recommendations.py);
    without ``runs``, the store's good runs are read, only their SCORING_COLUMNS."""
    if runs is None:
        runs = store.runs(record["sweep_id"], columns=SCORING_COLUMNS)
    return class_recommendations(
        scoring_frame(runs),
        sweep_classes(record),
        hardware_facts(record),
        (record.get("spec") or {}).get("prices"),
    )
