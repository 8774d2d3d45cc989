"""The simulated array's rank width: a sweep gives the drives of a level's ranks
(``platform_options.rank_drives``), a configuration its own (``drives_per_rank``); the
model, the checks, the role's variables, the array's state and the trade-offs follow it."""

from __future__ import annotations

import json
from pathlib import Path

from sweeper.configuration import Configuration
from sweeper.platforms.sim import SimPlatform, read_array_state
from sweeper.sim import ArrayState, Job, load_profile, predict

PROFILE = load_profile("ds8800-like")
STUDY = {"profile": "ds8800-like", "rank_drives": {"raid10": 4}}
GIB = 1024**3


def _config(level: str = "raid10", **dims: int) -> Configuration:
    return Configuration(level, "host_stripe", "wb-ra", 4, 16, dimensions=tuple(dims.items()))


def test_the_model_builds_ranks_of_the_given_width() -> None:
    job = Job("randread", 1.0, 8192, 1, 20, "sync", 300, 6, 360 * GIB)
    narrow = predict(
        PROFILE, ArrayState("raid10", "host_stripe", 4, 16, "wb-ra", rank_drives=4), job
    )
    wide = predict(PROFILE, ArrayState("raid10", "host_stripe", 4, 16, "wb-ra"), job)
    assert narrow.explain["drives_busy"] == 16 and wide.explain["drives_busy"] == 32
    assert narrow.iops < wide.iops
    # The profile's own width given explicitly is the profile as it is.
    same = ArrayState("raid10", "host_stripe", 4, 16, "wb-ra", rank_drives=8)
    assert predict(PROFILE, same, job).iops == wide.iops


def test_the_option_sets_a_levels_width_and_the_dimension_overrides_it(tmp_path: Path) -> None:
    platform = SimPlatform(STUDY, tmp_path)
    assert platform.extravars(_config())["sim_rank_drives"] == 4
    assert platform.extravars(_config("raid5"))["sim_rank_drives"] == 8
    swept = platform.extravars(_config(drives_per_rank=8))
    assert swept["sim_rank_drives"] == 8 and "drives_per_rank" not in swept
    assert SimPlatform({}, tmp_path).extravars(_config())["sim_rank_drives"] == 8


def test_the_array_state_carries_the_width(tmp_path: Path) -> None:
    record = {"raid_level": "raid10", "layout": "host_stripe", "ranks": 4, "stripe_kib": 16}
    record |= {"cache_policy": "wb-ra", "rank_drives": 4}
    (tmp_path / "array.json").write_text(json.dumps(record))
    assert read_array_state(tmp_path)[1].rank_drives == 4
    (tmp_path / "array.json").write_text(json.dumps(record | {"rank_drives": None}))
    assert read_array_state(tmp_path)[1].rank_drives is None


def test_widths_the_sites_cannot_build_are_refused() -> None:
    problems = dict(
        (tuple(where), text)
        for where, text in SimPlatform.option_problems(
            {"rank_drives": {"raid10": 6, "raid6": 3, "raid5": 10, "raid0": 4}}
        )
    )
    assert "raid6 rank needs at least 4" in problems[("platform_options", "rank_drives", "raid6")]
    assert "site of 8" in problems[("platform_options", "rank_drives", "raid5")]
    assert "ds8800-like has" in problems[("platform_options", "rank_drives", "raid0")]
    assert ("platform_options", "rank_drives", "raid10") not in problems
    (odd,) = SimPlatform.configuration_problems(_config(drives_per_rank=6 - 1), {})
    assert "odd width" in odd and "drives_per_rank is 5" in odd
    # Narrower ranks: more of them fit the sites (two 2+2 RAID 10 ranks per site of 8).
    many = Configuration("raid10", "host_stripe", "wb-ra", 20, 16)
    assert SimPlatform.configuration_problems(many, STUDY) == []
    assert "exceed the 10" in SimPlatform.configuration_problems(many, {})[0]


def test_a_width_change_formats_and_the_trade_offs_see_the_groups(tmp_path: Path) -> None:
    platform = SimPlatform(STUDY, tmp_path)
    fmt = platform.reconfiguration_time(_config(drives_per_rank=8), _config())
    assert fmt > 3600  # the ranks are formatted anew
    assert platform.reconfiguration_time(_config(), _config()) == 0
    assert platform.hardware()["raid_groups"]["raid10"] == {"data": 2, "redundancy": 2}
    assert platform.hardware()["raid_groups"]["raid5"] == {"data": 7, "redundancy": 1}
    assert SimPlatform({}, tmp_path).hardware()["raid_groups"]["raid10"]["data"] == 4


def test_keys_of_configurations_without_the_dimension_are_unchanged() -> None:
    assert _config().key == "raid10/host_stripe/ranks4/stripe16k/wb-ra"
    assert _config(drives_per_rank=4).key.endswith("/drives_per_rank=4")
