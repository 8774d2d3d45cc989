"""REPORT.md spells figures as the HTML report and the CLI do (10,176, not 1.018e+04), heads
its columns in words, and keeps the user's text as text."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recommender.views.markdown import figure, markdown_table


def test_scores_are_whole_and_grouped_never_scientific() -> None:
    frame = pd.DataFrame(
        {
            "config_key": ["a/b"],
            "score": [10176.4],
            "score_lo": [268.9],
            "score_hi": [19841.2],
            "usable_share": [0.875],
            "loss_risk_per_year": [1.1e-6],
            "contribution_pct": [-0.4],
            "weight": [3.0],
            "repetitions": [np.int64(3)],
            "cost_per_unit": [np.nan],
        }
    )
    md = markdown_table(frame)
    header, rule, row = md.splitlines()
    assert "configuration" in header and "95% CI low" in header and "config_key" not in header
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells == ["a/b", "10,176", "269", "19,841", "88%", "1.1e-06", "0", "3", "3", "–"]
    assert "e+" not in md
    assert rule.count("--:") == 9  # figures right-aligned, text left


def test_other_figures_and_user_text() -> None:
    assert figure(123456.7) == "123,457" and figure(0.0824) == "0.0824" and figure(None) == "–"
    assert figure(float("inf")) == "–" and figure(True) == "True"
    md = markdown_table(pd.DataFrame({"note": ["<img src=x> [a](b) | c"]}))
    assert "<img" not in md and "&lt;img" in md and "\\[a\\]" in md and "\\|" in md
