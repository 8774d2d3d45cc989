"""The tables and labels the CLI, the report and the app share (recommender.views), on small
hand-made frames."""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from recommender import views
from recommender.curves import CurvePoint


def _runs(rows: list[tuple[str, str, int, int, int, int, float]]) -> pd.DataFrame:
    """Runs of (config_key, pattern, block_size, iodepth, numjobs, repetition, iops)."""
    frame = pd.DataFrame(
        rows,
        columns=["config_key", "pattern", "block_size", "iodepth", "numjobs", "repetition", "iops"],
    )
    frame["cell_key"] = [
        f"{p}/{b // 1024}k/qd{d}x{j}"
        for p, b, d, j in zip(
            frame["pattern"], frame["block_size"], frame["iodepth"], frame["numjobs"], strict=True
        )
    ]
    frame["run_id"] = [f"{i:024x}" for i in range(len(frame))]
    frame["active_pct"] = 100
    return frame


RUNS = _runs(
    [
        ("a", "randread", 4096, 1, 1, 1, 100.0),
        ("a", "randread", 4096, 1, 1, 2, 300.0),
        ("a", "randread", 8192, 1, 1, 1, 50.0),
        ("a", "write", 4096, 1, 1, 1, 10.0),
        ("a", "randread", 4096, 1, 16, 1, 900.0),
        ("b", "randread", 4096, 1, 1, 1, 400.0),
        ("b", "randread", 8192, 1, 1, 1, math.nan),
        ("b", "randread", 4096, 4, 4, 1, 1000.0),
    ]
)


def _ranked(**extra: list[Any]) -> pd.DataFrame:
    base: dict[str, list[Any]] = {
        "class": ["c", "c", "c"],
        "rank": [1, 1, 3],
        "tied": [True, True, False],
        "config_key": ["a", "b", "z"],
        "score": [100.0, 90.0, 10.0],
        "score_lo": [80.0, 85.0, 9.0],
        "score_hi": [120.0, 95.0, 11.0],
        "cv_pct": [1.0, 2.0, 3.0],
        "repetitions": [3, 3, 2],
        "meets_limits": [True, True, False],
        "violations": ["", "", "write/4k/qd1x1 p99 write 9 ms > 2 ms"],
        "unsteady_runs": [0, 0, 0],
        "cells_missing": ["", "", ""],
    }
    return pd.DataFrame(base | extra)


def _rec(name: str, ranked: pd.DataFrame, cells: list[str] | None = None) -> Any:
    wclass = SimpleNamespace(name=name, metric="iops", cell_keys=cells or [])
    return SimpleNamespace(name=name, ranked=ranked, wclass=wclass)


# labels -----------------------------------------------------------------------------------------
def test_one_rank_label_spelled_one_way() -> None:
    assert views.rank_label(3, False) == "3"
    assert views.rank_label(3, True) == "=3"  # the CLI, the report, the app and the CSV alike
    assert views.rank_label(np.int64(2), np.bool_(True)) == "=2"
    assert views.rank_label(2.0, False) == "2"
    assert views.TIE_MARK == "=" and "'=N'" in views.RANK_CAPTION


def test_limits_texts() -> None:
    assert views.limits_text(True, "anything") == "ok"
    assert views.limits_text(False, "a > 1; b > 2") == "a > 1; b > 2"
    assert views.limits_brief(np.bool_(True), "") == "limits ok"
    assert views.limits_brief(False, "a > 1") == "a > 1"
    assert views.limits_brief(False, "a > 1; b > 2; c > 3") == "a > 1 (+2 more)"
    assert views.class_limits_text([]) == "none"
    assert views.class_limits_text(["p99 write ≤ 2 ms", 5]) == "p99 write ≤ 2 ms, 5"


def test_concurrency_and_curve_labels() -> None:
    assert views.concurrency_label(np.int64(4), 16.0) == "qd4x16"
    labels = ["qd16x1", "qd1x16", "qd4x4", "qd1x1", "odd"]
    assert sorted(labels, key=views.concurrency_key) == [
        "odd",
        "qd1x1",
        "qd1x16",
        "qd4x4",
        "qd16x1",
    ]
    assert views.run_concurrencies(RUNS) == ["qd1x1", "qd1x16", "qd4x4"]
    assert views.run_concurrencies(RUNS.iloc[:0]) == []
    assert views.curve_name("a", "write/1m/ws100") == "a · write/1m/ws100"


# heatmaps ---------------------------------------------------------------------------------------
def test_heatmap_frame_and_grid_frame_are_one_aggregation() -> None:
    frame = views.heatmap_frame(RUNS, "randread", "iops", "qd1x1")
    assert list(frame.columns) == ["config_key", "block_size", "value", "sd", "n"]
    first = frame.iloc[0]
    assert (first["config_key"], first["block_size"], first["value"], first["n"]) == (
        "a",
        4096,
        200.0,
        2,
    )
    assert first["sd"] == pytest.approx(math.sqrt(20000))
    # b at 8k measured nothing: the report's frame keeps the empty cell, the grid leaves it out
    assert frame["value"].isna().sum() == 1
    grid, order = views.grid_frame(
        RUNS, "iops", by="block_size", pattern="randread", concurrency="qd1x1"
    )
    assert order == ["4k", "8k"]
    assert list(grid.columns) == views.GRID_COLUMNS
    assert list(grid.index) == [0, 1, 2]
    kept = frame.dropna(subset=["value"]).reset_index(drop=True)
    assert grid["value"].to_list() == kept["value"].to_list()
    assert grid["column"].to_list() == ["4k", "8k", "4k"]


def test_grid_by_pattern_its_table_and_a_cells_runs() -> None:
    grid, order = views.grid_frame(RUNS, "iops", by="pattern", block_size=4096, concurrency="qd1x1")
    assert order == ["randread", "write"]
    table = views.grid_table(grid, order)
    assert list(table.columns) == [views.CONFIGURATION, "randread", "write"]
    assert table.set_index(views.CONFIGURATION).loc["a"].to_list() == [200.0, 10.0]
    assert math.isnan(table.set_index(views.CONFIGURATION).loc["b", "write"])
    shown = views.cell_runs(
        RUNS, "a", "randread", by="pattern", block_size=4096, concurrency="qd1x1"
    )
    assert shown["repetition"].to_list() == [1, 2]
    assert set(shown.columns) <= set(views.CELL_RUN_COLUMNS.values())
    by_size = views.cell_runs(RUNS, "a", "8k", by="block_size", pattern="randread")
    assert by_size["IOPS"].to_list() == [50.0]
    assert views.cell_runs(RUNS, "a", "64k", by="block_size", pattern="randread").empty
    by_class = views.cell_runs(RUNS, "a", "c", by="class", class_cells={"c": ["write/4k/qd1x1"]})
    assert by_class["cell"].to_list() == ["write/4k/qd1x1"]
    with pytest.raises(ValueError, match="by must be"):
        views.grid_frame(RUNS, "iops", by="class")
    empty, order = views.grid_frame(RUNS.iloc[:0], "iops", by="pattern")
    assert empty.empty and list(empty.columns) == views.GRID_COLUMNS and order == []


def test_score_grid_is_percent_of_each_class_best() -> None:
    frame, order = views.score_grid([_rec("c", _ranked()), _rec("empty", _ranked().iloc[:0])])
    assert order == ["c"]
    assert frame["value"].to_list() == [100.0, 90.0, 10.0]
    # each score's own interval (not symmetric), in % of the best
    assert frame["lo"].to_list() == [80.0, 85.0, 9.0]
    assert frame["hi"].to_list() == [120.0, 95.0, 11.0]
    assert views.score_grid([])[1] == []


def test_score_grid_marks_tied_only_where_the_intervals_overlap() -> None:
    """The '=' of the score heatmap is the ranking's own overlap with the best: the score's
    interval is used as it is, never widened again as if it were a standard deviation."""
    ranked = _ranked(
        rank=[1, 2, 2],
        tied=[False, False, False],
        config_key=["a", "b", "c"],
        score=[100.0, 90.0, 96.0],
        score_lo=[95.0, 88.0, 94.0],
        score_hi=[105.0, 92.0, 97.0],
    )
    frame, _ = views.score_grid([_rec("c", ranked)])
    shaded = views.shade(frame, per_column=True, higher_is_better=True)
    assert shaded["tied"].to_list() == [False, False, True]  # b: 88-92 against 95-105
    assert shaded["label"].to_list() == ["100", "90.0", "=96.0"]
    assert shaded["interval"].to_list() == ["95–105", "88.0–92.0", "94.0–97.0"]


def test_a_cell_interval_from_two_runs_far_apart_stays_positive() -> None:
    """A heatmap cell of two repetitions 1,400 and 1,600 IOPS: the mean's interval on its
    logarithm, 643–3,499, never the negative −297–3,297 of x̄ ± t s/√n."""
    frame = pd.DataFrame(
        {"config_key": ["a", "b"], "column": ["4k", "4k"], "value": [1500.0, 1000.0]}
    ).assign(sd=[141.4213562373095, 0.0], n=[2, 1])
    shaded = views.shade(frame, per_column=True, higher_is_better=True)
    assert shaded["lo"].round().to_list() == [643.0, 1000.0]
    assert shaded["hi"].round().to_list() == [3499.0, 1000.0]
    assert shaded["interval"].iloc[0] == "0.64k–3.50k"  # in the label's scale, 1.50k
    assert shaded["tied"].to_list() == [False, True]  # 1,000 lies within 643–3,499


def test_matrix_options_and_block_sizes() -> None:
    record = {"spec": {"matrix": {"patterns": ["write", "randread"], "concurrency": ["1x1"]}}}
    patterns, concurrency = views.matrix_options(record, RUNS)
    assert patterns == ["write", "randread"]
    assert concurrency == ["qd1x1", "qd1x16", "qd4x4"]
    assert views.block_sizes(RUNS) == [4096, 8192]
    assert views.matrix_options({}, RUNS.iloc[:0]) == ([], [])


# rankings ---------------------------------------------------------------------------------------
def test_recommendation_table_marks_ties_first_and_says_the_limits() -> None:
    table = views.recommendation_table(_ranked(), prices=False)
    assert table["rank"].to_list() == ["=1", "=1", "3"]
    assert table[views.CONFIGURATION].to_list() == ["a", "b", "z"]
    assert table["95% interval"].iloc[0] == "80–120"  # as the CLI and the report write it
    assert table["limits"].to_list() == ["ok", "ok", "write/4k/qd1x1 p99 write 9 ms > 2 ms"]
    assert "usable %" not in table and "unsteady runs" not in table
    traded = _ranked(
        usable_share=[0.5, "x", None],
        rebuild_h=[1.0, 2.0, 3.0],
        loss_risk_per_year=[1e-6, 1e-5, 1e-4],
        cost_per_unit=[1.0, 2.0, 3.0],
        cost_per_usable_gb=[0.1, 0.2, 0.3],
        tradeoff_front=[True, False, False],
        cells_missing=["", "", "write/4k/qd1x1"],
    )
    table = views.recommendation_table(traded, prices=True)
    assert table["usable %"].iloc[0] == 50.0 and math.isnan(table["usable %"].iloc[1])
    assert table["trade-off front"].to_list() == [True, False, False]
    assert table["cells missing"].to_list() == ["", "", "write/4k/qd1x1"]
    assert "cost per unit" in table


def test_ranked_all_and_find_recommendation() -> None:
    recs = [_rec("c", _ranked()), _rec("d", _ranked().iloc[:0])]
    assert len(views.ranked_all(recs)) == 3
    assert list(views.ranked_all([]).columns) == ["class"]
    assert views.find_recommendation(recs, "d") is recs[1]
    assert views.find_recommendation(recs, "nope") is None
    assert math.isnan(views.number("x")) and views.number("2") == 2.0


def test_compare_scores_cells_and_tradeoffs() -> None:
    recs = [_rec("c", _ranked(usable_share=[0.5, 0.25, 1.0])), _rec("e", _ranked().iloc[:0])]
    scores = views.compare_scores(recs, "a", "z")
    row = scores.iloc[0]
    assert (row["rank A"], row["rank B"], row["limits A"]) == ("=1", "3", "ok")
    assert row["A / B"] == pytest.approx(10.0)
    assert scores.iloc[1]["rank A"] == "" and math.isnan(scores.iloc[1]["A / B"])
    cells = views.compare_cells(RUNS, "a", "b", "iops")
    assert cells["cell"].to_list() == ["randread/4k/qd1x1", "randread/8k/qd1x1"]
    assert cells["A / B"].iloc[0] == pytest.approx(0.5)
    assert cells["repetitions"].to_list() == ["2/1", "1/0"]  # b's 8k run measured nothing
    # a figure neither measured in a cell (a write latency of reads): the cell is not listed
    no_writes = RUNS.assign(write_lat_p99_ms=[math.nan] * 3 + [2.0] + [math.nan] * 4)
    assert views.compare_cells(no_writes, "a", "b", "write_lat_p99_ms").empty
    no_writes.loc[5, "write_lat_p99_ms"] = 3.0  # b's 4k read with a write latency
    cells = views.compare_cells(no_writes, "a", "b", "write_lat_p99_ms")
    assert cells["repetitions"].to_list() == ["0/1"]
    trade = views.compare_tradeoffs(recs, "a", "b")
    assert trade.to_dict("records") == [{"figure": "usable share", "A": 0.5, "B": 0.25}]


def test_evidence_and_impact_tables() -> None:
    evidence = pd.DataFrame(
        {
            "cell": ["w"],
            "weight": [1],
            "recommended": [2],
            "runner_up": [1],
            "ratio": [2],
            "contribution_pct": [100],
            "repetitions": ["3/3"],
        }
    )
    assert list(views.evidence_table(evidence).columns) == [
        "cell",
        "weight",
        "recommended",
        "runner-up",
        "ratio",
        "share %",
        "repetitions",
    ]
    impact = pd.DataFrame(
        {
            "feature": ["snapshots"],
            "configuration": ["a"],
            "score_off": [2],
            "score_on": [1],
            "kept_pct": [50],
        }
    )
    assert views.impact_table(impact).iloc[0]["kept %"] == 50.0


# curves -----------------------------------------------------------------------------------------
def _curve(active_pct: Any) -> dict[str, Any]:
    points = tuple(CurvePoint(n, 100.0 * n, 0.1 * n) for n in (1, 2, 4))
    return {
        "config_key": "a",
        "curve": "randread/8k" + ("" if active_pct is None else f"/ws{int(active_pct)}"),
        "pattern": "randread",
        "block_size": 8192,
        "active_pct": active_pct,
        "points": list(points),
        "speed": points[0],
        "optimum": points[2],
        "maximum": points[2],
        "method": "gain-vs-latency",
        "note": "how",
        "stopped": None,
    }


def test_curve_points_name_every_role_or_one() -> None:
    table = pd.DataFrame([_curve(None)])
    both = views.curve_points(table)
    assert both["role"].to_list() == ["Speed", "", "Optimum + Maximum"]
    assert both["curve"].iloc[0] == "a · randread/8k"
    one = views.curve_points(table, one_role=True)
    assert one["role"].to_list() == ["Speed", "", "Optimum"]
    assert views.curve_points(pd.DataFrame(columns=["config_key"])).empty
    summary = views.curve_summary(pd.DataFrame([_curve(10)]))
    assert summary.iloc[0]["curve"] == "a · randread/8k/ws10"
    assert summary.iloc[0]["Maximum in flight"] == 4 and summary.iloc[0]["stopped"] == ""


def test_curves_of_one_cell_are_named_by_configuration_and_working_set() -> None:
    """On the Curves page every curve is of the pattern and block size chosen above the
    table: each is named without them, by its configuration (and working set, if any)."""
    table = pd.DataFrame([_curve(10), _curve(None)])
    summary = views.curve_summary(table, in_one_cell=True)
    assert summary["curve"].to_list() == ["a · ws10", "a"]
    whole = views.curve_summary(table)
    assert list(summary.columns) == list(whole.columns)
    assert summary.drop(columns="curve").equals(whole.drop(columns="curve"))


# runs -------------------------------------------------------------------------------------------
def test_configuration_table_counts_runs() -> None:
    attempts = RUNS.assign(status=["ok"] * 7 + ["failed"])
    configs = pd.DataFrame({"config_key": ["b", "b", "c"], "status": ["failed", "ok", "ok"]})
    table = views.configuration_table(attempts, configs, 4)
    assert table.to_dict("records") == [
        {
            "configuration": "a",
            "reconfiguration": "",
            "attempts": 0,
            "runs done": 5,
            "runs failed": 0,
            "runs planned": 4,
        },
        {
            "configuration": "b",
            "reconfiguration": "ok",
            "attempts": 2,
            "runs done": 2,
            "runs failed": 1,
            "runs planned": 4,
        },
        {
            "configuration": "c",
            "reconfiguration": "ok",
            "attempts": 1,
            "runs done": 0,
            "runs failed": 0,
            "runs planned": 4,
        },
    ]
    assert "runs planned" not in views.configuration_table(attempts, configs, 0)


def test_run_lookups() -> None:
    assert views.run_id_problem("abc") and views.run_id_problem("A" * 24)
    assert views.run_id_problem("a" * 24) is None
    assert views.find_run(RUNS, "a", "randread/4k/qd1x1", 2) == f"{1:024x}"
    assert views.find_run(RUNS, "a", "randread/4k/qd1x1", 9) is None
    summary = views.run_summary(
        {
            "iops": 3637.512,
            "job_file": "x",
            "error": None,
            "read_lat_p99_ms": 9.987026,
            "write_lat_p999_ms": 0.10423,
            "block_size": 65536,
            "runtime_s": 300.0,
            "steady": None,
            "snapshots": False,
        }
    )
    # in words with their units, figures as the CLI writes them; nothing without a value
    assert summary.to_dict("records") == [
        {"field": "IOPS", "value": "3,638"},
        {"field": "read p99 latency (ms)", "value": "9.99"},
        {"field": "write p99.9 latency (ms)", "value": "0.104"},
        {"field": "block size", "value": "64k"},
        {"field": "runtime (s)", "value": "300"},
        {"field": "steady", "value": "not judged"},
        {"field": "snapshots", "value": "no"},
    ]


def test_shared_figures_read_as_the_cli_writes_them() -> None:
    """The risk as ``raidsweep recommend`` writes it, a share that rounds to 0 without a sign,
    each metric in its own precision."""
    from types import SimpleNamespace

    from recommender.views.markdown import risk_text, share_text
    from sweeper.cli.recommend import _figures

    row = SimpleNamespace(
        score=340.9,
        score_lo=309.2,
        score_hi=372.7,
        cv_pct=1.0,
        repetitions=3,
        usable_share=0.875,
        loss_risk_per_year=1.0923e-6,
        cost_per_unit=1.0,
    )
    figures = _figures(row, None, 0)
    assert risk_text(row.loss_risk_per_year) == figures["loss risk/yr"] == "1.1e-06"
    assert figures["score"] == "341 (309–373)"
    assert _figures(row, None, 1)["score"] == "340.9 (309.2–372.7)"
    assert [share_text(v) for v in (-0.4, 0.3, 12.6, -84.7)] == ["0", "0", "+13", "-85"]
    assert views.metric_text("read_lat_p99_ms", 0.10423) == "0.104"
    assert views.metric_text("iops", 3637.512) == "3,638"
    assert views.metric_text("mbps", 2.900951) == "2.901"


def test_a_grid_of_many_cells_is_cut_into_tables_that_fit() -> None:
    cells = [f"{p}/{b}/qd{q}" for p in ("read", "write") for b in ("4k", "16k") for q in (1, 8)]
    groups = views.column_groups(cells, by_key=True, limit=4)
    assert [h for h, _ in groups] == ["read", "write"]
    assert [views.short_column(c, "read") for c in groups[0][1]] == [
        "4k/qd1",
        "4k/qd8",
        "16k/qd1",
        "16k/qd8",
    ]
    deeper = views.column_groups(cells, by_key=True, limit=2)
    assert [h for h, _ in deeper] == ["read/4k", "read/16k", "write/4k", "write/16k"]
    parts = views.column_groups([f"c{i}" for i in range(5)], by_key=False, limit=3)
    assert parts == [("part 1 of 2", ["c0", "c1", "c2"]), ("part 2 of 2", ["c3", "c4"])]


def test_compared_cells_in_order_of_their_values() -> None:
    runs = pd.DataFrame(
        {
            "config_key": ["a", "b"] * 3,
            "cell_key": [c for c in ("r/64k/qd1x1", "r/8k/qd1x16", "r/8k/qd1x4") for _ in "ab"],
            "iops": [1.0] * 6,
        }
    )
    cells = views.compare_cells(runs, "a", "b", "iops")["cell"]
    assert list(cells) == ["r/8k/qd1x4", "r/8k/qd1x16", "r/64k/qd1x1"]
