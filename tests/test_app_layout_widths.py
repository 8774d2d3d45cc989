"""The app's tables and charts fit the window they are shown in: Compare sweeps' tables show
the scores, the change and its interval without sideways scrolling on a laptop (short
headers, narrow figures, the rest hidden in the column menu), a pair compared for two reasons
is one row; a heatmap is as wide as the page, its row labels broken only after a '/', its
cells' figures written in one short form.

The Compare sweeps page runs on two small sweeps of the simulated all-flash array
(``tests.test_app_robust_pages``); the heatmap is built from a frame of its own."""

from __future__ import annotations

import json
import math
import re

import altair as alt
import pandas as pd
import pytest
import vl_convert as vlc

from app_pages import _charts
from recommender.charts import heatmap
from recommender.sweepcompare import CLASS_COLUMNS, class_table
from recommender.views import shade
from recommender.views.shading import short_figure
from sweeper.store import ParquetStore
from tests.support.apptest import open_app
from tests.support.charts import tradeoff_points
from tests.test_app_robust_pages import CURVES_B, _page, two_flash_sweeps

#: the width of Streamlit's main column at a 1280 px window beside the sidebar
MAIN_AT_1280 = 818
#: what a reader of a comparison must see without scrolling sideways
ESSENTIAL = ("A", "B", "change % (95% CI)")


@pytest.fixture(scope="module")
def two_sweeps(tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    return two_flash_sweeps(tmp_path_factory.mktemp("layout-widths"))


def _class_row(pairing: str) -> list[object]:
    return [
        "redo_log",
        "IOPS",
        pairing,
        "raid10/host_stripe/ranks4/stripe16k/wb-ra",
        "raid10/host_stripe/ranks4/stripe16k/wb-ra",
        5,
        3423.4,
        3300.0,
        3540.0,
        3,
        3395.8,
        3280.0,
        3510.0,
        3,
        -0.8,
        -5.0,
        3.5,
        "no significant change",
    ]


# Compare sweeps -------------------------------------------------------------------------------
def test_a_pair_compared_for_two_reasons_is_one_row_naming_both() -> None:
    frame = pd.DataFrame(
        [_class_row("recommended for redo_log"), _class_row("same configuration")],
        columns=CLASS_COLUMNS,
    )
    shown = class_table(frame)
    assert len(shown) == 1
    assert shown["paired as"].iloc[0] == "recommended for redo_log; same configuration"
    assert shown["change % (95% CI)"].iloc[0] == "-0.8 (-5.0 … +3.5)"


def test_compare_sweeps_tables_fit_a_laptop_window(
    monkeypatch: pytest.MonkeyPatch, two_sweeps: ParquetStore
) -> None:
    """Each table's visible columns have widths that add up to less than the page's column at
    1280 px, the scores and the change among them, each header short; the other columns
    hidden, not dropped."""
    at = _page(open_app(monkeypatch, two_sweeps.root), "compare_sweeps", CURVES_B)
    at.toggle(key="compare_sweeps_all").set_value(True).run()
    assert not at.exception
    tables = at.dataframe[:2]
    assert len(tables) == 2
    for table in tables:
        config = json.loads(table.proto.columns)
        shown = {c: v for c, v in config.items() if not v.get("hidden")}
        assert set(ESSENTIAL) <= set(shown), sorted(shown)
        widths = [v.get("width") for v in shown.values()]
        assert all(isinstance(w, int) for w in widths), shown
        assert sum(widths) <= MAIN_AT_1280 - 20, shown
        assert all(len(v.get("label") or c) <= 14 for c, v in shown.items()), shown
        assert any(v.get("hidden") for v in config.values())


# Heatmaps ---------------------------------------------------------------------------------------
LONG_KEY = "raid10/host_stripe/ranks4/stripe16k/wb-ra"


def _heatmap_frame() -> pd.DataFrame:
    rows = [
        (key, col, value)
        for key, values in (
            (LONG_KEY, (3829.0, 2100.0, 722.3, 12.04)),
            ("raid5/single_rank/wb-ra", (3700.0, 2050.0, 700.0, 11.0)),
        )
        for col, value in zip(("4k", "8k", "16k", "64k"), values, strict=True)
    ]
    frame = pd.DataFrame(rows, columns=["config_key", "column", "value"])
    frame["sd"], frame["n"] = 1.0, 3
    return shade(frame, per_column=False, higher_is_better=True)


def _spec() -> dict:
    chart = _charts.grid_heatmap(
        _heatmap_frame(), ["4k", "8k", "16k", "64k"], x_title="block size", metric_label="IOPS"
    )
    return _charts.titled(chart, "IOPS").to_dict()


def test_a_heatmap_is_as_wide_as_the_page() -> None:
    spec = _spec()
    assert not isinstance(spec.get("width"), dict), spec.get("width")  # no step: fitted
    assert spec["autosize"]["type"] == "fit-x"
    legend = spec["layer"][0]["encoding"]["color"]["legend"]
    assert legend["orient"] in ("top", "bottom")  # the width goes to the squares


def test_a_heatmap_row_label_breaks_only_after_a_slash() -> None:
    spec = _spec()
    axis = spec["layer"][0]["encoding"]["y"]["axis"]
    expr = axis["labelExpr"]
    assert json.dumps(["raid10/host_stripe/", "ranks4/stripe16k/wb-ra"]) in expr
    assert _charts.key_lines(LONG_KEY) == ["raid10/host_stripe/", "ranks4/stripe16k/wb-ra"]
    for key in (LONG_KEY, "a/b", "x" * 40, "raid5/pool_stripe/ranks4/stripe1g/wb-ra/extra"):
        lines = _charts.key_lines(key)
        assert "".join(lines) == key
        assert all(line.endswith("/") for line in lines[:-1])
    # the rows are tall enough for their lines
    assert spec["height"]["step"] >= 13 * 2


def test_a_heatmap_writes_every_cell_in_one_short_form() -> None:
    spec = _spec()
    labels = [r["label"] for r in spec["datasets"][next(iter(spec["datasets"]))]]
    assert {"3.83k", "2.10k", "722", "12.0"} <= {label.lstrip("=") for label in labels}
    assert short_figure(999.7) == "1.00k"
    assert short_figure(2_500_000) == "2.50M"
    assert short_figure(0.5) == "0.500"
    assert short_figure(math.nan) == "—"


def test_the_app_and_the_report_label_a_heatmap_cell_alike() -> None:
    # One short form on both surfaces: the report's heatmap once wrote 2.1k where the app
    # wrote 2.10k for the same cell, and 1e+03 for 999.7.
    values = [3829.0, 2100.0, 722.3, 12.04, 999.7, 0.5]
    frame = pd.DataFrame(
        {"config_key": [f"c{i}" for i in range(6)], "block_size": 4096, "value": values}
    )
    frame["sd"], frame["n"] = 0.0, 3
    svg = vlc.vegalite_to_svg(heatmap(frame, "IOPS", higher_is_better=True).to_dict())
    report = re.findall(r'<text[^>]*aria-roledescription="text mark"[^>]*>([^<]+)</text>', svg)
    app = [short_figure(v) for v in values]
    assert sorted(label.lstrip("=") for label in report) == sorted(app)
    assert app == ["3.83k", "2.10k", "722", "12.0", "1.00k", "0.500"]


# Curves and trade-offs --------------------------------------------------------------------------
def test_the_tradeoff_risk_is_coloured_on_a_log_scale_below_the_plot() -> None:
    from recommender.charts import tradeoff_chart

    spec = tradeoff_chart(tradeoff_points(), "IOPS").to_dict()
    color = spec["encoding"]["color"]
    assert color["scale"]["type"] == "log"
    assert color["legend"]["orient"] == "bottom"
    assert spec["encoding"]["shape"]["legend"]["orient"] == "bottom"
    # 1.1e-6 in d3 reads 1.1e-06, as the tables write it
    assert "'e$1' + '0' + '$2'" in color["legend"]["labelExpr"]
    data = spec["datasets"][next(iter(spec["datasets"]))]
    assert min(r[color["field"]] for r in data) > 0  # a log scale has no nought


def test_the_curves_latency_ticks_carry_their_unit_and_the_legend_breaks_lines() -> None:
    from recommender.charts import curve_chart

    frame = pd.DataFrame(
        {
            "curve": [f"{LONG_KEY} · randread/4k"] * 2,
            "outstanding": [1, 2],
            "iops": [100.0, 200.0],
            "latency_ms": [1.0, 3.0],
            "role": ["", "Speed"],
        }
    )
    spec = curve_chart(frame).to_dict()
    layer = spec["layer"][0]["encoding"]
    assert "' ms'" in layer["y"]["axis"]["labelExpr"]
    assert "split(datum.label, ' · ')" == layer["color"]["legend"]["labelExpr"]


def test_a_long_chart_title_is_shown_in_two_lines() -> None:
    chart = _charts.titled(
        alt.Chart(pd.DataFrame({"x": [1]})).mark_point(),
        "IOPS against mean latency as I/Os in flight grow: randread/4k",
    )
    assert chart.to_dict()["title"]["text"] == [
        "IOPS against mean latency as I/Os in flight grow:",
        "randread/4k",
    ]
