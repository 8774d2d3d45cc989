"""How sure a self-stopping sweep is of each class's pick (the decision kept in its progress
record as ``evidence``), as text and rows for ``status``, ``recommend`` and the report; and
the report's section of it, with the surrogate's predictions beside it."""

from __future__ import annotations

from typing import Any

import pandas as pd

from recommender.data import sweep_classes
from recommender.predictions import prediction_rows, sweep_predictions
from recommender.scoring import rank_classes


def stored_evidence(store: Any, sweep_id: str) -> dict[str, Any] | None:
    """The decision the sweep last took (``study.stop``), None for a sweep without the rule."""
    evidence = (store.read_progress(sweep_id) or {}).get("evidence")
    return evidence if isinstance(evidence, dict) else None


def headline(evidence: dict[str, Any]) -> str:
    """One sentence: stopped by evidence, or not (yet) sure of which classes."""
    within, level = float(evidence["within_pct"]), float(evidence["confidence"])
    rule = f"within {within:g}% of the best of the space with {level:.0%} confidence"
    of = f"{evidence['measured']} of {evidence['space']} configurations measured"
    if evidence.get("stop"):
        return f"stopped by evidence: every class's pick is {rule} ({of})"
    unsure = [c["name"] for c in evidence.get("classes", []) if not c.get("confident")]
    return f"not sure of {', '.join(unsure) or 'any class'}: no pick is yet known {rule} ({of})"


def class_line(c: dict[str, Any]) -> str:
    """One class's confidence: ``redo_log: 97.2% sure of raid10/… (sure)``."""
    if c.get("unsure"):
        return f"{c['name']}: not judged ({c['unsure']})"
    verdict = "sure" if c.get("confident") else "not sure"
    line = f"{c['name']}: {float(c['confidence']):.1%} sure of {c['pick']} ({verdict})"
    if not c.get("confident") and c.get("threat"):
        chance = float(c.get("p_threat") or 0.0)
        if chance >= 0.01:
            line += f"; the likeliest to beat it: {c['threat']} ({chance:.0%})"
        else:
            line += "; no one configuration has even a 1% chance of beating it: the doubt is spread"
    return line


def confidence_by_class(evidence: dict[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Per class the confidence fields of the decision (the JSON documents)."""
    if evidence is None:
        return {}
    return {
        str(c["name"]): {
            "pick": c.get("pick"),
            "confidence": c.get("confidence"),
            "sure": bool(c.get("confident")),
            "not_judged": c.get("unsure"),
        }
        for c in evidence.get("classes", [])
    }


def evidence_document(evidence: dict[str, Any] | None) -> dict[str, Any] | None:
    """The decision as kept in ``recommend --json`` and ``status --json`` (``evidence``)."""
    if evidence is None:
        return None
    return {
        "stopped_by_evidence": bool(evidence.get("stop")),
        "within_pct": evidence.get("within_pct"),
        "confidence_required": evidence.get("confidence"),
        "measured": evidence.get("measured"),
        "space": evidence.get("space"),
        "headline": headline(evidence),
        "classes": confidence_by_class(evidence),
    }


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
