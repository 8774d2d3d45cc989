"""The vsan platform's mapping and spec checks (no vCenter needed; vcsim tests are in
tests/integration/test_vsan_*.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
import pytest
import yaml
from pyVmomi import vim

from sweeper.configuration import Configuration, enumerate_configurations
from sweeper.errors import InputError
from sweeper.platforms import get_platform
from sweeper.platforms.vsan import VsanOptions, configuration_of, policy_of, raid_level_of
from sweeper.spec import load_spec
from tests.support.ansible_modules import load_module
from tests.support.paths import ROOT
from tests.support.specs import problems_of

EXAMPLE = ROOT / "examples" / "vsan" / "policies.yaml"


def _module() -> Any:
    """The Ansible module's pure half (rules and their vSAN capability values)."""
    return load_module(ROOT / "playbooks" / "library" / "vsan_policy.py")


def _spec(tmp_path: Path, **changes: Any) -> Path:
    data = yaml.safe_load(EXAMPLE.read_text())
    data["inventory"] = str(ROOT / "inventories" / "vsan" / "hosts.yml")
    for key, value in changes.items():
        data[key] = data[key] | value if isinstance(value, dict) else value
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_the_example_is_valid_and_reads_as_vsan_policies() -> None:
    spec, inventory = load_spec(EXAMPLE)
    assert inventory == ROOT / "inventories" / "vsan" / "hosts.yml"
    keys = [c.key for c in enumerate_configurations(spec.config_space)]
    assert "raid5/pool_stripe/ranks4/stripe1m/wb-ra/snap" in keys and len(keys) == 12


@pytest.mark.parametrize(
    ("config_space", "where", "message"),
    [
        (
            {"raid_level": ["raid10"]},
            "config_space.raid_level[0]",
            "'raid10' is not supported by platform 'vsan' (supported: raid1, raid5, raid6)",
        ),
        (
            {"layout": ["host_stripe"]},
            "config_space.layout[0]",
            "'host_stripe' is not supported by platform 'vsan'",
        ),
        (
            {"ranks": [16]},
            "config_space",
            "vSAN stripes an object over at most 12 disk stripes (ranks 16)",
        ),
        (
            {"stripe_kib": [64]},
            "config_space",
            "vSAN's stripe unit is fixed at 1 MiB: stripe_kib must be 1024, not 64",
        ),
        (
            {"data_reduction": [False, True]},
            "config_space",
            "set platform_options.allow_data_reduction_change: true to allow it",
        ),
    ],
)
def test_what_vsan_cannot_build_is_refused_by_place(
    tmp_path: Path, config_space: dict[str, Any], where: str, message: str
) -> None:
    problems = problems_of(_spec(tmp_path, config_space=config_space))
    assert any(where in p and message in p for p in problems), problems
    assert all(p.startswith("line ") for p in problems)


def test_options_are_checked_and_no_password_has_a_place(tmp_path: Path) -> None:
    problems = problems_of(
        _spec(tmp_path, platform_options={"password": "x", "mirror_failures_to_tolerate": 4})
    )
    assert any("platform_options.password" in p and "Extra inputs" in p for p in problems)
    assert any("platform_options.mirror_failures_to_tolerate" in p for p in problems)
    missing_load = yaml.safe_load(EXAMPLE.read_text())
    del missing_load["platform_options"]["load"]
    path = tmp_path / "no-load.yaml"
    path.write_text(
        yaml.safe_dump(
            missing_load | {"inventory": str(EXAMPLE.parent.parent / "inventories/vsan")}
        )
    )
    assert any("platform_options.load" in p for p in problems_of(path))


def _role_policy(config: Configuration, **role_vars: Any) -> dict[str, Any]:
    """The policy the role's task (tasks/main.yml) hands the module for a configuration,
    rendered from the role's own Jinja with its defaults."""
    tasks = yaml.safe_load((ROOT / "playbooks/roles/vsan/tasks/main.yml").read_text())
    task = next(t for t in tasks if "vsan_policy" in t)
    defaults = yaml.safe_load((ROOT / "playbooks/roles/vsan/defaults/main.yml").read_text())
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    context = defaults | config.params() | {"ranks": config.ranks} | role_vars
    return {
        k: env.from_string(str(v)).render(context)
        for k, v in task["vars"]["vsan_policy_spec"].items()
    }


def test_the_role_mapping_and_the_read_back_mapping_agree() -> None:
    """What the role asks of the module for each configuration is the platform's own policy
    (the preflight checks those), and what the module writes maps back to the configuration."""
    module = _module()
    spec, _ = load_spec(EXAMPLE)
    opts = VsanOptions(
        load="sim",
        mirror_failures_to_tolerate=2,
        policy_name="p1",
        object_space_reservation=25,
        flash_read_cache_reservation=0.5,
    )
    role_vars = {
        "vsan_mirror_failures_to_tolerate": 2,
        "vsan_policy_name": "p1",
        "vsan_object_space_reservation": 25,
        "vsan_flash_read_cache_reservation": 0.5,
    }
    for config in enumerate_configurations(spec.config_space):
        width = config.rank_count if config.layout == "pool_stripe" else 1
        rules = module.policy_rules(_role_policy(config, **role_vars))
        assert rules == module.policy_rules(policy_of(config.raid_level, width, opts))
        assert module.rule_problems(rules) == []
        caps = module.capability_values(rules)
        readback = {
            "policy": {"rules": module.rules_from_capabilities(caps)},
            "snapshots": {"vm-a": config.snapshots, "vm-b": config.snapshots},
            "data_reduction": {"requested": None, "reported": False},
        }
        assert Configuration.from_params(configuration_of(readback)) == config


def _disk_group(cache_ssd: bool, *capacity_ssd: bool) -> Any:
    disk = vim.host.ScsiDisk
    return vim.vsan.host.DiskMapping(
        ssd=disk(ssd=cache_ssd), nonSsd=[disk(ssd=s) for s in capacity_ssd]
    )


def test_all_flash_is_read_from_the_disk_groups_vsan_reports() -> None:
    """OSA: all-flash when every disk group's capacity devices are flash; ESA always is;
    a cluster reporting no disk groups (vcsim) is unknown, and then nothing is refused."""
    flash_of = _module().flash_of
    storage = vim.vsan.host.ConfigInfo.StorageInfo
    all_flash = {
        "esx1": storage(diskMapping=[_disk_group(True, True, True)]),
        "esx2": storage(diskMapping=[_disk_group(True, True)]),
    }
    assert flash_of(None, all_flash) == {
        "architecture": "OSA",
        "all_flash": True,
        "hosts": {"esx1": "all-flash", "esx2": "all-flash"},
    }
    mixed = all_flash | {
        "esx3": storage(diskMapping=[_disk_group(True, True), _disk_group(True, False)])
    }
    assert flash_of(False, mixed)["all_flash"] is False
    assert flash_of(False, mixed)["hosts"]["esx3"] == "hybrid"
    assert flash_of(True, mixed) == {"architecture": "ESA", "all_flash": True, "hosts": {}}
    unknown = flash_of(None, {"esx1": None, "esx2": storage(diskMapping=[])})
    assert unknown == {
        "architecture": None,
        "all_flash": None,
        "hosts": {"esx1": "no disk groups reported", "esx2": "no disk groups reported"},
    }


def test_the_preflight_names_each_refused_rule_once_per_raid_level(tmp_path: Path) -> None:
    """The module's problems per policy come back to the spec's place: one line per level
    and problem though two stripe widths share it, and data reduction's own line."""
    spec, _ = load_spec(EXAMPLE)
    space = spec.config_space.model_copy(update={"data_reduction": [False, True]})
    platform = get_platform(
        "vsan",
        {"load": "sim", "allow_data_reduction_change": True},
        tmp_path,
        inventory=tmp_path / "hosts.yml",
    )
    policies = platform._space_policies(space)
    assert len({(lvl, p["stripe_width"]) for lvl, p in policies}) == len(policies)
    hybrid = "cluster 'c1' does not offer ...: erasure coding needs an all-flash cluster"
    platform.preflight_facts = {
        "policy_problems": [[hybrid] if lvl != "raid1" else [] for lvl, _ in policies],
        "data_reduction_problems": ["they need an all-flash cluster"],
    }
    with pytest.raises(InputError) as info:
        platform._check_offer(space)
    levels = [lvl for lvl in space.raid_level if lvl != "raid1"]
    assert info.value.problems == [f"config_space.raid_level {lvl}: {hybrid}" for lvl in levels] + [
        "config_space.data_reduction true: they need an all-flash cluster"
    ]
    platform.preflight_facts = {
        "policy_problems": [[] for _ in policies],
        "data_reduction_problems": [],
        "flash": {"all_flash": False},
    }
    platform._check_offer(space)
    assert platform.hardware()["media"] == "hdd"


def test_rules_vsan_does_not_accept_are_named() -> None:
    module = _module()
    rules = module.policy_rules(
        {
            "failure_tolerance_method": "RAID-5/6 (Erasure Coding)",
            "failures_to_tolerate": 3,
            "stripe_width": 13,
            "flash_read_cache_reservation": 101,
        }
    )
    assert module.rule_problems(rules) == [
        "rule 'Failures to tolerate': 3 is not offered with RAID-5/6 (Erasure Coding) "
        "(offered: 1, 2)",
        "rule 'Number of disk stripes per object': 13 is outside 1..12",
        "rule 'Flash read cache reservation': 101.0% is outside 0..100",
    ]
    assert module.hosts_needed(module.policy_rules({"failures_to_tolerate": 2})) == 5
    # vSAN keeps the flash read cache reservation in ten-thousandths of a percent.
    assert (
        module.capability_values(module.policy_rules({"flash_read_cache_reservation": 0.5}))[
            "cacheReservation"
        ]
        == 5000
    )


def test_data_reduction_read_back_wins_over_the_request() -> None:
    base = {
        "policy": {
            "rules": {
                "failure_tolerance_method": "RAID-1 (Mirroring)",
                "failures_to_tolerate": 1,
                "stripe_width": 1,
            }
        },
        "snapshots": {"vm": False},
    }
    assert (
        configuration_of(base | {"data_reduction": {"requested": True, "reported": False}})[
            "data_reduction"
        ]
        is False
    )
    # vcsim reports nothing: then the request is all there is.
    assert (
        configuration_of(base | {"data_reduction": {"requested": True, "reported": None}})[
            "data_reduction"
        ]
        is True
    )
    with pytest.raises(ValueError, match="unknown failure tolerance method"):
        raid_level_of({"failure_tolerance_method": "RAID-7", "failures_to_tolerate": 1})


def test_hardware_and_reconfiguration_time(tmp_path: Path) -> None:
    platform = get_platform("vsan", {"load": "sim", "mirror_failures_to_tolerate": 2}, tmp_path)
    groups = platform.hardware()["raid_groups"]
    assert groups == {
        "raid1": {"data": 1, "redundancy": 2},
        "raid5": {"data": 3, "redundancy": 1},
        "raid6": {"data": 4, "redundancy": 2},
    }
    a = Configuration.from_key("raid5/single_rank/wb-ra")
    assert platform.reconfiguration_time(
        a, Configuration.from_key("raid5/single_rank/wb-ra/snap")
    ) < (platform.reconfiguration_time(a, Configuration.from_key("raid6/single_rank/wb-ra")))
    # Without an inventory (a report reading facts) nothing contacts a vCenter.
    assert platform.preflight_facts == {}
    extra = platform.extravars(a)
    assert extra["data_reduction"] is None and extra["snapshots"] is False
    assert not any("password" in k for k in extra)


def test_the_read_back_of_a_real_vcenter_is_held_to_what_was_asked() -> None:
    """The module's check after applying (``_verify``): where the server reports a disk's
    policy and the cluster's deduplication (a real vCenter), they must be as asked; where
    it reports neither (vcsim, tested in tests/integration) the result says unverified."""
    module = _module()
    rules = module.policy_rules({"failure_tolerance_method": "RAID-1 (Mirroring)"})
    caps = module.capability_values(rules)

    def result(disk_ids: list[str | None], dr_reported: bool | None) -> dict[str, Any]:
        return {
            "cluster": "c1",
            "policy": {"id": "p-1", "capabilities": caps},
            "disks": [
                {"vm": f"vm{i}", "disk": "Hard disk 2", "policy_id": pid}
                for i, pid in enumerate(disk_ids)
            ],
            "data_reduction": {"requested": True, "reported": dr_reported},
            "snapshots": {"vm0": True, "vm1": True},
            "snapshot_name": "raidsweep-hold",
        }

    keep = {"vm0": True, "vm1": True}
    real = result(["p-1", "p-1"], True)
    module._verify(real, rules, "raidsweep", keep)
    assert real["disk_policy_verified"] is True
    simulated = result([None, None], None)
    module._verify(simulated, rules, "raidsweep", keep)
    assert simulated["disk_policy_verified"] is False
    with pytest.raises(module.VsanError, match="VM 'vm1' disk 'Hard disk 2' reports policy p-0"):
        module._verify(result(["p-1", "p-0"], True), rules, "raidsweep", keep)
    with pytest.raises(module.VsanError, match="reports deduplication and compression off"):
        module._verify(result(["p-1", "p-1"], False), rules, "raidsweep", keep)
    with pytest.raises(module.VsanError, match="reads back as"):
        module._verify(result(["p-1", "p-1"], True) | {"policy": None}, rules, "raidsweep", keep)
    with pytest.raises(module.VsanError, match="VM 'vm1': snapshot 'raidsweep-hold' is not"):
        module._verify(real, rules, "raidsweep", {"vm0": True, "vm1": False})


def test_capacity_devices_are_read_from_the_disk_groups_vsan_reports() -> None:
    """The smallest capacity device is the drive a rebuild copies; vcsim reports none."""
    capacity_devices_of = _module().capacity_devices_of
    storage = vim.vsan.host.ConfigInfo.StorageInfo

    def disk(gib: int) -> Any:
        lba = vim.host.DiskDimensions.Lba(blockSize=512, block=gib * 1024**3 // 512)
        return vim.host.ScsiDisk(ssd=True, capacity=lba)

    group = vim.vsan.host.DiskMapping(ssd=disk(400), nonSsd=[disk(1920), disk(960)])
    found = capacity_devices_of({"esx1": storage(diskMapping=[group]), "esx2": None})
    assert found == {"count": 2, "smallest_gb": round(960 * 1024**3 / 1e9, 3)}
    assert capacity_devices_of({"esx1": None, "esx2": storage(diskMapping=[])}) is None


def test_fio_load_takes_its_facts_from_vcenter_and_the_spec_not_the_model(
    tmp_path: Path,
) -> None:
    """With ``load: fio`` the simulated array's profile is never consulted: the drive size
    and media come from what vCenter reported, the rest from the spec's ``hardware``."""
    options = {"load": "fio", "worker_device": "/dev/sdb"}
    platform = get_platform("vsan", options, tmp_path)
    assert platform.profile is None
    assert "rebuild_mib_s" not in platform.hardware() and "media" not in platform.hardware()
    platform.preflight_facts = {
        "flash": {"all_flash": True},
        "capacity_devices": {"count": 12, "smallest_gb": 1920.383},
    }
    facts = platform.hardware()
    assert (facts["media"], facts["drive_gb"]) == ("flash", 1920.383)
    assert "rebuild_mib_s" not in facts
    # The model's hardware still fills in what vcsim does not report, for load: sim.
    sim = get_platform("vsan", {"load": "sim"}, tmp_path)
    assert sim.profile is not None
    assert sim.hardware()["drive_gb"] == sim.profile.drives.capacity_gb
    # A RAID level the model's profile lacks (allflash-nvme has no RAID 1) matters to the
    # model only, not to real fio.
    config = Configuration.from_key("raid1/single_rank/wb-ra")
    assert (
        type(platform).configuration_problems(config, options | {"sim_profile": "allflash-nvme"})
        == []
    )
    assert type(sim).configuration_problems(config, {"load": "sim", "sim_profile": "allflash-nvme"})


def test_ranks_per_raid_level_ask_each_level_for_its_own_stripe_widths(tmp_path: Path) -> None:
    spec, _ = load_spec(EXAMPLE)
    levels = list(spec.config_space.raid_level)
    ranks = {lvl: [2 + 2 * i] for i, lvl in enumerate(levels)}
    space = spec.config_space.model_copy(
        update={"layout": ["single_rank", "pool_stripe"], "ranks": ranks}
    )
    platform = get_platform("vsan", {"load": "sim"}, tmp_path, inventory=tmp_path / "hosts.yml")
    widths = {(lvl, p["stripe_width"]) for lvl, p in platform._space_policies(space)}
    assert widths == {(lvl, w) for lvl in levels for w in (1, ranks[lvl][0])}
