"""Feature impact: performance kept with snapshots or data reduction on."""

from __future__ import annotations

import pandas as pd
import pytest

from recommender.features import feature_impact, impact_summary

BASE = "raid5/single_rank/wb-ra"


def _ranked(scores: dict[tuple[str, str], float]) -> pd.DataFrame:
    return pd.DataFrame([{"class": c, "config_key": k, "score": s} for (c, k), s in scores.items()])


def test_kept_share_pairs_each_configuration_with_its_twin() -> None:
    ranked = _ranked(
        {
            ("data_file", BASE): 1000.0,
            ("data_file", f"{BASE}/snap"): 970.0,
            ("redo_log", BASE): 400.0,
            ("redo_log", f"{BASE}/snap"): 144.0,
            ("redo_log", "raid6/single_rank/wb-ra/snap"): 50.0,  # no twin: left out
        }
    )
    impact = feature_impact(ranked).set_index("class")
    assert impact.loc["data_file", "kept_pct"] == pytest.approx(97.0)
    assert impact.loc["redo_log", "kept_pct"] == pytest.approx(36.0)
    assert impact.loc["redo_log", "configuration"] == BASE
    assert len(impact) == 2


def test_data_reduction_is_its_own_feature() -> None:
    ranked = _ranked(
        {
            ("c", BASE): 100.0,
            ("c", f"{BASE}/dr"): 60.0,
            ("c", f"{BASE}/snap/dr"): 30.0,
            ("c", f"{BASE}/snap"): 90.0,
        }
    )
    summary = impact_summary(feature_impact(ranked)).set_index("feature")
    # snapshots: 90/100 and 30/60; data reduction: 60/100 and 30/90
    assert summary.loc["snapshots", "pairs"] == 2
    assert summary.loc["snapshots", "min_pct"] == pytest.approx(50.0)
    assert summary.loc["data reduction", "max_pct"] == pytest.approx(60.0)


def test_no_feature_dimension_no_rows() -> None:
    assert feature_impact(_ranked({("c", BASE): 1.0})).empty
