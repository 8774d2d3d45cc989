"""The Pareto set across classes."""

from __future__ import annotations

import pandas as pd

from recommender.pareto import pareto_set


def _ranked(rows: dict[str, tuple[float, float]]) -> pd.DataFrame:
    out = []
    for key, (a, b) in rows.items():
        out += [
            {"config_key": key, "class": "redo", "score": a},
            {"config_key": key, "class": "data", "score": b},
        ]
    return pd.DataFrame(out)


def test_only_the_non_dominated_remain() -> None:
    ranked = _ranked({"a": (10, 1), "b": (5, 5), "c": (1, 10), "d": (4, 4), "e": (10, 1)})
    front = pareto_set(ranked)
    assert set(front.index) == {"a", "b", "c", "e"}  # d is beaten by b in both; a = e tie
    assert list(front.columns) == ["data", "redo"]


def test_one_class_has_no_front() -> None:
    ranked = pd.DataFrame([{"config_key": "a", "class": "redo", "score": 1.0}])
    assert pareto_set(ranked).empty


def test_a_limit_breaker_has_no_score_in_that_class() -> None:
    """x is fastest for redo but breaks redo's latency limit: that score counts as none, so
    b (which keeps every limit and is better for data) beats it, and x leaves the front."""
    ranked = _ranked({"x": (20, 4), "b": (5, 5)})
    ranked["meets_limits"] = True
    assert set(pareto_set(ranked).index) == {"x", "b"}  # with its redo score, x stays
    ranked.loc[(ranked["config_key"] == "x") & (ranked["class"] == "redo"), "meets_limits"] = False
    assert set(pareto_set(ranked).index) == {"b"}
    # a breaker no other beats stays, its broken class shown as no score
    ranked = _ranked({"x": (20, 9), "b": (5, 5)})
    ranked["meets_limits"] = [False, True, True, True]
    front = pareto_set(ranked)
    assert set(front.index) == {"x", "b"} and pd.isna(front.loc["x", "redo"])
