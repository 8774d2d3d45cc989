"""Frames the chart tests draw, made by hand: three configurations on the trade-off plot."""

from __future__ import annotations

import pandas as pd


def tradeoff_points() -> pd.DataFrame:
    """Three configurations as ``tradeoff_chart`` takes them: one dominated, one on the
    trade-off front, one that breaks a limit; their loss risks a year from 6e-6 to nought
    (which a log scale of the risk cannot place)."""
    return pd.DataFrame(
        {
            "config_key": ["a", "b", "c"],
            "score": [1.0, 2.0, 3.0],
            "usable_pct": [50.0, 60.0, 75.0],
            "rebuild_h": [1.0, 2.0, 3.0],
            "loss_risk_per_year": [6.0e-6, 7.8e-11, 0.0],
            "front": ["dominated", "on the trade-off front", "breaks a limit"],
            "limits": ["ok", "ok", "x"],
        }
    )
