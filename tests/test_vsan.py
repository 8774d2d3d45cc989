"""The vsan platform's mapping and spec checks (no vCenter needed; vcsim tests are in
tests/integration/test_vsan_*.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest
import yaml

from sweeper.configuration import Configuration, enumerate_configurations
from sweeper.errors import SpecError
from sweeper.platforms import get_platform
from sweeper.platforms.vsan import configuration_of, raid_level_of
from sweeper.spec import load_spec

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "vsan" / "policies.yaml"


def _module() -> Any:
    """The Ansible module's pure half (rules and their vSAN capability values)."""
    path = ROOT / "playbooks" / "library" / "vsan_policy.py"
    spec = importlib.util.spec_from_file_location("vsan_policy", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _spec(tmp_path: Path, **changes: Any) -> Path:
    data = yaml.safe_load(EXAMPLE.read_text())
    data["inventory"] = str(ROOT / "inventories" / "vsan" / "hosts.yml")
    for key, value in changes.items():
        data[key] = data[key] | value if isinstance(value, dict) else value
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def _problems(path: Path) -> list[str]:
    with pytest.raises(SpecError) as info:
        load_spec(path)
    return info.value.problems


def test_the_example_is_valid_and_reads_as_vsan_policies() -> None:
    spec, inventory = load_spec(EXAMPLE)
    assert inventory == ROOT / "inventories" / "vsan" / "hosts.yml"
    keys = [c.key for c in enumerate_configurations(spec.config_space)]
    assert "raid5/pool_stripe/ranks4/stripe1m/wb-ra/snap" in keys and len(keys) == 12


@pytest.mark.parametrize(
    ("config_space", "where", "message"),
    [
        ({"raid_level": ["raid10"]}, "config_space.raid_level[0]",
         "'raid10' is not supported by platform 'vsan' (supported: raid1, raid5, raid6)"),
        ({"layout": ["host_stripe"]}, "config_space.layout[0]",
         "'host_stripe' is not supported by platform 'vsan'"),
        ({"ranks": [16]}, "config_space",
         "vSAN stripes an object over at most 12 disk stripes (ranks 16)"),
        ({"stripe_kib": [64]}, "config_space",
         "vSAN's stripe unit is fixed at 1 MiB: stripe_kib must be 1024, not 64"),
        ({"data_reduction": [False, True]}, "config_space",
         "set platform_options.allow_data_reduction_change: true to allow it"),
    ],
)  # fmt: skip
def test_what_vsan_cannot_build_is_refused_by_place(
    tmp_path: Path, config_space: dict[str, Any], where: str, message: str
) -> None:
    problems = _problems(_spec(tmp_path, config_space=config_space))
    assert any(where in p and message in p for p in problems), problems
    assert all(p.startswith("line ") for p in problems)


def test_options_are_checked_and_no_password_has_a_place(tmp_path: Path) -> None:
    problems = _problems(
        _spec(tmp_path, platform_options={"password": "x", "mirror_failures_to_tolerate": 4})
    )
    assert any("platform_options.password" in p and "Extra inputs" in p for p in problems)
    assert any("platform_options.mirror_failures_to_tolerate" in p for p in problems)
    missing_load = yaml.safe_load(EXAMPLE.read_text())
    del missing_load["platform_options"]["load"]
    path = tmp_path / "no-load.yaml"
    path.write_text(yaml.safe_dump(missing_load | {"inventory": str(EXAMPLE.parent.parent
                                                                    / "inventories/vsan")}))  # fmt: skip
    assert any("platform_options.load" in p for p in _problems(path))


def test_the_role_mapping_and_the_read_back_mapping_agree() -> None:
    """What the module writes for each configuration maps back to that configuration."""
    module = _module()
    spec, _ = load_spec(EXAMPLE)
    for config in enumerate_configurations(spec.config_space):
        # The role's mapping (tasks/main.yml), written out.
        rules = module.policy_rules(
            {
                "failure_tolerance_method": "RAID-1 (Mirroring)"
                if config.raid_level == "raid1"
                else "RAID-5/6 (Erasure Coding)",
                "failures_to_tolerate": {"raid1": 1, "raid5": 1, "raid6": 2}[config.raid_level],
                "stripe_width": config.ranks if config.layout == "pool_stripe" else 1,
            }
        )
        assert module.rule_problems(rules) == []
        caps = module.capability_values(rules)
        readback = {
            "policy": {"rules": module.rules_from_capabilities(caps)},
            "snapshots": {"vm-a": config.snapshots, "vm-b": config.snapshots},
            "data_reduction": {"requested": None, "reported": False},
        }
        assert Configuration.from_params(configuration_of(readback)) == config


def test_rules_vsan_does_not_accept_are_named() -> None:
    module = _module()
    rules = module.policy_rules(
        {"failure_tolerance_method": "RAID-5/6 (Erasure Coding)", "failures_to_tolerate": 3,
         "stripe_width": 13, "flash_read_cache_reservation": 101}
    )  # fmt: skip
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
    base = {"policy": {"rules": {"failure_tolerance_method": "RAID-1 (Mirroring)",
                                 "failures_to_tolerate": 1, "stripe_width": 1}},
            "snapshots": {"vm": False}}  # fmt: skip
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
    assert groups == {"raid1": {"data": 1, "redundancy": 2},
                      "raid5": {"data": 3, "redundancy": 1},
                      "raid6": {"data": 4, "redundancy": 2}}  # fmt: skip
    a = Configuration.from_key("raid5/single_rank/wb-ra")
    assert platform.reconfiguration_time(
        a, Configuration.from_key("raid5/single_rank/wb-ra/snap")
    ) < (platform.reconfiguration_time(a, Configuration.from_key("raid6/single_rank/wb-ra")))
    # Without an inventory (a report reading facts) nothing contacts a vCenter.
    assert platform.preflight_facts == {}
    extra = platform.extravars(a)
    assert extra["data_reduction"] is None and extra["snapshots"] is False
    assert not any("password" in k for k in extra)
