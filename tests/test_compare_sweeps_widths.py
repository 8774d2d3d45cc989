"""Compare sweeps: every value of its tables reads whole. A right-aligned figure in a column
narrower than its text is cut at its start (+19174 read as 9174): each visible column is as
wide as its longest line, a configuration pair in lines broken after a '/' and the arrow, and
a large change is written with its thousands grouped, as the CLI writes it."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from recommender.sweepcompare import spell_change, spell_pct
from sweeper.store import ParquetStore
from tests.support.apptest import open_app
from tests.test_app_robust_pages import CURVES_B, _page, two_flash_sweeps

#: the least width of a character of the tables' 14 px Source Sans (digits 7 px; a key's
#: letters 6 to 7), and a cell's padding
CHAR_PX, PAD_PX = 6, 16


def test_a_large_change_is_written_with_its_thousands_grouped() -> None:
    assert spell_change(19174.4, 16576.2, 22175.0) == "+19,174 (+16,576 … +22,175)"
    assert spell_pct(-99.94) == "-99.9"
    assert spell_pct(1037.6) == "+1,038"


@pytest.fixture(scope="module")
def two_sweeps(tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    return two_flash_sweeps(tmp_path_factory.mktemp("compare-widths"))


def test_each_visible_column_is_as_wide_as_its_longest_line(
    monkeypatch: pytest.MonkeyPatch, two_sweeps: ParquetStore
) -> None:
    at = _page(open_app(monkeypatch, two_sweeps.root), "compare_sweeps", CURVES_B)
    at.toggle(key="compare_sweeps_all").set_value(True).run()
    assert not at.exception
    tables = at.dataframe[:2]
    assert len(tables) == 2
    pairs = 0
    for table in tables:
        config = json.loads(table.proto.columns)
        frame: pd.DataFrame = table.value
        for column, conf in config.items():
            if conf.get("hidden") or column not in frame.columns:
                continue
            lines = [line for v in frame[column] for line in str(v).split("\n")]
            need = CHAR_PX * max(len(line) for line in lines) + PAD_PX
            assert conf["width"] >= need, (column, conf["width"], max(lines, key=len))
        for shown, a, b in zip(
            frame["configuration"], frame["configuration A"], frame["configuration B"], strict=True
        ):
            if a != b:  # both keys whole, one after the other
                pairs += 1
                words = shown.removeprefix("★ ").replace("\n", "").replace(" ", "")
                assert words == f"{a}→{b}"
    assert pairs
