"""``raidsweep compare`` on an 80-column terminal stacks each row, and a stacked row whose
two five-digit scores, their intervals and the change do not fit on one line puts the change
on a line of its own: no figure is cut in two."""

from __future__ import annotations

import re

import pandas as pd
import pytest
from rich.text import Text

from recommender.sweepcompare import CLASS_COLUMNS
from sweeper.cli import compare as cli_compare
from sweeper.cli.common import console


def _classes(a: float, b: float, spread: float) -> pd.DataFrame:
    row = dict.fromkeys(CLASS_COLUMNS)
    row.update(
        {
            "class": "vm_mix",
            "unit": "IOPS",
            "pairing": "recommended",
            "config_a": "raid10-pool",
            "config_b": "raid10-pool",
            "cells": 4,
            "a": a,
            "a_lo": a - spread,
            "a_hi": a + spread,
            "a_n": 3,
            "b": b,
            "b_lo": b - spread,
            "b_hi": b + spread,
            "b_n": 3,
            "change_pct": 100 * (b / a - 1),
            "change_lo_pct": 100 * (b / a - 1) - 3.15,
            "change_hi_pct": 100 * (b / a - 1) + 3.15,
            "verdict": "better",
        }
    )
    return pd.DataFrame([row], columns=CLASS_COLUMNS)


@pytest.mark.parametrize(
    ("a", "b", "spread"), [(34231.4, 36588.2, 512.3), (618.2, 619.4, 14.1), (1.5e6, 1.61e6, 2.1e4)]
)
def test_no_stacked_line_is_wider_than_80_columns(a: float, b: float, spread: float) -> None:
    frame = _classes(a, b, spread)
    width = console.width
    console.width = 80
    try:
        with console.capture() as cap:
            cli_compare._print_classes(frame)
    finally:
        console.width = width
    lines = cap.get().splitlines()
    assert max(Text(line).cell_len for line in lines) <= 80, "\n".join(lines)
    changes = [line for line in lines if "change %" in line]
    assert len(changes) == 1, lines
    # the change and its interval whole on the line that names them
    assert re.search(r"change % [+−-][\d.,]+ \([+−-]?[\d.,]+ … [+−-]?[\d.,]+\)$", changes[0]), (
        changes
    )
