"""The fixes of the browser audit's findings, without a browser: the latency axis ticked 1, 2,
5 of each decade; the trade-off's legends stacked below the plot (as Vega lays them out for
the report too); the heatmap's colour bar as long as its grid leaves room for; the widths
that show a header or a choice whole; a time written in UTC with its zone named; no cached
read drawing Streamlit's spinner over the page. ``tests/test_app_browser_leftovers.py``
checks the same in Chromium."""

from __future__ import annotations

import importlib
import pkgutil
import re
from datetime import UTC, datetime, timedelta, timezone

import pandas as pd
import pytest
import vl_convert as vlc

import app_pages
from app_pages import _charts, _widths
from recommender.charts import curve_chart, log_ticks, tradeoff_chart
from recommender.views import shade
from recommender.views.times import NO_ZONE, time_text
from tests.support.charts import tradeoff_points


# the latency axis ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("values", "ticks"),
    [
        ([2.9, 7.7], [1, 2, 5, 10]),
        ([0.08, 0.5], [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1]),
        ([1.0], [1, 2, 5, 10]),
        ([0.3, 40.0], [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100]),
        ([0.01, 1000.0], [0.01, 0.1, 1, 10, 100, 1000]),  # five decades: powers of ten
        ([0.0, float("nan"), 3.0], [1, 2, 5, 10]),  # no log of nought or of a gap
        ([], []),
    ],
)
def test_log_ticks_are_1_2_5_of_each_decade(values: list[float], ticks: list[float]) -> None:
    assert log_ticks(values) == pytest.approx(ticks)


def test_the_curves_latency_axis_is_ticked_at_1_2_5() -> None:
    frame = pd.DataFrame(
        {
            "curve": ["a · randread/4k"] * 3,
            "outstanding": [1, 4, 16],
            "iops": [100.0, 300.0, 500.0],
            "latency_ms": [2.9, 4.0, 7.7],
            "role": ["Speed", "", "Maximum"],
        }
    )
    y = curve_chart(frame).to_dict()["layer"][0]["encoding"]["y"]
    assert y["scale"] == {"type": "log", "nice": True}
    assert y["axis"]["values"] == [1.0, 2.0, 5.0, 10.0]
    assert "' ms'" in y["axis"]["labelExpr"]


# the trade-off's legends -----------------------------------------------------------------------
def test_the_tradeoff_legends_are_stacked_below_the_plot() -> None:
    """Vega lays the colour bar and the shapes one under the other, both from the plot's
    left: side by side the shapes ran off a phone's window."""
    spec = tradeoff_chart(tradeoff_points(), "IOPS").properties(width=300).to_dict()
    svg = vlc.vegalite_to_svg(spec)
    found = re.findall(
        r'<g class="mark-group role-legend" [^>]*><g transform="translate\(([-\d.]+),([-\d.]+)\)"',
        svg,
    )
    assert len(found) == 2, found
    (x1, y1), (x2, y2) = ((float(x), float(y)) for x, y in found)
    assert x1 == x2 == 0 and y2 > y1


# the heatmap's colour bar ----------------------------------------------------------------------
def test_the_heatmap_colour_bar_is_as_long_as_the_grid_leaves_room_for() -> None:
    frame = pd.DataFrame(
        {"config_key": ["a", "b"], "column": ["4k", "4k"], "value": [1.0, 2.0], "sd": 0.0, "n": 3}
    )
    shaded = shade(frame, per_column=False, higher_is_better=True)
    chart = _charts.grid_heatmap(shaded, ["4k"], x_title="block size", metric_label="IOPS")
    legend = chart.to_dict()["layer"][0]["encoding"]["color"]["legend"]
    assert legend["orient"] == "top"
    assert "clamp(width" in legend["gradientLength"]["expr"]
    assert "'top'" in legend["titleOrient"]["expr"]


# widths that show a text whole -----------------------------------------------------------------
def test_a_header_gets_its_text_and_the_grids_padding() -> None:
    # Chromium draws "score (IOPS)" 70.7 px wide: 76 px left it cut at the column's edge
    spare = _widths.CELL_PADDING_PX + _widths.HEADER_SPARE_PX
    assert _widths.header_px("score (IOPS)", 76) >= 71 + spare
    assert _widths.header_px("reps", 42) == 42  # the figures' own width where that is more
    assert _widths.text_px("") == 0
    assert _widths.text_px("×") == _widths._OTHER_PX  # a character not in the table


def test_a_select_box_is_as_wide_as_its_longest_choice_or_label() -> None:
    wide = _widths.choice_px("Pattern", ["randread", "randwrite"])
    assert wide >= _widths.text_px("randwrite") + _widths.SELECT_CHROME_PX
    assert _widths.choice_px("Active range (% of the volume)", ["10"]) >= _widths.text_px(
        "Active range (% of the volume)"
    )
    helped = _widths.choice_px("Sort rows by", ["x"], help_icon=True)
    assert helped >= _widths.text_px("Sort rows by") + _widths.HELP_ICON_PX


# times -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("2026-11-29T22:27:50.268579+00:00", "2026-11-29 22:27:50 UTC"),
        ("2026-11-29T23:27:50+01:00", "2026-11-29 22:27:50 UTC"),
        (datetime(2026, 11, 29, 22, 27, 50, tzinfo=UTC), "2026-11-29 22:27:50 UTC"),
        (
            datetime(2026, 11, 29, 17, 27, 50, tzinfo=timezone(timedelta(hours=-5))),
            "2026-11-29 22:27:50 UTC",
        ),
        ("2026-11-29T22:27:50", f"2026-11-29 22:27:50 {NO_ZONE}"),  # never taken for UTC
        ("yesterday", None),
        (None, None),
        (17, None),
    ],
)
def test_a_time_is_written_in_utc_with_its_zone(value: object, text: str | None) -> None:
    assert time_text(value) == text


# spinners ----------------------------------------------------------------------------------------
def test_no_cached_read_draws_streamlits_spinner_over_the_page() -> None:
    """Streamlit draws a cached function's spinner in a box of no height, over what follows
    it: while a sweep runs the reads and the ranking are done again every refresh, and
    "Ranking the configurations…" covered the page every 2 s. None of the app's cached reads
    has that spinner; ``_common.working`` shows one in the page's flow instead."""
    from streamlit.runtime.caching.cache_utils import CachedFunc

    modules = [  # the app's shared modules, where its cached reads live (pages only render)
        importlib.import_module(f"app_pages.{m.name}")
        for m in pkgutil.iter_modules(app_pages.__path__)
        if m.name.startswith("_")
    ]
    cached = {
        f"{value._info.func.__module__}.{value._info.func.__qualname__}": value._info.show_spinner
        for module in modules
        for value in vars(module).values()
        if isinstance(value, CachedFunc)
    }
    assert len(cached) >= 7, cached
    assert not {name: shown for name, shown in cached.items() if shown}, cached
