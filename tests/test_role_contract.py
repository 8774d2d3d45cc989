"""The contract a role of the user's meets (platform: ansible), checked on the shipped
example roles for real arrays and on a role that breaks each rule."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from sweeper.platforms.role_contract import contract_problems, sets_target
from tests.support.paths import FIXTURES, ROOT
from tests.support.specs import problems_of

EXAMPLES = sorted(p for p in (ROOT / "examples" / "roles").iterdir() if p.is_dir())
MAPPINGS = {
    "netapp_eseries": {
        "raid_level": "eseries_raid_level",
        "layout": "eseries_layout",
        "cache_policy": "eseries_cache_policy",
    },
    "ibm_storage_virtualize": {"raid_level": "svc_raid_level", "layout": "svc_layout"},
    "dell_idrac_redfish": {"raid_level": "idrac_raid_level"},
    "netapp_ontap": {"raid_level": "ontap_raid_level"},
}


def test_every_example_role_is_mapped_here() -> None:
    assert {p.name for p in EXAMPLES} == set(MAPPINGS)


@pytest.mark.parametrize("role", EXAMPLES, ids=lambda p: p.name)
def test_the_example_roles_meet_the_contract(role: Path) -> None:
    assert sets_target(role)
    assert contract_problems(role, MAPPINGS[role.name], {}) == []


def test_each_broken_rule_is_named(tmp_path: Path) -> None:
    role = tmp_path / "role"
    shutil.copytree(FIXTURES / "roles" / "loop_array", role)
    good = {"raid_level": "loop_array_raid", "layout": "loop_array_layout"}
    assert contract_problems(role, good, {"raid_level": ["raid5"]}) == []
    assert contract_problems(role, good, {"raid_level": ["raid6"]}) == [
        (
            "variables.raid_level",
            "raid6 not among the choices the role declares for loop_array_raid (raid5, raid10)",
        )
    ]
    (problem,) = contract_problems(role, {"ranks": "loop_array_raid"}, {})
    assert problem == (
        "variables.ranks",
        "the role declares loop_array_raid of type str; ranks needs int or raw",
    )
    specs = role / "meta" / "argument_specs.yml"
    specs.write_text(specs.read_text().replace("  teardown:", "  remove:"))
    (problem,) = contract_problems(role, good, {})
    assert "declares no entry point 'teardown'" in problem[1]
    specs.write_text(": not yaml [")
    assert "line 1: not valid YAML" in contract_problems(role, good, {})[0][1]


def test_the_role_choices_bound_each_value_where_it_stands(tmp_path: Path) -> None:
    """A value per layout (stripe_kib: {pool_stripe: [...]}) outside the role's choices is
    named at its own place in the spec."""
    doc = yaml.safe_load((ROOT / "examples" / "ansible-eseries.yaml").read_text())
    doc["inventory"] = str(ROOT / "inventories" / "eseries-example" / "hosts.yml")
    doc["platform_options"]["role"] = str(ROOT / "examples" / "roles" / "netapp_eseries")
    doc["config_space"]["stripe_kib"] = {"pool_stripe": [128, 1024]}
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(doc))
    (problem,) = problems_of(path)
    assert "config_space.stripe_kib.pool_stripe[1]: 1024 is not supported by platform " in problem
    assert "(supported: 32, 64, 128, 256, 512)" in problem
