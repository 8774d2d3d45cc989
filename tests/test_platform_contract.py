"""One contract, every platform: what the sweeper relies on of a platform and its role.

Each platform, with options that need no storage, must hand ``reconfigure.yml`` and
``teardown.yml`` only variables its role declares in ``meta/argument_specs.yml`` (Ansible
checks them there before anything changes), values of the declared types and choices,
JSON-clean and without secrets; give non-negative reconfiguration times that make staying
cheaper than moving; and say what it will change for ``--check``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from sweeper.configuration import Configuration
from sweeper.operator_room import Answer
from sweeper.platforms import PLATFORMS, Platform, get_platform
from sweeper.spec import CACHE_POLICIES, LAYOUTS, RAID_LEVELS, Matrix
from tests.support.paths import FIXTURES, ROLES

#: options that build each platform without any storage behind it
OPTIONS: dict[str, dict[str, Any]] = {
    "sim": {"profile": "ds8800-like"},
    "local": {"target": "/var/tmp/raidsweep-contract.img", "file_size": "64m"},
    "manual": {"allow": ["/dev/sdz"]},
    "ansible": {
        "role": str(FIXTURES / "roles" / "loop_array"),
        "variables": {"raid_level": "loop_array_raid", "layout": "loop_array_layout"},
    },
    "linux_md": {"rank_devices": 4},
    "vsan": {"load": "sim"},
}
TYPES = {"str": str, "int": int, "bool": bool, "path": str, "list": list, "float": (int, float)}


def test_every_platform_is_under_contract() -> None:
    assert set(OPTIONS) == set(PLATFORMS)


@pytest.fixture(params=sorted(PLATFORMS))
def platform(request: pytest.FixtureRequest, tmp_path: Path) -> Platform:
    return get_platform(request.param, OPTIONS[request.param], tmp_path)


def _configurations(platform: Platform) -> list[Configuration]:
    """Every configuration the platform says it supports, that it can build."""
    allowed = platform.supported_values(platform.options)
    out = []
    for raid in allowed.get("raid_level", RAID_LEVELS):
        for layout in allowed.get("layout", LAYOUTS):
            multi = layout != "single_rank"
            stripe = {"host_stripe": 64, "pool_stripe": 1024}.get(layout)
            for cache in allowed.get("cache_policy", CACHE_POLICIES):
                for snap in allowed.get("snapshots", (False, True)):
                    config = Configuration(
                        raid, layout, cache, 2 if multi else None, stripe if multi else None, snap
                    )
                    if not type(platform).configuration_problems(config, platform.options):
                        out.append(config)
    return out


def _spec(platform: Platform, entry: str) -> dict[str, Any]:
    """The options the platform's role declares for ``entry``; with a role of the user's
    (platform ansible), the user's role's too, whose variables the configuration fills."""
    roles = [ROLES / platform.name]
    if "role" in platform.options:
        roles.append(Path(platform.options["role"]))
    options: dict[str, Any] = {}
    for role in roles:
        doc = yaml.safe_load((role / "meta" / "argument_specs.yml").read_text())
        options |= doc["argument_specs"][entry]["options"] or {}
    return options


def _check_vars(variables: dict[str, Any], options: dict[str, Any], where: str) -> None:
    json.dumps(variables)  # extra vars travel as JSON
    for key, value in variables.items():
        assert "password" not in key and "token" not in key, f"{where}: {key}"
        if key == "raidsweep_platform":
            continue
        assert key in options, f"{where}: {key} is not declared in the role's argument spec"
        declared = options[key]
        if value is None:
            assert not declared.get("required"), f"{where}: {key} is required but None"
            continue
        assert isinstance(value, TYPES[declared["type"]]), f"{where}: {key}={value!r}"
        if "choices" in declared:
            assert value in declared["choices"], f"{where}: {key}={value!r}"
    # What a configuration is must come from the sweeper (the rest may be the inventory's).
    for key in ("raid_level", "layout", "cache_policy"):
        if options.get(key, {}).get("required"):
            assert key in variables, f"{where}: the role requires {key}"


def _built(platform: Platform, config: Configuration) -> None:
    """Where an operator builds the configurations, their answer for ``config``: the
    variables then describe what they built."""
    if platform.operator_builds:
        platform.answer = Answer(config.key, "/dev/sdz", "built by hand", "prompt")  # type: ignore[attr-defined]


class TestPlatformContract:
    def test_role_exists_with_its_entry_points(self, platform: Platform) -> None:
        role = ROLES / platform.name
        for path in ("tasks/main.yml", "tasks/teardown.yml", "meta/argument_specs.yml"):
            assert (role / path).is_file(), f"{platform.name}: {path}"

    def test_extravars_are_what_the_role_declares(self, platform: Platform) -> None:
        configs = _configurations(platform)
        assert configs, f"{platform.name} supports no configuration"
        options = _spec(platform, "main")
        for config in configs:
            _built(platform, config)
            variables = platform.extravars(config)
            assert variables["raidsweep_platform"] == platform.name
            _check_vars(variables, options, f"{platform.name} {config.key}")

    def test_teardown_vars_are_what_the_role_declares(self, platform: Platform) -> None:
        variables = platform.teardown_extravars()
        assert variables["raidsweep_platform"] == platform.name
        _check_vars(variables, _spec(platform, "teardown"), f"{platform.name} teardown")

    def test_staying_costs_no_more_than_moving(self, platform: Platform) -> None:
        configs = _configurations(platform)
        first = configs[0]
        assert platform.reconfiguration_time(None, first) >= 0
        for config in configs[1:]:
            moving = platform.reconfiguration_time(first, config)
            assert moving >= 0
            assert platform.reconfiguration_time(config, config) <= moving

    def test_check_and_hardware_answers(self, platform: Platform) -> None:
        matrix = Matrix(
            patterns=["randread"], block_sizes=["4k"], concurrency=["1x1"], working_set="16m"
        )
        lines = platform.plan_lines(matrix)
        assert isinstance(lines, list) and all(isinstance(x, str) for x in lines)
        facts = platform.hardware()
        assert set(facts) <= {"media", "drive_gb", "raid_groups", "rebuild_mib_s"}
        assert platform.run_time(matrix) > 0
