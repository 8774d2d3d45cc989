"""Feature impact: the share of performance kept with snapshots (or data reduction) on.

For every configuration measured both with and without a feature (all else equal), per class:
kept % = 100 · score(feature on) / score(feature off) — the figure of the audited benchmark
under snapshots (STUDIES.md §4: one system kept 97%, the other 36%). Pure functions over the
ranked table.
"""

from __future__ import annotations

import dataclasses

import pandas as pd

from sweeper.configuration import Configuration

FEATURES = {"snapshots": "snapshots", "data_reduction": "data reduction"}
IMPACT_COLUMNS = ["class", "feature", "configuration", "score_off", "score_on", "kept_pct"]


def feature_impact(ranked: pd.DataFrame) -> pd.DataFrame:
    """One row per class, feature and configuration measured with the feature off and on."""
    rows = []
    if ranked.empty:
        return pd.DataFrame(columns=IMPACT_COLUMNS)
    for wclass, part in ranked.groupby("class", sort=False):
        scores = dict(zip(part["config_key"], part["score"].astype(float), strict=True))
        for key, score_on in scores.items():
            config = Configuration.from_key(key)
            for attr, label in FEATURES.items():
                if not getattr(config, attr):
                    continue
                off = dataclasses.replace(config, **{attr: False}).key
                score_off = scores.get(off)
                if score_off is None or score_off <= 0:
                    continue
                rows.append(
                    {
                        "class": wclass,
                        "feature": label,
                        "configuration": off,
                        "score_off": score_off,
                        "score_on": score_on,
                        "kept_pct": 100 * score_on / score_off,
                    }
                )
    return pd.DataFrame(rows, columns=IMPACT_COLUMNS)


def impact_summary(impact: pd.DataFrame) -> pd.DataFrame:
    """Per class and feature: the median, lowest and highest share kept, and the pairs."""
    if impact.empty:
        return pd.DataFrame(
            columns=["class", "feature", "median_pct", "min_pct", "max_pct", "pairs"]
        )
    grouped = impact.groupby(["class", "feature"], sort=False)["kept_pct"]
    return grouped.agg(
        median_pct="median", min_pct="min", max_pct="max", pairs="count"
    ).reset_index()
