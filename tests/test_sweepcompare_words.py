"""A comparison of two sweeps is worded one way in the CLI and the app: headings in words,
each figure with its 95% interval, a change that rounds to nothing never '-0.0'."""

from __future__ import annotations

import math

import pandas as pd

from recommender.sweepcompare import CELL_COLUMNS, CLASS_COLUMNS, cell_table, class_table


def test_class_and_cell_tables_are_worded_as_the_cli_prints_them() -> None:
    classes = pd.DataFrame(
        [
            [
                "data_file",
                "IOPS",
                "same configuration",
                "k",
                "k",
                9,
                3395.8,
                3219.2,
                3573.1,
                3,
                3420.0,
                3300.0,
                3540.0,
                3,
                -0.04,
                -1.2,
                1.1,
                "no change",
            ]
        ],
        columns=CLASS_COLUMNS,
    )
    shown = class_table(classes)
    for heading in ("class", "A (95% CI)", "B (95% CI)", "change % (95% CI)", "verdict"):
        assert heading in shown.columns
    assert not {"config_a", "a_lo", "change_pct"} & set(shown.columns)  # no internal names
    row = shown.iloc[0]
    assert row["class"] == "data_file (IOPS)"
    assert row["A (95% CI)"] == "3,396 (3,219 … 3,573)"
    assert row["change % (95% CI)"] == "+0.0 (-1.2 … +1.1)"
    cells = pd.DataFrame(
        [
            [
                "k",
                "k",
                "randread/8k/qd1x16",
                "mbps",
                35.29,
                3,
                35.3,
                1,
                0.03,
                math.nan,
                math.nan,
                "unknown",
            ]
        ],
        columns=CELL_COLUMNS,
    )
    cell = cell_table(cells).iloc[0]
    assert (cell["figure"], cell["A"], cell["B"]) == ("MB/s", "35.3", "35.3")
    assert cell["change % (95% CI)"] == "+0.0 (no interval)"


def test_a_score_over_fewer_cells_than_the_class_has_says_so() -> None:
    """Compared on the cells both sweeps measured: the class's score there is not the one
    ``recommend`` gives, and the row says over how many of its cells it is."""
    from recommender.sweepcompare import class_label

    named = pd.DataFrame(
        [{"class": "data_file", "unit": "IOPS", "cells": 2, "class_cells": 3}]
    ).itertuples()
    assert class_label(next(named)) == "data_file (IOPS, on 2 of 3 cells)"
    whole = pd.DataFrame(
        [{"class": "data_file", "unit": "IOPS", "cells": 3, "class_cells": 3}]
    ).itertuples()
    assert class_label(next(whole)) == "data_file (IOPS)"
