"""Trade-offs: usable capacity, rebuild exposure, cost; the trade-off Pareto set."""

from __future__ import annotations

import math
import re

import pandas as pd
import pytest

from recommender.tradeoffs import (
    hardware_facts,
    merge_hardware,
    pareto_tradeoffs,
    tradeoffs,
    with_tradeoffs,
)
from sweeper.platforms import get_platform

R5 = "raid5/host_stripe/ranks4/stripe16k/wb-ra"
R6 = "raid6/host_stripe/ranks4/stripe16k/wb-ra"
R10 = "raid10/host_stripe/ranks4/stripe16k/wb-ra"
R10_1 = "raid10/single_rank/wb-ra"


@pytest.fixture
def ds8800(tmp_path) -> dict:
    return get_platform("sim", {"profile": "ds8800-like"}, tmp_path).hardware()


def test_the_simulated_array_knows_its_drives(ds8800) -> None:
    assert ds8800["media"] == "hdd"
    assert ds8800["drive_gb"] == 900
    assert ds8800["raid_groups"]["raid5"] == {"data": 7, "redundancy": 1}


def test_capacity_and_drives_follow_the_raid_group(ds8800) -> None:
    t = tradeoffs([R5, R10, R10_1], ds8800).set_index("config_key")
    assert t.loc[R5, "drives"] == 32 and t.loc[R10, "drives"] == 32
    assert t.loc[R5, "usable_gb"] == pytest.approx(4 * 7 * 900)
    assert t.loc[R5, "usable_share"] == pytest.approx(7 / 8)
    assert t.loc[R10, "usable_share"] == pytest.approx(0.5)
    assert t.loc[R10_1, "usable_gb"] == pytest.approx(4 * 900)


def test_rebuild_exposure_orders_the_levels_as_engineers_expect(ds8800) -> None:
    t = tradeoffs([R5, R6, R10], ds8800).set_index("config_key")
    hours = 900e9 / (80 * 2**20) / 3600
    assert t.loc[R5, "rebuild_h"] == pytest.approx(hours)
    # RAID 5: any of the 7 other drives of the rank failing during the rebuild loses data.
    p = 1 - math.exp(-0.01 * hours / 8760)
    assert t.loc[R5, "loss_risk_per_year"] == pytest.approx(32 * 0.01 * (1 - (1 - p) ** 7))
    assert t.loc[R10, "loss_risk_per_year"] == pytest.approx(32 * 0.01 * p)
    assert t.loc[R6, "loss_risk_per_year"] < t.loc[R10, "loss_risk_per_year"]
    assert t.loc[R10, "loss_risk_per_year"] < t.loc[R5, "loss_risk_per_year"]
    assert t.loc[R6, "survives_during_rebuild"] == 1
    assert t.loc[R5, "survives_during_rebuild"] == 0


def test_larger_drives_take_longer_and_risk_more(ds8800) -> None:
    big = merge_hardware(ds8800, {"drive_gb": 18000})
    small = tradeoffs([R5], ds8800).iloc[0]
    large = tradeoffs([R5], big).iloc[0]
    assert large["rebuild_h"] == pytest.approx(20 * small["rebuild_h"])
    assert large["loss_risk_per_year"] > 19 * small["loss_risk_per_year"]


def test_prices_give_cost_per_usable_gb_and_per_unit_of_score(ds8800) -> None:
    prices = {"per_drive": 500.0, "fixed": 20000.0, "currency": "EUR"}
    ranked = pd.DataFrame(
        [
            {"class": "data_file", "config_key": R5, "score": 8000.0, "meets_limits": True},
            {"class": "data_file", "config_key": R10, "score": 16000.0, "meets_limits": True},
        ]
    )
    out = with_tradeoffs(ranked, ds8800, prices).set_index("config_key")
    assert out.loc[R5, "cost"] == pytest.approx(20000 + 32 * 500)
    assert out.loc[R5, "cost_per_usable_gb"] == pytest.approx(36000 / 25200)
    assert out.loc[R10, "cost_per_unit"] == pytest.approx(36000 / 16000)


def test_without_facts_the_figures_stay_empty() -> None:
    t = tradeoffs([R5], {})
    assert t["usable_share"].isna().all() and t["loss_risk_per_year"].isna().all()


def test_spec_facts_override_the_platform(ds8800) -> None:
    merged = merge_hardware(ds8800, {"raid_groups": {"raid5": {"data": 3, "redundancy": 1}}})
    assert merged["raid_groups"]["raid5"] == {"data": 3, "redundancy": 1}
    assert merged["raid_groups"]["raid10"] == {"data": 4, "redundancy": 4}
    record = {"spec": {"platform": "sim", "platform_options": {}, "hardware": {"afr_pct": 2}}}
    assert hardware_facts(record)["afr_pct"] == 2


def test_the_tradeoff_front_keeps_what_nothing_beats_in_all_three(ds8800) -> None:
    ranked = pd.DataFrame(
        [
            {"class": "c", "config_key": R5, "score": 100.0, "meets_limits": True},
            {"class": "c", "config_key": R6, "score": 90.0, "meets_limits": True},
            {"class": "c", "config_key": R10, "score": 200.0, "meets_limits": True},
            {
                "class": "c",
                "config_key": "raid6/host_stripe/ranks4/stripe64k/wb-ra",
                "score": 80.0,
                "meets_limits": True,
            },
            {
                "class": "c",
                "config_key": "raid5/single_rank/wb-ra",
                "score": 999.0,
                "meets_limits": False,
            },
        ]
    )
    out = with_tradeoffs(ranked, ds8800)
    front = set(out.loc[pareto_tradeoffs(out), "config_key"])
    # R5: most capacity; R6: least risk; R10: fastest; the slower RAID 6 twin is dominated;
    # the limit breaker stays out however fast.
    assert front == {R5, R6, R10}


def test_the_chart_tells_the_risk_as_the_tables_write_it(ds8800) -> None:
    """The trade-off chart's tooltip gives each configuration's data-loss risk as the CLI, the
    ranking and the report write it (``1.1e-06``), not in d3's own form (``1.09e-6``)."""
    from recommender.charts import tradeoff_chart
    from recommender.views.markdown import risk_text

    points = tradeoffs([R5, R6, R10], ds8800).assign(
        score=[100.0, 90.0, 120.0], usable_pct=[87.5, 75.0, 50.0], front="dominated", limits=""
    )
    spec = tradeoff_chart(points, "iops").to_dict()
    tooltip = {t["title"]: t["field"] for t in spec["encoding"]["tooltip"] if "title" in t}
    field = tooltip["data-loss risk / year"]
    (rows,) = spec["datasets"].values()
    told = {row["config_key"]: row[field] for row in rows}
    assert told == {
        k: risk_text(v)
        for k, v in zip(points["config_key"], points["loss_risk_per_year"], strict=True)
    }
    assert all(re.fullmatch(r"\d\.\de-\d\d", text) for text in told.values()), told
