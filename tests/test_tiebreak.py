"""A class's tie-break, its validation, the margin to each limit, heatmap shading and the
glossary: pure functions over tables built here."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from recommender.classes import TIE_BREAK_CRITERIA, load_class
from recommender.tiebreak import CRITERIA, break_tie
from recommender.views import explain_key, row_order, shade
from sweeper.errors import InputError


def _group() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "config_key": ["raid5/single_rank/wb-ra", "raid6/single_rank/wb-ra", "raid10/x"],
            "score": [110.0, 100.0, 105.0],
            "usable_share": [0.875, 0.75, 0.5],
            "loss_risk_per_year": [1e-6, 1e-11, 1e-9],
            "cost": [np.nan, np.nan, np.nan],
        }
    )


def test_criteria_in_order_then_score() -> None:
    tie = break_tie(_group(), ["loss_risk", "usable_capacity"])
    assert list(tie.order["config_key"]) == [
        "raid6/single_rank/wb-ra",
        "raid10/x",
        "raid5/single_rank/wb-ra",
    ]
    assert tie.decided_by is CRITERIA["loss_risk"]
    tie = break_tie(_group(), ["usable_capacity"])
    assert tie.order["config_key"].iloc[0] == "raid5/single_rank/wb-ra"
    assert "behind it on usable capacity" in tie.note()


def test_unknown_figures_are_skipped_and_said() -> None:
    tie = break_tie(_group(), ["cost"])
    assert tie.order["config_key"].iloc[0] == "raid5/single_rank/wb-ra"  # by score
    assert "skipped, figures unknown: cost" in tie.note()


def test_every_criterion_names_a_column_of_the_tradeoffs() -> None:
    assert set(CRITERIA) == set(TIE_BREAK_CRITERIA)


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("[usable_capacity, speed]", "tie_break[1]: 'speed' is not a tie-break criterion"),
        ("[cost, cost]", "cost named twice"),
        ("cost", "valid list"),
    ],
)
def test_bad_tie_break_is_refused_with_its_place(tmp_path: Path, value: str, problem: str) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(f"name: c\ncells: [{{cell: randread/8k/qd1x16}}]\ntie_break: {value}\n")
    with pytest.raises(InputError) as info:
        load_class(path)
    assert problem in info.value.render()
    assert "line 3" in info.value.render()


def test_class_files_without_tie_break_still_load() -> None:
    assert load_class("redo_log").tie_break == []


def test_shade_per_column_and_label_ink() -> None:
    frame = pd.DataFrame(
        {
            "config_key": ["a", "b", "a", "b"],
            "column": ["4k", "4k", "64k", "64k"],
            "value": [100.0, 130.0, 10_000.0, 9_000.0],
            "sd": [1.0, 1.0, 1.0, 1.0],
            "n": [3, 3, 3, 3],
        }
    )
    per = shade(frame, per_column=True, higher_is_better=True)
    assert list(per["tone"]) == [0.0, 1.0, 1.0, 0.0]
    grid = shade(frame, per_column=False, higher_is_better=True)
    assert grid["tone"].iloc[1] < 0.01  # invisible on one scale: why per column exists
    assert set(per.loc[per["tone"] == 1.0, "ink"]) == {"#111111"}
    assert set(per.loc[per["tone"] == 0.0, "ink"]) == {"#ffffff"}
    low = shade(frame, per_column=True, higher_is_better=False)
    assert list(low["tone"]) == [1.0, 0.0, 0.0, 1.0]
    assert row_order(per, "64k", higher_is_better=True) == ["a", "b"]
    assert row_order(per, "4k", higher_is_better=True) == ["b", "a"]
    assert row_order(per, "4k", higher_is_better=True, scores={"a": 2.0, "b": 1.0}) == ["a", "b"]


def test_ties_with_the_column_best_are_marked() -> None:
    frame = pd.DataFrame(
        {
            "config_key": ["a", "b", "c"],
            "column": ["8k"] * 3,
            "value": [100.0, 99.0, 50.0],
            "sd": [2.0, 2.0, 1.0],
            "n": [3, 3, 3],
        }
    )
    out = shade(frame, per_column=True, higher_is_better=True)
    assert list(out["tied"]) == [False, True, False]
    assert out["label"].iloc[1].startswith("=")


def test_glossary_explains_each_part() -> None:
    text = explain_key("raid10/pool_stripe/ranks4/stripe1g/wb-ra")
    for words in ("RAID 10", "round-robin", "4 RAID groups", "1 GiB", "write-back cache"):
        assert words in text
