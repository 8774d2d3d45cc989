"""What matters: dimension importances per class, with confounded dimensions joined."""

from __future__ import annotations

import itertools

import pandas as pd
import pytest

from recommender.importance import class_importances
from sweeper.configuration import Configuration


def _ranked(score) -> pd.DataFrame:  # noqa: ANN001 - a function of the configuration
    rows = []
    for raid, cache, snap in itertools.product(
        ["raid5", "raid6", "raid10"], ["wb-ra", "wt-ra", "wb-nora"], [False, True]
    ):
        c = Configuration(raid, "single_rank", cache, None, None, snap, False)
        rows.append({"class": "c", "config_key": c.key, "score": score(c)})
    return pd.DataFrame(rows)


def test_the_dimension_that_moves_the_score_matters_most() -> None:
    level = {"raid5": 100.0, "raid6": 60.0, "raid10": 300.0}
    imp = class_importances(_ranked(lambda c: level[c.raid_level] + (2 if c.snapshots else 0)))
    top = imp.sort_values("importance", ascending=False).iloc[0]
    assert top["dimension"] == "raid_level" and top["importance"] > 0.8
    assert set(imp["dimension"]) == {"raid_level", "cache_policy", "snapshots"}
    assert imp["importance"].sum() == pytest.approx(1.0)


def test_dimensions_that_change_together_are_one_row() -> None:
    rows = []
    for raid in ["raid5", "raid10"]:
        for layout, ranks, stripe in [
            ("single_rank", None, None),
            ("host_stripe", 4, 16),
            ("pool_stripe", 4, 1048576),
        ]:
            c = Configuration(raid, layout, "wb-ra", ranks, stripe, False, False)
            rows.append({"class": "c", "config_key": c.key, "score": float(len(rows) + 1)})
    imp = class_importances(pd.DataFrame(rows))
    assert set(imp["dimension"]) == {"raid_level", "layout + ranks + stripe"}


def test_too_few_configurations_give_nothing() -> None:
    ranked = _ranked(lambda c: 1.0).head(3)
    assert class_importances(ranked).empty
