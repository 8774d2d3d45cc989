"""The ``--json`` documents of ``recommend``, ``status`` and ``curves``, and their JSON Schemas.

These are a stable interface for scripts and CI gates: each document names its schema
(``raidsweep.recommend/1`` …); a field is only ever added within a version, and a change that
removes or retypes one gets a new version. A figure that does not exist (no prices, a curve
without a knee) is ``null``, never NaN.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from recommender.pareto import pareto_set
from recommender.recommendations import ClassRecommendation
from recommender.views.labels import RANK_CAPTION, rank_label

RECOMMEND_SCHEMA_ID = "raidsweep.recommend/1"
STATUS_SCHEMA_ID = "raidsweep.status/1"
CURVES_SCHEMA_ID = "raidsweep.curves/1"


def _num(value: Any) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(out) or math.isinf(out) else out


def _int(value: Any) -> int | None:
    number = _num(value)
    return None if number is None else int(number)


def _ranking_row(r: Mapping[str, Any]) -> dict[str, Any]:
    violations = str(r.get("violations") or "")
    return {
        "rank": int(r["rank"]),
        "tied": bool(r["tied"]),
        "rank_label": rank_label(r["rank"], r["tied"]),
        "configuration": str(r["config_key"]),
        "score": _num(r["score"]),
        "score_lo": _num(r["score_lo"]),
        "score_hi": _num(r["score_hi"]),
        "cv_pct": _num(r["cv_pct"]),
        "repetitions": int(r["repetitions"]),
        "meets_limits": bool(r["meets_limits"]),
        "violations": violations.split("; ") if violations else [],
        "usable_share": _num(r.get("usable_share")),
        "drives": _int(r.get("drives")),
        "usable_gb": _num(r.get("usable_gb")),
        "rebuild_h": _num(r.get("rebuild_h")),
        "loss_risk_per_year": _num(r.get("loss_risk_per_year")),
        "cost_per_unit": _num(r.get("cost_per_unit")),
        "unsteady_runs": int(r.get("unsteady_runs") or 0),
        "flagged_runs": int(r.get("flagged_runs") or 0),
    }


def recommend_document(
    sweep_id: str, recs: Iterable[ClassRecommendation], top: int, provisional: str | None
) -> dict[str, Any]:
    """What ``raidsweep recommend --json`` prints: per class the decision and the first
    ``top`` ranked configurations, then the Pareto set across the classes."""
    recs = list(recs)
    classes = []
    for rec in recs:
        rows = [_ranking_row(r) for r in rec.ranked.head(top).to_dict("records")]
        classes.append(
            {
                "name": rec.name,
                "metric": rec.wclass.metric,
                "recommended": None if rec.best is None else str(rec.best["config_key"]),
                "tied_with": rec.tied_set,
                "decision": rec.sentence(),
                "cells_missing": [c for c in rec.missing.split(", ") if c],
                "configurations": int(len(rec.ranked)),
                "rankings": rows,
            }
        )
    parts = [r.ranked for r in recs if len(r.ranked)]
    front = pareto_set(pd.concat(parts, ignore_index=True)) if parts else pd.DataFrame()
    pareto = [
        {"configuration": str(key), "scores": {str(c): _num(v) for c, v in row.items()}}
        for key, row in front.iterrows()
    ]
    return {
        "schema": RECOMMEND_SCHEMA_ID,
        "sweep": sweep_id,
        "provisional": provisional,
        "rank_convention": RANK_CAPTION,
        "classes": classes,
        "pareto": pareto,
    }


def status_document(statuses: Iterable[Any]) -> dict[str, Any]:
    """What ``raidsweep status --json`` prints, from ``sweeper.status.SweepStatus`` records."""
    fields = (
        "state",
        "configurations_done",
        "configurations_total",
        "runs_done",
        "runs_failed",
        "runs_total",
    )
    sweeps = [
        {
            "sweep": s.sweep_id,
            **{f: getattr(s, f) for f in fields},
            "array_s_used": _num(s.array_s_used),
            "array_s_total": _num(s.array_s_total),
            "waiting": s.waiting,
            "totals_known": s.totals_known,
        }
        for s in statuses
    ]
    return {"schema": STATUS_SCHEMA_ID, "sweeps": sweeps}


def _point(p: Any) -> dict[str, Any] | None:
    if p is None:
        return None
    return {
        "outstanding": int(p.outstanding),
        "iops": _num(p.iops),
        "latency_ms": _num(p.latency_ms),
    }


def curves_document(sweep_id: str, table: pd.DataFrame) -> dict[str, Any]:
    """What ``raidsweep curves --json`` prints, from ``recommender.curves.sweep_curves``."""
    curves = []
    for r in table.itertuples():
        active = None if r.active_pct is None or pd.isna(r.active_pct) else int(r.active_pct)
        stopped = None if r.stopped is None or pd.isna(r.stopped) else str(r.stopped)
        curves.append(
            {
                "configuration": str(r.config_key),
                "curve": str(r.curve),
                "pattern": str(r.pattern),
                "block_size": int(r.block_size),
                "active_pct": active,
                "points": [_point(p) for p in r.points],
                "speed": _point(r.speed),
                "optimum": _point(r.optimum),
                "optimum_method": str(r.method),
                "maximum": _point(r.maximum),
                "stopped": stopped,
            }
        )
    return {"schema": CURVES_SCHEMA_ID, "sweep": sweep_id, "curves": curves}


# JSON Schemas -------------------------------------------------------------------------------
_NUM = {"type": ["number", "null"]}
_INT = {"type": "integer", "minimum": 0}
_STR = {"type": "string"}


def _object(props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": list(props), "properties": props}


_RANKING = _object(
    {
        "rank": {"type": "integer", "minimum": 1},
        "tied": {"type": "boolean"},
        "rank_label": {"type": "string", "pattern": "^=?[1-9][0-9]*$"},
        "configuration": _STR,
        "score": _NUM,
        "score_lo": _NUM,
        "score_hi": _NUM,
        "cv_pct": _NUM,
        "repetitions": _INT,
        "meets_limits": {"type": "boolean"},
        "violations": {"type": "array", "items": _STR},
        "usable_share": _NUM,
        "drives": {"type": ["integer", "null"], "minimum": 0},
        "usable_gb": _NUM,
        "rebuild_h": _NUM,
        "loss_risk_per_year": _NUM,
        "cost_per_unit": _NUM,
        "unsteady_runs": _INT,
        "flagged_runs": _INT,
    }
)
RECOMMEND_SCHEMA = _object(
    {
        "schema": {"const": RECOMMEND_SCHEMA_ID},
        "sweep": _STR,
        "provisional": {"type": ["string", "null"]},
        "rank_convention": _STR,
        "classes": {
            "type": "array",
            "items": _object(
                {
                    "name": _STR,
                    "metric": {"enum": ["iops", "mbps"]},
                    "recommended": {"type": ["string", "null"]},
                    "tied_with": {"type": "array", "items": _STR},
                    "decision": _STR,
                    "cells_missing": {"type": "array", "items": _STR},
                    "configurations": _INT,
                    "rankings": {"type": "array", "items": _RANKING},
                }
            ),
        },
        "pareto": {
            "type": "array",
            "items": _object(
                {
                    "configuration": _STR,
                    "scores": {"type": "object", "additionalProperties": _NUM},
                }
            ),
        },
    }
)
STATUS_SCHEMA = _object(
    {
        "schema": {"const": STATUS_SCHEMA_ID},
        "sweeps": {
            "type": "array",
            "items": _object(
                {
                    "sweep": _STR,
                    "state": {"enum": ["running", "finished", "interrupted", "not started"]},
                    "configurations_done": _INT,
                    "configurations_total": _INT,
                    "runs_done": _INT,
                    "runs_failed": _INT,
                    "runs_total": _INT,
                    "array_s_used": _NUM,
                    "array_s_total": _NUM,
                    # a manual sweep's operator: what to build, e.g. "build raid10/… (3 of 9)"
                    "waiting": {"type": ["string", "null"]},
                    # false where no progress record told the totals: the *_total fields
                    # and configurations_done then read 0 for "not known"
                    "totals_known": {"type": "boolean"},
                }
            ),
        },
    }
)
_POINT = {
    "oneOf": [
        {"type": "null"},
        _object(
            {
                "outstanding": {"type": "integer", "minimum": 1},
                "iops": _NUM,
                "latency_ms": _NUM,
            }
        ),
    ]
}
CURVES_SCHEMA = _object(
    {
        "schema": {"const": CURVES_SCHEMA_ID},
        "sweep": _STR,
        "curves": {
            "type": "array",
            "items": _object(
                {
                    "configuration": _STR,
                    "curve": _STR,
                    "pattern": _STR,
                    "block_size": {"type": "integer", "minimum": 1},
                    "active_pct": {"type": ["integer", "null"]},
                    "points": {"type": "array", "items": _POINT},
                    "speed": _POINT,
                    "optimum": _POINT,
                    "optimum_method": _STR,
                    "maximum": _POINT,
                    "stopped": {"type": ["string", "null"]},
                }
            ),
        },
    }
)
