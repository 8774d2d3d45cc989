"""Reading the store for the recommender, the report and the app (no writes)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from recommender.classes import WorkloadClass, load_classes
from recommender.recommendations import ClassRecommendation, class_recommendations
from recommender.scoring import rank_classes
from recommender.tradeoffs import hardware_facts
from recommender.views.grids import HEATMAP_METRICS, heatmap_frame

__all__ = [
    "HEATMAP_METRICS",
    "heatmap_frame",
    "load_rankings",
    "load_recommendations",
    "sweep_classes",
]


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
