"""Grid build order: each RAID build measured whole before it is torn down."""

from __future__ import annotations

from itertools import groupby, pairwise
from pathlib import Path

from sweeper.configuration import enumerate_configurations
from sweeper.ordering import cost_ordered, total_cost
from sweeper.platforms.sim import SimPlatform
from sweeper.spec import ConfigSpace


def test_every_build_is_formatted_once_and_the_order_is_cheaper(tmp_path: Path) -> None:
    space = ConfigSpace.model_validate(
        {
            "raid_level": ["raid5", "raid10"],
            "layout": ["single_rank", "host_stripe", "pool_stripe"],
            "ranks": [2, 4, 8],
            "stripe_kib": {"host_stripe": [16, 64], "pool_stripe": [16384, 1048576]},
            "cache_policy": ["wb-ra", "wt-ra"],
            "snapshots": [False, True],
        }
    )
    platform = SimPlatform({"profile": "ds8800-like"}, tmp_path)
    listed = enumerate_configurations(space)
    ordered = cost_ordered(listed, platform.reconfiguration_time)
    assert sorted(c.key for c in ordered) == sorted(c.key for c in listed)
    builds = [k for k, _ in groupby(ordered, key=lambda c: (c.raid_level, c.rank_count))]
    assert len(builds) == len(set(builds)) == 2 * 4  # raid5/raid10 × 1, 2, 4, 8 ranks
    cost = total_cost(ordered, platform.reconfiguration_time)
    listed_cost = total_cost(listed, platform.reconfiguration_time)
    format_s = platform.reconfiguration_time(None, ordered[0])
    assert cost <= listed_cost - 4 * format_s * 0.9  # at least four formats fewer
    # Each build starts with its format; within a build no step costs a format.
    steps = [platform.reconfiguration_time(a, b) for a, b in pairwise(ordered)]
    assert sum(s >= 0.9 * format_s for s in steps) == len(builds) - 1


def test_empty_and_single() -> None:
    assert cost_ordered([], lambda a, b: 1.0) == []
