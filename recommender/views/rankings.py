"""The rankings as tables: one class's ranked rows, its evidence and its feature impact."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import pandas as pd

from recommender.figures import interval_text, score_decimals
from recommender.recommendations import ClassRecommendation
from recommender.views.labels import CONFIGURATION, GB_PER_TB, limits_text, rank_label


def ranked_all(recs: Iterable[ClassRecommendation]) -> pd.DataFrame:
    """Every class's ranked rows, stacked (the shape ``recommender.scoring.rank_classes`` has)."""
    parts = [r.ranked for r in recs if len(r.ranked)]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=["class"])


def find_recommendation(
    recs: Iterable[ClassRecommendation], class_name: str
) -> ClassRecommendation | None:
    return next((r for r in recs if r.name == class_name), None)


def number(value: Any) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return math.nan
    return out


def _size(part: pd.DataFrame) -> dict[str, list[float]]:
    """Beside each configuration: its drives and usable TB, as ``recommender.tradeoffs``
    counts them from the platform's geometry (none where the hardware facts lack them)."""
    if "drives" not in part:
        return {}
    usable = part["usable_gb"] if "usable_gb" in part else [None] * len(part)
    return {
        "drives": [number(v) for v in part["drives"]],
        "usable TB": [number(v) / GB_PER_TB for v in usable],
    }


def measured_only(ranked: pd.DataFrame) -> None:
    """Refuse a ranking that holds a prediction: only measured rows are ranked."""
    if "kind" in ranked and (ranked["kind"] == "predicted").any():
        keys = ", ".join(ranked.loc[ranked["kind"] == "predicted", "config_key"].astype(str))
        raise ValueError(f"a ranking holds measurements only, not the predictions of {keys}")


def recommendation_table(ranked: pd.DataFrame, *, prices: bool) -> pd.DataFrame:
    """The ranked rows of one class as shown: rank (``=3``: a tie), the configuration, its
    score with interval and repetitions, its drives and usable TB, the limits kept or the cells
    that broke them, and the trade-offs. A ranking holds measurements only: a frame with
    predicted rows (``kind`` "predicted", ``recommender.predictions``) is refused."""
    measured_only(ranked)
    part = ranked
    decimals = score_decimals(part["score"])
    columns: dict[str, Any] = {
        "rank": [rank_label(r, t) for r, t in zip(part["rank"], part["tied"], strict=True)],
        CONFIGURATION: part["config_key"].to_numpy(),
        # the score beside the configuration, as the CLI writes it: on a narrow screen the
        # first columns are the ones in view
        "score": part["score"].astype(float).to_numpy(),
        "95% interval": [  # as the CLI and the report write it: the scores' precision
            interval_text(lo, hi, decimals)
            for lo, hi in zip(part["score_lo"], part["score_hi"], strict=True)
        ],
        "repetitions": part["repetitions"].astype(int).to_numpy(),
        **_size(part),
        "CV %": part["cv_pct"].astype(float).to_numpy(),
        "limits": [
            limits_text(ok, v)
            for ok, v in zip(part["meets_limits"], part["violations"], strict=True)
        ],
    }
    if "usable_share" in part:
        columns["usable %"] = [100 * number(v) for v in part["usable_share"]]
        columns["rebuild h"] = [number(v) for v in part["rebuild_h"]]
        columns["data-loss risk / year"] = [number(v) for v in part["loss_risk_per_year"]]
        if prices:
            columns["cost per unit"] = [number(v) for v in part["cost_per_unit"]]
            columns["cost per usable GB"] = [number(v) for v in part["cost_per_usable_gb"]]
        front = part["tradeoff_front"] if "tradeoff_front" in part else [False] * len(part)
        columns["trade-off front"] = [bool(v) for v in front]
    out = pd.DataFrame(columns)
    unsteady = part["unsteady_runs"].fillna(0).astype(int).to_numpy()
    if unsteady.any():
        out["unsteady runs"] = unsteady
    if "flagged_runs" in part:
        flagged = part["flagged_runs"].fillna(0).astype(int).to_numpy()
        if flagged.any():
            out["flagged runs"] = flagged
    missing = part["cells_missing"].fillna("").astype(str).to_numpy()
    if any(missing):
        out["cells missing"] = missing
    return out


#: the evidence's columns as shown: (column, type) under each label
EVIDENCE_SHOWN = {
    "cell": ("cell", str),
    "weight": ("weight", float),
    "recommended": ("recommended", float),
    "runner-up": ("runner_up", float),
    "ratio": ("ratio", float),
    "share %": ("contribution_pct", float),
    "repetitions": ("repetitions", str),
}
#: the feature impact's columns as shown
IMPACT_SHOWN = {
    "feature": ("feature", str),
    "configuration (feature off)": ("configuration", str),
    "score off": ("score_off", float),
    "score on": ("score_on", float),
    "kept %": ("kept_pct", float),
}


def _shown(frame: pd.DataFrame, columns: dict[str, tuple[str, type]]) -> pd.DataFrame:
    return pd.DataFrame(
        {label: frame[col].astype(kind).to_numpy() for label, (col, kind) in columns.items()}
    )


def evidence_table(evidence: pd.DataFrame) -> pd.DataFrame:
    """The cells that decided between the recommended configuration and the runner-up."""
    return _shown(evidence, EVIDENCE_SHOWN)


def impact_table(impact: pd.DataFrame) -> pd.DataFrame:
    """Feature impact of one class: performance kept with snapshots / data reduction on."""
    return _shown(impact, IMPACT_SHOWN)
