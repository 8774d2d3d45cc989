"""Dimensions a platform declares (sweeper/dimensions.py): linux_md's chunk size and drives per
rank, a role's own variables. They are in keys, the study, the build order, What matters and
the trade-offs like the built-in dimensions; keys without them are as they were."""

from __future__ import annotations

import shutil
from itertools import pairwise
from pathlib import Path

import optuna
import pandas as pd
import pytest
import yaml

from recommender.importance import class_importances
from recommender.tradeoffs import tradeoffs
from recommender.views.glossary import explain_key
from sweeper.configuration import Configuration, enumerate_configurations, in_space, space_size
from sweeper.ordering import cost_ordered, total_cost
from sweeper.platforms.linux_md import LVM_S, LinuxMdPlatform
from sweeper.platforms.own_role import AnsibleRolePlatform
from sweeper.spec import ConfigSpace, load_spec
from sweeper.study import enqueue, suggest_configuration, waiting_keys
from tests.support.paths import LOCAL_INVENTORY, ROOT
from tests.support.specs import problems_of

MD_SPACE = {
    "raid_level": ["raid5", "raid6"],
    "layout": ["single_rank", "host_stripe"],
    "ranks": [2],
    "stripe_kib": [64],
    "cache_policy": ["wb-ra", "wt-ra"],
    "chunk_kib": [64, 512],
    "drives_per_rank": [4, 6],
}


def test_a_key_carries_declared_dimensions_by_name_and_reads_back() -> None:
    plain = Configuration("raid5", "host_stripe", "wb-ra", 2, 64)
    assert plain.key == "raid5/host_stripe/ranks2/stripe64k/wb-ra"  # as it always was
    assert plain.dimensions == () and "dimensions" not in plain.params()
    c = Configuration("raid5", "host_stripe", "wb-ra", 2, 64, dimensions={"width": 5, "fs": "xfs"})
    assert c.key == "raid5/host_stripe/ranks2/stripe64k/wb-ra/fs=xfs/width=5"  # sorted by name
    assert Configuration.from_key(c.key) == c and Configuration.from_key(c.key).key == c.key
    assert Configuration.from_params(c.params()) == c
    assert c.dimension("width") == 5 and c.dimension("chunk_kib", 512) == 512
    flag = Configuration("raid5", "single_rank", "wb-ra", dimensions={"trim": True})
    assert flag.key.endswith("/trim=true") and Configuration.from_key(flag.key) == flag
    for bad in (
        "raid5/single_rank/wb-ra/a=1/a=2",
        "raid5/single_rank/wb-ra/a=1/a=x",
        "raid5/single_rank/wb-ra/ranks=3",
    ):
        with pytest.raises(ValueError):
            Configuration.from_key(bad)


def test_the_space_enumerates_sizes_and_contains_declared_values() -> None:
    space = ConfigSpace.model_validate(MD_SPACE)
    configs = enumerate_configurations(space)
    assert len(configs) == space_size(space) == 2 * 2 * 2 * 2 * 2
    assert len({c.key for c in configs}) == len(configs)
    assert all(in_space(c, space) for c in configs)
    other = Configuration("raid5", "single_rank", "wb-ra", dimensions={"chunk_kib": 128})
    assert not in_space(other, space)
    assert not in_space(Configuration("raid5", "single_rank", "wb-ra"), space)


def test_the_study_asks_for_declared_dimensions_and_enqueues_them() -> None:
    space = ConfigSpace.model_validate(MD_SPACE)
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=3))
    asked = [suggest_configuration(study.ask(), space) for _ in range(12)]
    assert all(in_space(c, space) for c in asked)
    assert {c.dimension("chunk_kib") for c in asked} == {64, 512}
    fresh = optuna.create_study()
    configs = enumerate_configurations(space)[:5]
    assert enqueue(fresh, configs, space) == 5
    assert waiting_keys(fresh) == {c.key for c in configs}
    trial = fresh.ask()
    assert suggest_configuration(trial, space) == configs[0]


def test_linux_md_builds_the_swept_chunk_and_width_and_orders_formats_outside(
    tmp_path: Path,
) -> None:
    space = ConfigSpace.model_validate(MD_SPACE)
    platform = LinuxMdPlatform({"chunk_kib": 256, "rank_devices": 4}, tmp_path)
    config = Configuration(
        "raid6", "host_stripe", "wb-ra", 2, 64, dimensions={"chunk_kib": 64, "drives_per_rank": 6}
    )
    extra = platform.extravars(config)
    assert extra["linux_md_chunk_kib"] == 64 and extra["linux_md_rank_devices"] == 6
    assert "chunk_kib" not in extra and "drives_per_rank" not in extra
    assert (
        platform.extravars(Configuration("raid5", "single_rank", "wb-ra"))["linux_md_chunk_kib"]
        == 256
    )
    # a chunk or a width is a format; a cache policy a flip; a layout a volume
    other_chunk = Configuration(
        "raid6", "host_stripe", "wb-ra", 2, 64, dimensions={"chunk_kib": 512, "drives_per_rank": 6}
    )
    format_s = platform.reconfiguration_time(None, config)
    assert platform.reconfiguration_time(config, other_chunk) == format_s > LVM_S
    listed = enumerate_configurations(space)
    ordered = cost_ordered(listed, platform.reconfiguration_time)
    builds = [
        (c.raid_level, c.rank_count, c.dimension("chunk_kib"), c.dimension("drives_per_rank"))
        for c in ordered
    ]
    changes = sum(a != b for a, b in pairwise(builds))
    assert changes == len(set(builds)) - 1 == 15  # each build once, cheap changes inside
    saved = total_cost(listed, platform.reconfiguration_time) - total_cost(
        ordered, platform.reconfiguration_time
    )
    assert saved > 10 * format_s
    assert LinuxMdPlatform.configuration_problems(config, {}) == []


def test_what_matters_names_a_declared_dimension(tmp_path: Path) -> None:
    space = ConfigSpace.model_validate(MD_SPACE | {"raid_level": ["raid5"]})
    rows = [
        {
            "class": "data_file",
            "config_key": c.key,
            "score": 1000.0 * c.dimension("chunk_kib")
            + (5.0 if c.cache_policy == "wb-ra" else 0.0),
        }
        for c in enumerate_configurations(space)
    ]
    imp = class_importances(pd.DataFrame(rows)).set_index("dimension")["importance"]
    assert imp.idxmax() == "chunk_kib" and imp["chunk_kib"] > 0.9
    assert "drives_per_rank" in imp.index  # varies, explains nothing


def test_the_trade_offs_follow_the_drives_per_rank() -> None:
    keys = [
        Configuration("raid5", "host_stripe", "wb-ra", 2, 64, dimensions={"drives_per_rank": w}).key
        for w in (5, 9)
    ]
    hw = {
        "drive_gb": 4000,
        "rebuild_mib_s": 100,
        "afr_pct": 2.0,
        "raid_groups": {"raid5": {"data": 3, "redundancy": 1}},
    }
    t = tradeoffs(keys, hw).set_index("config_key")
    narrow, wide = t.loc[keys[0]], t.loc[keys[1]]
    assert (narrow["drives"], wide["drives"]) == (10, 18)
    assert narrow["usable_share"] == pytest.approx(4 / 5)
    assert wide["usable_share"] == pytest.approx(8 / 9)
    assert wide["usable_gb"] == 2 * 8 * 4000
    assert wide["loss_risk_per_year"] > 3 * narrow["loss_risk_per_year"]


def _role_spec(tmp_path: Path, tiers: list[str], cost: str = "setting") -> Path:
    role = tmp_path / "role"
    shutil.copytree(ROOT / "tests" / "fixtures" / "roles" / "loop_array", role)
    specs = role / "meta" / "argument_specs.yml"
    doc = yaml.safe_load(specs.read_text())
    doc["argument_specs"]["main"]["options"]["loop_array_tier"] = {
        "type": "str",
        "choices": ["gold", "silver"],
        "description": "Tier of the LUN.",
    }
    specs.write_text(yaml.safe_dump(doc))
    spec = {
        "name": "own-role",
        "platform": "ansible",
        "inventory": str(LOCAL_INVENTORY),
        "platform_options": {
            "role": str(role),
            "variables": {"raid_level": "loop_array_raid", "layout": "loop_array_layout"},
            "dimensions": {"loop_array_tier": cost},
            "allow": ["/dev/loop*"],
        },
        "config_space": {"raid_level": ["raid5"], "loop_array_tier": tiers},
        "matrix": {
            "patterns": ["write"],
            "block_sizes": ["4k"],
            "concurrency": ["1x1"],
            "runtime": "2s",
            "working_set": "4m",
            "sync": ["dsync"],
        },
        "classes": ["redo_log"],
    }
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def test_a_role_declares_its_own_variables_through_its_argument_spec(tmp_path: Path) -> None:
    spec, _ = load_spec(_role_spec(tmp_path, ["gold", "silver"]))
    declared = AnsibleRolePlatform.declared_dimensions(spec.platform_options)
    assert declared["loop_array_tier"].choices == ("gold", "silver")
    platform = AnsibleRolePlatform(spec.platform_options, tmp_path)
    configs = enumerate_configurations(spec.config_space)
    assert [c.key for c in configs] == [
        "raid5/single_rank/wb-ra/loop_array_tier=gold",
        "raid5/single_rank/wb-ra/loop_array_tier=silver",
    ]
    assert platform.role_vars(configs[1]) == {
        "loop_array_raid": "raid5",
        "loop_array_layout": "single_rank",
        "loop_array_tier": "silver",
    }
    (problem,) = problems_of(_role_spec(tmp_path / "b", ["gold", "bronze"]))
    assert "config_space.loop_array_tier[1]: bronze is not among loop_array_tier's values" in (
        problem
    )
    (problem,) = problems_of(_role_spec(tmp_path / "c", ["gold"], cost="reboot"))
    assert "platform_options.dimensions.loop_array_tier" in problem


def test_linux_md_puts_the_filesystem_and_health_into_the_role_and_fio_on_the_file(
    tmp_path: Path,
) -> None:
    platform = LinuxMdPlatform(
        {"rank_devices": 4, "rebuild_kib_s": 2000}, tmp_path, LOCAL_INVENTORY
    )
    layers = {"filesystem": "ext4", "health": "rebuilding"}
    config = Configuration("raid5", "single_rank", "wb-ra", dimensions=layers)
    extra = platform.extravars(config)
    assert (extra["filesystem"], extra["health"]) == ("ext4", "rebuilding")
    assert extra["linux_md_rebuild_kib_s"] == 2000
    plain = platform.extravars(Configuration("raid5", "single_rank", "wb-ra"))
    assert (plain["filesystem"], plain["health"]) == ("none", None)  # left as built
    assert platform.load_driver(config, None, 0).load.target == "/mnt/raidsweep/fio.data"
    raw = Configuration("raid5", "single_rank", "wb-ra", dimensions={"filesystem": "none"})
    assert platform.load_driver(raw, None, 0).load.target == "/dev/raidsweep/volume"
    # failing a member or starting a rebuild is a flip; making the array whole a resync
    at = {
        h: Configuration("raid5", "single_rank", "wb-ra", dimensions={"health": h})
        for h in ("optimal", "degraded", "rebuilding")
    }
    flip = platform.reconfiguration_time(at["optimal"], at["degraded"])
    assert flip == platform.reconfiguration_time(at["degraded"], at["rebuilding"]) < LVM_S
    assert platform.reconfiguration_time(at["rebuilding"], at["optimal"]) > 100 * flip
    other_fs = Configuration("raid5", "single_rank", "wb-ra", dimensions={"filesystem": "xfs"})
    assert platform.reconfiguration_time(raw, other_fs) == LVM_S


def test_the_glossary_explains_a_declared_dimension_of_a_key() -> None:
    text = explain_key("raid5/single_rank/wb-ra/chunk_kib=64/health=degraded/tier=gold")
    assert "`chunk_kib=64`: a RAID chunk (strip) of 64 KiB per drive" in text
    assert "`health=degraded`: the RAID group's health during the runs: degraded" in text
    assert "`tier=gold`: tier = gold (a dimension the platform declares)" in text
