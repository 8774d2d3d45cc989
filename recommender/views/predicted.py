"""The surrogate's predictions as shown beside the measurements (``recommender.predictions``):
a class's predicted rows under its ranking and the predicted cells of the score heatmap,
each marked as a prediction with its interval, never ranked and never a measurement."""

from __future__ import annotations

import math

import pandas as pd

from recommender.figures import figure, interval_text, score_decimals
from recommender.predictions import nearest
from recommender.views.labels import CONFIGURATION

#: the mark before a predicted figure, wherever it is shown (CLI, report, app)
MARK = "~"
PREDICTED = "predicted, not measured"
PREDICTED_BEST = "predicted best, not measured"
#: what a predicted row has where a ranked row has its rank
NOT_RANKED = "not ranked"
#: the columns of a class's predicted rows
TABLE_COLUMNS = ["rank", CONFIGURATION, "predicted score", "95% interval", "measured", "status"]
#: the predicted cells of the score heatmap
CELL_COLUMNS = ["config_key", "column", "value", "lo", "hi", "label", "status", "measured"]


def measured_text(cells_measured: int, cells: int) -> str:
    """What was measured of a predicted configuration: nothing, or some of the class's cells
    (pruned, or still being measured)."""
    if cells_measured <= 0:
        return "not measured"
    return f"{cells_measured} of {cells} cells measured"


def status(beats_pick: bool) -> str:
    return PREDICTED_BEST if beats_pick else PREDICTED


def predicted_table(predicted: pd.DataFrame, name: str) -> pd.DataFrame:
    """One class's predictions (``recommender.predictions.nearest``) as shown under its
    ranking: no rank, the predicted score marked ``~`` with its 95% interval, what was
    measured of the configuration, and whether it is predicted above the pick."""
    part = predicted[predicted["class"] == name] if len(predicted) else predicted
    if part.empty:
        return pd.DataFrame(columns=TABLE_COLUMNS)
    decimals = score_decimals(part["predicted"])  # as the CLI writes them
    return pd.DataFrame(
        {
            "rank": NOT_RANKED,
            CONFIGURATION: part["config_key"].astype(str).to_numpy(),
            "predicted score": [f"{MARK} {figure(v, f',.{decimals}f')}" for v in part["predicted"]],
            "95% interval": [  # as the ranking writes its intervals
                interval_text(lo, hi, decimals)
                for lo, hi in zip(part["predicted_lo"], part["predicted_hi"], strict=True)
            ],
            "measured": [
                measured_text(int(k), int(n))
                for k, n in zip(part["cells_measured"], part["cells"], strict=True)
            ],
            "status": [status(bool(b)) for b in part["beats_pick"]],
        }
    )[TABLE_COLUMNS]


def predicted_best(predicted: pd.DataFrame, name: str) -> list[str]:
    """The configurations predicted above the class's pick and not measured on its cells."""
    if predicted.empty:
        return []
    part = predicted[(predicted["class"] == name) & predicted["beats_pick"].astype(bool)]
    return [str(k) for k in part["config_key"]]


def predicted_cells(
    found: pd.DataFrame, ranked: pd.DataFrame, *, top: int, shown: set[tuple[str, str]]
) -> pd.DataFrame:
    """The score heatmap's predicted cells: for the configurations among any class's ``top``
    predictions (``recommender.predictions.nearest``), their prediction in every class, as %
    of the class's best *measured* score (a prediction never moves the 100%), with the
    interval; none where the grid ``shown`` already has a measured cell (class,
    configuration): a pruned configuration keeps its measured cell there."""
    if found.empty or ranked.empty:
        return pd.DataFrame(columns=CELL_COLUMNS)
    keys = set(nearest(found, top)["config_key"])
    part = found[found["config_key"].isin(keys)]
    part = part[
        [(c, k) not in shown for c, k in zip(part["class"], part["config_key"], strict=True)]
    ]
    best = ranked.groupby("class")["score"].max().astype(float)
    scale = part["class"].map(lambda c: 100 / best[c] if best.get(c, 0) > 0 else math.nan)
    value = part["predicted"].astype(float) * scale
    out = pd.DataFrame(
        {
            "config_key": part["config_key"].astype(str).to_numpy(),
            "column": part["class"].astype(str).to_numpy(),
            "value": value.to_numpy(),
            "lo": (part["predicted_lo"].astype(float) * scale).to_numpy(),
            "hi": (part["predicted_hi"].astype(float) * scale).to_numpy(),
            "label": [f"{MARK}{v:.0f}" for v in value],
            "status": [status(bool(b)) for b in part["beats_pick"]],
            "measured": [
                measured_text(int(k), int(n))
                for k, n in zip(part["cells_measured"], part["cells"], strict=True)
            ],
        }
    )
    return out[CELL_COLUMNS].reset_index(drop=True)


def predicted_rows(rows: list[str], cells: pd.DataFrame) -> list[str]:
    """The heatmap's rows: the measured ones in their order, then the predicted-only ones
    (apart, after every measured row: they hold no rank)."""
    extra = [k for k in dict.fromkeys(cells["config_key"]) if k not in set(rows)]
    return [*rows, *sorted(extra)]


def predicted_marks(rows: list[str], cells: pd.DataFrame) -> dict[str, str]:
    """After the key of a row that is predicted only: that it is predicted, not measured."""
    measured = set(rows)
    return {
        str(k): f"   {MARK} {PREDICTED}"
        for k in dict.fromkeys(cells["config_key"])
        if k not in measured
    }
