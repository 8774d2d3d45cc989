"""The surrogate's predictions for the configurations a sweep has not measured (or not on all
of a class's cells), with intervals, marked as predictions.

They come from the same Gaussian process that decides when an optimize-mode sweep may stop
(``sweeper.sweep.stopping``), fitted to the class scores measured so far. They are kept apart
from the ranking: a ranked table holds measurements only, and a prediction is never a row of
it. A configuration predicted to beat the class's pick is "predicted best, not measured": the
sweep measures it before it recommends the pick (the loop's threat-first rule).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from sweeper.configuration import Configuration, enumerate_configurations
from sweeper.spec.models import ConfigSpace
from sweeper.sweep.stopping import predictions as surrogate_predictions

#: what a prediction row holds (``kind`` is always "predicted")
COLUMNS = [
    "class",
    "config_key",
    "predicted",
    "predicted_lo",
    "predicted_hi",
    "kind",
    "beats_pick",
]
#: a space larger than this is not predicted for the CLI and the report (seconds, not minutes)
MAX_SPACE = 20_000


def sweep_space(record: dict[str, Any]) -> list[Configuration]:
    """Every configuration of the sweep's config space (from the spec it ran with)."""
    space = ConfigSpace.model_validate((record.get("spec") or {}).get("config_space") or {})
    return enumerate_configurations(space)


def predict(
    ranked: pd.DataFrame,
    space: list[Configuration],
    classes: list[str],
    *,
    top: int = 5,
    level: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """Per class, the ``top`` unmeasured configurations by predicted score whose interval
    reaches the class's pick (the only ones that could change the decision), with
    ``beats_pick`` where the prediction itself is above the pick's measured score. Empty
    when everything is measured, or no class has the evidence to fit its surrogate."""
    if ranked.empty or len(space) > MAX_SPACE:
        return pd.DataFrame(columns=COLUMNS)
    measured = set(ranked["config_key"])
    if all(c.key in measured for c in space):
        return pd.DataFrame(columns=COLUMNS)
    found = surrogate_predictions(ranked, space, classes, level=level, seed=seed)
    parts = []
    for name, part in found.groupby("class", sort=False):
        table = ranked[ranked["class"] == name]
        pick = float(table.iloc[0]["score"])
        near = part[part["predicted_hi"] >= pick]
        near = near.assign(beats_pick=near["predicted"] > pick)
        parts.append(near.sort_values("predicted", ascending=False).head(top))
    if not parts:
        return pd.DataFrame(columns=COLUMNS)
    return pd.concat(parts, ignore_index=True)[COLUMNS]


def sweep_predictions(
    record: dict[str, Any], ranked: pd.DataFrame, *, top: int = 5
) -> pd.DataFrame:
    """:func:`predict` for a stored sweep (its space and seed from the spec it ran with)."""
    if ranked.empty:
        return pd.DataFrame(columns=COLUMNS)
    seed = int(((record.get("spec") or {}).get("study") or {}).get("seed") or 0)
    classes = list(dict.fromkeys(ranked["class"]))
    return predict(ranked, sweep_space(record), classes, top=top, seed=seed)


def prediction_rows(predicted: pd.DataFrame, name: str) -> list[dict[str, Any]]:
    """One class's predictions as plain rows (the JSON document, the report)."""
    part = predicted[predicted["class"] == name]
    return [
        {
            "configuration": str(r.config_key),
            "kind": "predicted",
            "predicted": float(r.predicted),
            "predicted_lo": float(r.predicted_lo),
            "predicted_hi": float(r.predicted_hi),
            "beats_pick": bool(r.beats_pick),
        }
        for r in part.itertuples()
    ]
