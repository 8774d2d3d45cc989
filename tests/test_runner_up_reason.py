"""The decision's words about the runner-up say what put it behind: the tie-break criterion,
the limit it breaks, the cells it lacks, or the cell that pulled most for the recommended one,
and never a cell where the recommended configuration is the worse of the two."""

from __future__ import annotations

import pandas as pd

from recommender.data import sweep_classes
from recommender.recommendations import class_recommendations, runner_up_reason
from recommender.tiebreak import break_tie
from recommender.tradeoffs import hardware_facts
from sweeper.store import ParquetStore


def _row(key: str, score: float, **more: object) -> pd.Series:
    return pd.Series(
        {
            "config_key": key,
            "score": score,
            "meets_limits": True,
            "violations": "",
            "cells_measured": 3,
            "loss_risk_per_year": 1e-4,
            "usable_share": 0.75,
        }
        | more
    )


def _evidence(*rows: tuple[str, float, float]) -> pd.DataFrame:
    return pd.DataFrame(
        [{"cell": c, "ratio": r, "contribution_pct": p} for c, r, p in rows],
        columns=["cell", "ratio", "contribution_pct"],
    )


def test_the_cell_named_is_one_where_the_recommended_is_ahead() -> None:
    # the largest pull is against the recommended one; the largest for it comes second
    ev = _evidence(("write/1m/qd1x16", 0.95, -60.0), ("read/1m/qd1x16", 1.30, 40.0))
    text = runner_up_reason(_row("a", 110), _row("b", 100), None, ev)
    assert text == "decided mostly by read/1m/qd1x16 (×1.30)"


def test_a_tie_break_says_its_criterion_not_a_cell() -> None:
    best = _row("a", 97, loss_risk_per_year=1e-5)
    runner = _row("b", 100, loss_risk_per_year=3e-4)
    tie = break_tie(pd.DataFrame([best, runner]), ["loss_risk"])
    assert tie.order["config_key"].iloc[0] == "a"
    ev = _evidence(("write/1m/qd1x16", 0.95, -100.0))
    text = runner_up_reason(best, runner, tie, ev)
    assert text.startswith("put behind by the tie-break on data-loss risk per year")
    assert "3.00e-04 against 1.00e-05" in text and "decided mostly" not in text


def test_a_broken_limit_is_named() -> None:
    runner = _row(
        "b", 130, meets_limits=False, violations="randread/8k/qd1x16: p99 29.1 ms > 20 ms"
    )
    text = runner_up_reason(_row("a", 100), runner, None, _evidence(("x", 0.8, -100.0)))
    assert text == "which breaks a limit (randread/8k/qd1x16: p99 29.1 ms > 20 ms)"


def test_fewer_cells_are_named() -> None:
    runner = _row("b", 130, cells_measured=2)
    assert runner_up_reason(_row("a", 100), runner, None, _evidence()) == (
        "measured on fewer of the class's cells"
    )


def test_the_quick_sweep_names_only_cells_the_recommended_wins(quick_store: ParquetStore) -> None:
    record = quick_store.get_sweep("quick")
    runs = quick_store.runs("quick")
    recs = class_recommendations(runs, sweep_classes(record), hardware_facts(record))
    named = [r for r in recs if "decided mostly by" in r.sentence()]
    assert named  # the claim is not vacuous
    for r in named:
        cell = r.runner_up_reason.split("decided mostly by ")[1].split(" (")[0]
        row = r.evidence[r.evidence["cell"] == cell].iloc[0]
        assert row["ratio"] > 1 and row["contribution_pct"] > 0, r.sentence()


def test_a_runner_up_that_measured_nothing_reads_so() -> None:
    ev = _evidence(("randread/8k/qd1x16", float("inf"), 100.0))
    text = runner_up_reason(_row("a", 100), _row("b", 1e-7), None, ev)
    assert text.endswith("(where the runner-up measured almost nothing)") and "inf" not in text
