"""How sure a self-stopping sweep is of each class's pick, as text and JSON fields: the
decision its stopping rule keeps in the progress record (``evidence``), read by ``status``
without the recommender (pure functions of that record)."""

from __future__ import annotations

from typing import Any


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
