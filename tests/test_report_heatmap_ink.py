"""The report's heatmaps print each figure in the ink that reads on its square: dark on the
light end of the colour scale, white on the dark end (for IOPS, where higher is better, and
for latency, where lower is; the scale runs the other way there)."""

from __future__ import annotations

import re

import pandas as pd
import pytest
import vl_convert as vlc

from recommender.charts import heatmap
from recommender.views.shading import DARK_INK, LIGHT_INK


def _column(values: list[float]) -> pd.DataFrame:
    """One block size's heatmap column, a configuration per value."""
    return pd.DataFrame(
        {
            "config_key": [f"c{i}" for i in range(len(values))],
            "block_size": 4096,
            "value": values,
            "sd": 0.0,
            "n": 3,
        }
    )


@pytest.mark.parametrize("higher_is_better", [True, False])
def test_figures_read_on_their_squares(higher_is_better: bool) -> None:
    frame = _column([100.0, 200.0, 300.0, 400.0, 500.0])
    svg = vlc.vegalite_to_svg(heatmap(frame, "m", higher_is_better=higher_is_better).to_dict())
    ink = {}
    figure = r'<text[^>]*aria-roledescription="text mark"[^>]*fill="([^"]+)"[^>]*>([^<]+)</text>'
    for fill, text in re.findall(figure, svg):  # the squares' figures, not the legend's
        ink[text] = fill
    best, worst = ("500", "100") if higher_is_better else ("100", "500")
    assert ink[best] == DARK_INK, ink  # the best square is the light end of the scale
    assert ink[worst] == LIGHT_INK, ink


def test_figures_are_the_values_in_the_labels_unit() -> None:
    # A flash array's latencies are fractions of a millisecond: under a label in ms they
    # read 0.0824, not "82.4m" (d3's SI prefix, a thousandth of the label's unit).
    frame = _column([0.0824, 0.5, 13.274, 58176.3, 2_345_678.0])
    svg = vlc.vegalite_to_svg(heatmap(frame, "p99 ms", higher_is_better=False).to_dict())
    figure = r'<text[^>]*aria-roledescription="text mark"[^>]*>([^<]+)</text>'
    assert sorted(re.findall(figure, svg)) == sorted(["0.0824", "0.500", "13.3", "58.2k", "2.35M"])
