"""Charts read on a narrow window: a heatmap of many columns never draws its column labels
over each other (where its columns are narrower than a standing label's line, labels are left
out, every square's tooltip still naming its column), and the trade-off chart writes its ticks
as the tables write the figures, also where every configuration has the same value (a
one-configuration sweep: Vega wrote 1,869.781405 and 87.500000). Drawn by Vega itself
(vl-convert), to SVG."""

from __future__ import annotations

import re

import pandas as pd
import pytest
import vl_convert as vlc

from app_pages import _charts
from recommender.charts import tradeoff_chart
from recommender.views import shade

#: the 42 workload cells of a sweep's "all cells" heatmap
CELLS = [
    f"randwrite/{bs}/qd{depth}x1"
    for bs in ("4k", "8k", "16k", "64k", "128k", "1m")
    for depth in (1, 2, 4, 8, 16, 32, 64)
]
#: the column labels' font size (Vega's default) and the least room a line of it takes
LABEL_LINE_PX = 10
#: a column label as the SVG draws it: its x, its opacity and its text
LABEL = re.compile(
    r'<text text-anchor="[a-z]+" transform="translate\(([-\d.]+),[-\d.]+\)'
    r'(?: rotate\(-90\))?[^"]*"[^>]*opacity="([\d.]+)">(randwrite/[^<]*)</text>'
)


def _all_cells_svg(width: int) -> str:
    keys = ["raid10/host_stripe/ranks4/stripe16k/wb-ra", "raid5/single_rank/wb-ra"]
    rows = [(k, c, 1000.0 + i) for k in keys for i, c in enumerate(CELLS)]
    frame = pd.DataFrame(rows, columns=["config_key", "column", "value"])
    frame["sd"], frame["n"] = 1.0, 3
    chart = _charts.grid_heatmap(
        shade(frame, per_column=False, higher_is_better=True),
        CELLS,
        x_title="workload cell",
        metric_label="IOPS",
    )
    spec = _charts.titled(chart, "IOPS: configuration × workload cell").to_dict()
    # as the app draws it: fitted to the page's width (Streamlit stretches every chart)
    spec["width"] = width
    spec["autosize"] = {"type": "fit-x", "contains": "padding"}
    return vlc.vegalite_to_svg(spec)


#: a phone's window, and a laptop's beside the app's sidebar (the grid fitted to its page)
@pytest.mark.parametrize("width", [390, 480])
def test_column_labels_of_many_columns_never_overlap_on_a_narrow_window(width: int) -> None:
    labels = LABEL.findall(_all_cells_svg(width))
    assert {text for _, _, text in labels} == set(CELLS)
    shown = sorted(float(x) for x, opacity, _ in labels if float(opacity) > 0)
    assert len(shown) >= 4  # thinned, not gone
    gaps = [b - a for a, b in zip(shown, shown[1:], strict=False)]
    assert min(gaps) >= LABEL_LINE_PX, [round(g, 1) for g in gaps]
    # wide enough for every label standing: none is left out
    wide = LABEL.findall(_all_cells_svg(1400))
    assert sum(float(opacity) > 0 for _, opacity, _ in wide) == len(CELLS)
    # every square still names its column
    spec = _charts.grid_heatmap(
        shade(
            pd.DataFrame(
                {"config_key": ["a"], "column": ["4k"], "value": [1.0], "sd": [0.0], "n": [1]}
            ),
            per_column=False,
            higher_is_better=True,
        ),
        ["4k"],
        x_title="workload cell",
        metric_label="IOPS",
    ).to_dict()
    tips = spec["layer"][0]["encoding"]["tooltip"]
    assert any(t["field"] == "column" for t in tips)


def _axis_labels(svg: str, title: str) -> list[str]:
    """The tick labels of the axis whose title is ``title``."""
    for group in svg.split('class="mark-group role-axis"')[1:]:
        heading = group.partition('role-axis-title"')[2].split("</g>", 1)[0]
        if f">{title}<" in heading:
            part = group.split('role-axis-label"', 1)[1].split("</g>", 1)[0]
            return re.findall(r">([^<>]+)</text>", part)
    raise AssertionError(f"no axis titled {title!r}")


def test_tradeoff_ticks_of_one_configuration_read_as_the_tables() -> None:
    points = pd.DataFrame(
        {
            "config_key": ["raid6/single_rank/wb-ra"],
            "score": [1869.781405],
            "usable_pct": [87.5],
            "rebuild_h": [3.0],
            "loss_risk_per_year": [2.0e-7],
            "front": ["on the trade-off front"],
            "limits": ["ok"],
        }
    )
    spec = tradeoff_chart(points, "IOPS").to_dict()
    spec["width"] = 360
    svg = vlc.vegalite_to_svg(spec)
    assert _axis_labels(svg, "score (IOPS)") == ["1,870"]
    assert _axis_labels(svg, "usable capacity (%)") == ["87.5"]


def test_tradeoff_ticks_over_a_range_are_never_written_alike() -> None:
    points = pd.DataFrame(
        {
            "config_key": ["a", "b", "c"],
            "score": [45.71, 45.74, 45.78],  # MB/s: one decimal, as the tables write them
            "usable_pct": [50.0, 66.66666666, 75.0],
            "rebuild_h": [1.0, 2.0, 3.0],
            "loss_risk_per_year": [6.0e-6, 7.8e-11, 1e-9],
            "front": ["dominated", "on the trade-off front", "dominated"],
            "limits": ["ok", "ok", "ok"],
        }
    )
    svg = vlc.vegalite_to_svg({**tradeoff_chart(points, "MB/s").to_dict(), "width": 360})
    scores = _axis_labels(svg, "score (MB/s)")
    assert scores and len(set(scores)) == len(scores), scores
    assert all(re.fullmatch(r"\d+(\.\d)?", s) for s in scores), scores
    usable = _axis_labels(svg, "usable capacity (%)")
    assert usable and all(re.fullmatch(r"\d+(\.\d)?", u) for u in usable), usable
