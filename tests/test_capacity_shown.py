"""Drives and usable TB beside each configuration: the ranking table the app shows and the
``--json`` document take them from the trade-offs over the platform's own geometry (here the
simulated array's profiles), for every RAID level and rank count."""

from __future__ import annotations

import jsonschema
import pandas as pd
import pytest
import yaml

from recommender import views
from recommender.classes import load_classes
from recommender.recommendations import ClassRecommendation
from recommender.tradeoffs import hardware_facts, with_tradeoffs
from recommender.views.documents import RECOMMEND_SCHEMA, recommend_document
from sweeper.configuration import Configuration
from tests.support.paths import ROOT

PROFILES = ROOT / "sweeper" / "sim" / "profiles"
KEYS = [
    "raid5/single_rank/wb-ra",
    "raid6/host_stripe/ranks2/stripe64k/wb-ra",
    "raid10/pool_stripe/ranks4/stripe1g/wt-nora",
]


def _ranked(keys: list[str]) -> pd.DataFrame:
    n = len(keys)
    return pd.DataFrame(
        {
            "class": ["c"] * n,
            "rank": list(range(1, n + 1)),
            "tied": [False] * n,
            "config_key": keys,
            "score": [100.0 - i for i in range(n)],
            "score_lo": [99.0 - i for i in range(n)],
            "score_hi": [101.0 - i for i in range(n)],
            "cv_pct": [1.0] * n,
            "repetitions": [3] * n,
            "meets_limits": [True] * n,
            "violations": [""] * n,
            "unsteady_runs": [0] * n,
            "cells_missing": [""] * n,
        }
    )


@pytest.mark.parametrize("profile", sorted(p.stem for p in PROFILES.glob("*.yaml")))
def test_drives_and_usable_tb_follow_the_arrays_geometry(profile: str) -> None:
    geometry = yaml.safe_load((PROFILES / f"{profile}.yaml").read_text())
    groups = geometry["raid_groups"]
    keys = [k for k in KEYS if Configuration.from_key(k).raid_level in groups]
    record = {"spec": {"platform": "sim", "platform_options": {"profile": profile}}}
    ranked = with_tradeoffs(_ranked(keys), hardware_facts(record))
    table = views.recommendation_table(ranked, prices=False)
    # After the score and its repetitions (which stand beside the configuration, as the
    # CLI writes them), before the other figures.
    columns = list(table.columns)
    after = columns.index("repetitions") + 1
    assert columns[after : after + 2] == ["drives", "usable TB"]
    for key, drives, usable_tb in zip(keys, table["drives"], table["usable TB"], strict=True):
        config = Configuration.from_key(key)
        group = groups[config.raid_level]
        width = group["data"] + group["redundancy"]
        assert drives == config.rank_count * width
        capacity_tb = geometry["drives"]["capacity_gb"] / 1000
        assert usable_tb == pytest.approx(config.rank_count * group["data"] * capacity_tb)


def test_unknown_geometry_shows_nothing_rather_than_a_guess() -> None:
    ranked = with_tradeoffs(_ranked(KEYS), {"raid_groups": {"raid5": {"data": 3, "redundancy": 1}}})
    table = views.recommendation_table(ranked, prices=False)
    assert table["drives"].iloc[0] == 4
    # No drive size: no usable TB; no group for RAID 6 and 10: no drives either.
    assert table["usable TB"].isna().all()
    assert table["drives"].iloc[1:].isna().all()
    assert "drives" not in views.recommendation_table(_ranked(KEYS), prices=False)


def test_the_json_document_carries_drives_and_usable_gb() -> None:
    record = {"spec": {"platform": "sim", "platform_options": {"profile": "ds8800-like"}}}
    ranked = with_tradeoffs(_ranked(KEYS), hardware_facts(record))
    wclass = load_classes(["redo_log"])[0]
    best = ranked.iloc[0]
    recs = [ClassRecommendation(wclass, ranked, best, None, pd.DataFrame(), pd.DataFrame())]
    doc = recommend_document("s", recs, 10, None)
    jsonschema.validate(doc, RECOMMEND_SCHEMA)
    rows = doc["classes"][0]["rankings"]
    assert [r["drives"] for r in rows] == [int(v) for v in ranked["drives"]]
    assert [r["usable_gb"] for r in rows] == pytest.approx(list(ranked["usable_gb"]))
