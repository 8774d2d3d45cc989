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
