"""The surrogate's predictions for the configurations a sweep has not measured (or not on all
of a class's cells: pruned ones), with intervals, marked as predictions.

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

#: what a prediction row holds (``kind`` is always "predicted"; ``cells_measured`` is how many
#: of the class's ``cells`` the configuration was measured on: 0, or some when pruned)
COLUMNS = [
    "class",
    "config_key",
    "predicted",
    "predicted_lo",
    "predicted_hi",
    "kind",
    "beats_pick",
    "near",
    "cells_measured",
    "cells",
]
#: a space larger than this is not predicted for the CLI, the report and the app
MAX_SPACE = 20_000
#: the predictions listed per class: the likeliest to change the decision
TOP = 5
#: the predictions' interval
LEVEL = 0.95


def sweep_space(record: dict[str, Any]) -> list[Configuration]:
    """Every configuration of the sweep's config space (from the spec it ran with)."""
    space = ConfigSpace.model_validate((record.get("spec") or {}).get("config_space") or {})
    return enumerate_configurations(space)


def _empty() -> pd.DataFrame:
    return pd.DataFrame(columns=COLUMNS)


def _complete(ranked: pd.DataFrame) -> set[tuple[str, str]]:
    """(class, configuration) measured on every cell of the class."""
    most = ranked.groupby("class")["cells_measured"].transform("max")
    done = ranked[ranked["cells_measured"] == most]
    return set(zip(done["class"], done["config_key"], strict=True))


def fitted_on(ranked: pd.DataFrame) -> tuple[tuple[Any, ...], ...]:
    """What the surrogate is fitted on: per class the configurations measured on all its
    cells, with their scores, spread and repetitions. The predictions change only when this
    does (a key for caching them while a sweep writes run after run)."""
    if ranked.empty:
        return ()
    most = ranked.groupby("class")["cells_measured"].transform("max")
    done = ranked[ranked["cells_measured"] == most]
    cols = ["class", "config_key", "score", "cv_pct", "repetitions"]
    return tuple(sorted(tuple(row) for row in done[cols].itertuples(index=False)))


def surrogate_all(
    ranked: pd.DataFrame, space: list[Configuration], classes: list[str], seed: int = 0
) -> pd.DataFrame:
    """The surrogate's prediction of every configuration not measured on all of a class's
    cells (``sweeper.sweep.stopping.predictions``), with a ``LEVEL`` interval; empty when
    everything is, or the space is larger than MAX_SPACE. It depends on :func:`fitted_on`
    alone; :func:`annotate` sets it against the ranking, :func:`nearest` keeps the ones that
    could change a decision."""
    empty = pd.DataFrame(columns=["class", "config_key", "predicted", "predicted_lo"])
    if ranked.empty or len(space) > MAX_SPACE:
        return empty
    complete = _complete(ranked)
    if all((name, c.key) in complete for name in classes for c in space):
        return empty
    return surrogate_predictions(ranked, space, classes, level=LEVEL, seed=seed)


def annotate(found: pd.DataFrame, ranked: pd.DataFrame) -> pd.DataFrame:
    """Predictions (:func:`surrogate_all`) against the ranking as it is now (COLUMNS):
    ``beats_pick`` where the prediction is above the pick's measured score, ``near`` where
    its interval reaches it (the only ones that could change the decision), and how many of
    the class's cells the configuration was measured on so far (pruned, or in flight)."""
    parts = []
    for name, part in found.groupby("class", sort=False) if len(found) else []:
        table = ranked[ranked["class"] == name]
        if table.empty:
            continue
        pick = float(table.iloc[0]["score"])
        cells = dict(zip(table["config_key"], table["cells_measured"], strict=True))
        parts.append(
            part.assign(
                kind="predicted",
                beats_pick=part["predicted"] > pick,
                near=part["predicted_hi"] >= pick,
                cells_measured=[int(cells.get(k, 0)) for k in part["config_key"]],
                cells=int(table["cells_measured"].max()),
            )
        )
    if not parts:
        return _empty()
    return pd.concat(parts, ignore_index=True)[COLUMNS]


def nearest(found: pd.DataFrame, top: int = TOP) -> pd.DataFrame:
    """Per class, the ``top`` predictions by predicted score whose interval reaches the pick."""
    if found.empty:
        return found
    near = found[found["near"].astype(bool)]
    parts = [
        part.sort_values("predicted", ascending=False, kind="stable").head(top)
        for _, part in near.groupby("class", sort=False)
    ]
    return pd.concat(parts, ignore_index=True) if parts else _empty()


def sweep_surrogate(record: dict[str, Any], ranked: pd.DataFrame) -> pd.DataFrame:
    """:func:`surrogate_all` for a stored sweep (its space and seed from the spec it ran
    with)."""
    if ranked.empty:
        return _empty()
    seed = int(((record.get("spec") or {}).get("study") or {}).get("seed") or 0)
    classes = list(dict.fromkeys(ranked["class"]))
    return surrogate_all(ranked, sweep_space(record), classes, seed)


def sweep_predictions_all(record: dict[str, Any], ranked: pd.DataFrame) -> pd.DataFrame:
    """Every prediction of a stored sweep (:func:`annotate`)."""
    return annotate(sweep_surrogate(record, ranked), ranked)


def sweep_predictions(
    record: dict[str, Any], ranked: pd.DataFrame, *, top: int = TOP
) -> pd.DataFrame:
    """A stored sweep's predictions that could change a decision (:func:`nearest`)."""
    return nearest(sweep_predictions_all(record, ranked), top)


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
