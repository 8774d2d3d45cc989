"""The surrogate's predictions as the app and the report show them (recommender/views/predicted.py,
recommender/predictions.py), from the real Gaussian process over synthetic score tables: a
prediction never enters a ranking as a measurement, never moves a class's 100%, carries its
interval and its mark, and a configuration can be predicted best while not measured."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from recommender import views
from recommender.predictions import annotate, fitted_on, nearest, surrogate_all
from recommender.views import predicted as shown
from sweeper.configuration import Configuration
from tests.support.landscape import SPACE, sample, smooth, table

BEST = max(SPACE, key=smooth)


def ranked_table(scores: dict[str, float], name: str = "redo_log") -> pd.DataFrame:
    """A ranked class table with every column the ranking shows (ranks 1..n, no ties)."""
    part = table(scores, name)
    spread = part["score"] * 0.02
    return part.assign(
        tied=False,
        score_lo=part["score"] - spread,
        score_hi=part["score"] + spread,
        violations="",
        unsteady_runs=0,
        cells_missing="",
    )


def without_raid10() -> list[Configuration]:
    """RAID 5 and 6 measured, plus the weakest RAID 10: the true best is not measured."""
    measured = [c for c in sample(40, seed=2) if c.raid_level != "raid10"]
    weak = min((c for c in SPACE if c.raid_level == "raid10"), key=smooth)
    return [*measured, weak]


@pytest.fixture(scope="module")
def case() -> tuple[pd.DataFrame, pd.DataFrame]:
    ranked = ranked_table({c.key: smooth(c) for c in without_raid10()})
    return ranked, annotate(surrogate_all(ranked, SPACE, ["redo_log"]), ranked)


def test_predictions_never_enter_a_ranking_as_measurements(case) -> None:
    ranked, found = case
    measured = set(ranked["config_key"])
    assert len(found) == len(SPACE) - len(measured)
    assert set(found["kind"]) == {"predicted"} and not set(found["config_key"]) & measured
    # The ranking: the measured rows only, numbered 1..n, whatever is predicted above them.
    ranking = views.recommendation_table(ranked, prices=False)
    assert set(ranking[views.CONFIGURATION]) == measured
    assert ranking["rank"].to_list() == [str(r) for r in range(1, len(ranked) + 1)]
    # The predicted rows: apart, never numbered, each marked with its interval.
    near = nearest(found, top=5)
    rows = shown.predicted_table(near, "redo_log")
    assert len(rows) == 5 and set(rows["rank"]) == {shown.NOT_RANKED}
    assert not set(rows[views.CONFIGURATION]) & measured
    assert all(s.startswith(shown.MARK + " ") for s in rows["predicted score"])
    assert all("–" in s and " " not in s for s in rows["95% interval"])
    assert set(rows["measured"]) == {"not measured"}
    # A prediction slipped into a ranking is refused, by the table and by the score grid.
    mixed = pd.concat([ranked.assign(kind="measured"), near.head(1)], ignore_index=True)
    with pytest.raises(ValueError, match="measurements only.*" + near["config_key"].iloc[0]):
        views.recommendation_table(mixed, prices=False)
    rec = SimpleNamespace(name="redo_log", ranked=mixed)
    with pytest.raises(ValueError, match="measurements only"):
        views.score_grid([rec])


def test_a_predicted_interval_reads_as_the_rankings() -> None:
    """The same bounds read the same under the ranking as in it: thousands grouped, the
    precision of the class's scores (whole: the largest reaches 100), an en dash without
    spaces (``recommender.figures``)."""
    bounds = [(1234.6, 2345.6), (0.5, 950.3)]
    ranked = ranked_table({"a": 2000.0, "b": 500.0}).assign(
        score_lo=[lo for lo, _ in bounds], score_hi=[hi for _, hi in bounds]
    )
    predicted = pd.DataFrame(
        {
            "class": "redo_log",
            "config_key": ["c", "d"],
            "predicted": [1800.0, 400.0],
            "predicted_lo": [lo for lo, _ in bounds],
            "predicted_hi": [hi for _, hi in bounds],
            "cells_measured": 0,
            "cells": 3,
            "beats_pick": False,
        }
    )
    rows = shown.predicted_table(predicted, "redo_log")
    assert rows["95% interval"].to_list() == ["1,235–2,346", "0–950"]
    ranking = views.recommendation_table(ranked, prices=False)
    assert rows["95% interval"].to_list() == ranking["95% interval"].to_list()


def test_a_configuration_can_be_predicted_best_not_measured(case) -> None:
    ranked, found = case
    pick = float(ranked["score"].iloc[0])
    best = shown.predicted_best(nearest(found, top=5), "redo_log")
    assert best and all(k.startswith("raid10/") for k in best)
    assert not set(best) & set(ranked["config_key"])
    rows = shown.predicted_table(nearest(found, top=5), "redo_log").set_index(views.CONFIGURATION)
    assert (rows.loc[best, "status"] == shown.PREDICTED_BEST).all()
    above = found.set_index("config_key").loc[best]
    assert (above["predicted"] > pick).all() and above["beats_pick"].all()
    # the surrogate learnt the structure: the true best is among those predicted above the pick
    assert BEST.key in set(found.loc[found["beats_pick"], "config_key"])


def test_the_score_heatmap_keeps_predicted_cells_apart(case) -> None:
    ranked, found = case
    rec = SimpleNamespace(name="redo_log", ranked=ranked)
    grid, order = views.score_grid([rec])
    assert order == ["redo_log"] and grid["value"].max() == pytest.approx(100.0)
    measured_cells = set(zip(grid["column"], grid["config_key"], strict=True))
    cells = shown.predicted_cells(found, ranked, top=5, shown=measured_cells)
    assert len(cells) == 5 and not set(cells["config_key"]) & set(grid["config_key"])
    assert all(label.startswith(shown.MARK) for label in cells["label"])
    assert ((cells["lo"] <= cells["value"]) & (cells["value"] <= cells["hi"])).all()
    # % of the best *measured* score: predicted above the pick is above 100, the grid unmoved
    best = cells[cells["status"] == shown.PREDICTED_BEST]
    assert len(best) and (best["value"] > 100).all()
    assert views.score_grid([rec])[0]["value"].max() == pytest.approx(100.0)
    # the predicted rows come after every measured one, marked as predicted
    shaded = views.shade(grid, per_column=False, higher_is_better=True)
    rows = views.row_order(shaded, views.ROW_ORDER_CONFIGURATION, higher_is_better=True)
    every = shown.predicted_rows(rows, cells)
    assert every[: len(rows)] == rows and set(every[len(rows) :]) == set(cells["config_key"])
    marks = shown.predicted_marks(rows, cells)
    assert set(marks) == set(cells["config_key"])
    assert all(shown.PREDICTED in m for m in marks.values())


def test_a_pruned_configuration_is_predicted_on_its_missing_cells(case) -> None:
    ranked, _ = case
    # the second-best configuration was pruned after one of the class's three cells
    pruned = str(ranked["config_key"].iloc[1])
    partial = ranked.copy()
    partial.loc[partial["config_key"] == pruned, "cells_measured"] = 1
    found = annotate(surrogate_all(partial, SPACE, ["redo_log"]), partial)
    row = found.set_index("config_key").loc[pruned]
    assert row["kind"] == "predicted" and (row["cells_measured"], row["cells"]) == (1, 3)
    assert shown.measured_text(1, 3) == "1 of 3 cells measured"
    # its measured (partial) cell stays in the grid; no predicted cell is drawn over it
    cells = shown.predicted_cells(found, partial, top=len(found), shown={("redo_log", pruned)})
    assert pruned not in set(cells["config_key"])
    # ... and it keeps its one place in the ranking, as the measurement it is
    ranking = views.recommendation_table(partial, prices=False)
    assert ranking[views.CONFIGURATION].to_list().count(pruned) == 1


def test_everything_measured_predicts_nothing() -> None:
    ranked = ranked_table({c.key: smooth(c) for c in SPACE})
    found = annotate(surrogate_all(ranked, SPACE, ["redo_log"]), ranked)
    assert found.empty
    assert shown.predicted_table(nearest(found), "redo_log").empty
    assert shown.predicted_cells(found, ranked, top=5, shown=set()).empty


def test_the_surrogate_is_fitted_again_only_when_a_configuration_completes(case) -> None:
    ranked, found = case
    key = str(found["config_key"].iloc[0])  # not measured yet
    row = ranked.iloc[[0]].assign(config_key=key, score=1.0, rank=len(ranked) + 1)

    def measuring(cells: int) -> pd.DataFrame:
        return pd.concat([ranked, row.assign(cells_measured=cells)], ignore_index=True)

    # runs of a configuration in flight leave the surrogate as it was ...
    assert fitted_on(measuring(1)) == fitted_on(measuring(2)) == fitted_on(ranked)
    # ... and the predictions say how far it has come, from the ranking as it is now
    raw = surrogate_all(ranked, SPACE, ["redo_log"])
    now = annotate(raw, measuring(2)).set_index("config_key").loc[key]
    assert (now["cells_measured"], now["cells"]) == (2, 3)
    assert shown.measured_text(2, 3) == "2 of 3 cells measured"
    # measured on every cell, it is evidence: the surrogate is fitted again, without it
    assert fitted_on(measuring(3)) != fitted_on(ranked)
    again = annotate(surrogate_all(measuring(3), SPACE, ["redo_log"]), measuring(3))
    assert key not in set(again["config_key"]) and len(again) == len(found) - 1


def test_the_heatmaps_predicted_cells_write_their_interval_as_the_tables() -> None:
    """The Heatmaps page's predicted cells give their interval (in percent of the best
    measured) in the tooltip as every table writes an interval (``87–113``)."""
    import altair as alt

    from app_pages._predictions import with_predicted_cells

    cells = pd.DataFrame(
        {
            "config_key": ["raid5/single_rank/wb-ra"],
            "column": ["data_file"],
            "value": [99.5],
            "lo": [87.04],
            "hi": [112.96],
            "label": ["~ 99.5"],
            "status": ["predicted, not measured"],
            "measured": ["1 of 4 cells"],
        }
    )
    base = alt.layer(alt.Chart(pd.DataFrame({"x": [1]})).mark_point()).properties(
        height=100, width=100
    )
    chart = with_predicted_cells(base, cells, ["data_file"], list(cells["config_key"]), "class")
    told = [
        row["interval"]
        for rows in chart.to_dict()["datasets"].values()
        for row in rows
        if "interval" in row
    ]
    assert told and set(told) == {"87–113"}
