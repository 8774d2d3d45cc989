"""How sure a self-stopping sweep is of each class's pick (the decision kept in its progress
record as ``evidence``), as text and rows for ``status``, ``recommend`` and the report; and
the report's section of it, with the surrogate's predictions beside it."""

from __future__ import annotations

from typing import Any

import pandas as pd

from recommender.data import sweep_classes
from recommender.predictions import prediction_rows, sweep_predictions
from recommender.scoring import rank_classes
from sweeper.evidence_text import class_line, confidence_by_class, evidence_document, headline

__all__ = [
    "class_line",
    "confidence_by_class",
    "evidence_document",
    "headline",
    "report_section",
    "stored_evidence",
]


def stored_evidence(store: Any, sweep_id: str) -> dict[str, Any] | None:
    """The decision the sweep last took (``study.stop``), None for a sweep without the rule."""
    evidence = (store.read_progress(sweep_id) or {}).get("evidence")
    return evidence if isinstance(evidence, dict) else None


def report_section(store: Any, record: dict[str, Any]) -> dict[str, Any] | None:
    """The report's section "How sure the search is": the decision per class and the
    predictions for unmeasured configurations near each pick; None without either."""
    sweep_id = str(record["sweep_id"])
    evidence = stored_evidence(store, sweep_id)
    study = (record.get("spec") or {}).get("study") or {}
    predicted = pd.DataFrame()
    if study.get("mode") == "optimize":
        ranked = rank_classes(store.runs(sweep_id), sweep_classes(record))
        predicted = sweep_predictions(record, ranked)
    if evidence is None and predicted.empty:
        return None
    classes = [str(c) for c in dict.fromkeys(predicted["class"])] if len(predicted) else []
    return {
        "headline": headline(evidence) if evidence is not None else None,
        "classes": [class_line(c) for c in (evidence or {}).get("classes", [])],
        "predictions": {name: prediction_rows(predicted, name) for name in classes},
    }
