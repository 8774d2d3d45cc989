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


@pytest.mark.parametrize("higher_is_better", [True, False])
def test_figures_read_on_their_squares(higher_is_better: bool) -> None:
    values = [100.0, 200.0, 300.0, 400.0, 500.0]
    frame = pd.DataFrame(
        {
            "config_key": [f"c{i}" for i in range(len(values))],
            "block_size": 4096,
            "value": values,
            "sd": 0.0,
            "n": 3,
        }
    )
    svg = vlc.vegalite_to_svg(heatmap(frame, "m", higher_is_better=higher_is_better).to_dict())
    ink = {}
    figure = r'<text[^>]*aria-roledescription="text mark"[^>]*fill="([^"]+)"[^>]*>([^<]+)</text>'
    for fill, text in re.findall(figure, svg):  # the squares' figures, not the legend's
        ink[text] = fill
    best, worst = ("500", "100") if higher_is_better else ("100", "500")
    assert ink[best] == DARK_INK, ink  # the best square is the light end of the scale
    assert ink[worst] == LIGHT_INK, ink
