"""The sim role as a scenario: apply, verify from the array's own view, apply again, clean up.

Every play here is real Ansible through ansible-runner against the project's inventory.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from sweeper.ansible import PlayResult, run_playbook
from tests.support.paths import ROOT

pytestmark = pytest.mark.integration
INVENTORY = ROOT / "inventories" / "sim" / "hosts.yml"

POOL = {
    "raid_level": "raid10",
    "layout": "pool_stripe",
    "ranks": 4,
    "stripe_kib": 1048576,
    "cache_policy": "wb-ra",
    "snapshots": True,
}


def _vars(state_dir: Path, **config: Any) -> dict[str, Any]:
    return {
        "raidsweep_platform": "sim",
        "sim_state_dir": str(state_dir),
        "sim_profile": "ds8800-like",
        **config,
    }


def _apply(state_dir: Path, check: bool = False, **config: Any) -> PlayResult:
    return run_playbook("reconfigure.yml", INVENTORY, _vars(state_dir, **config), check=check)


def _array(state_dir: Path) -> dict[str, Any] | None:
    """The array's own view: the state its management interface keeps."""
    path = state_dir / "array.json"
    return json.loads(path.read_text()) if path.exists() else None


def test_apply_verify_reapply_and_teardown(tmp_path: Path) -> None:
    state_dir = tmp_path / "array"
    first = _apply(state_dir, **POOL)
    assert first.ok, first.error
    assert first.changed == 1
    array = _array(state_dir)
    assert array is not None
    assert {k: array[k] for k in POOL} == POOL
    assert array["profile"] == "ds8800-like" and array["health"] == "optimal"
    assert array["data_reduction"] is False  # the role's default
    # The configuration's facts are what the array reports, not what was asked.
    assert first.facts == array

    again = _apply(state_dir, **POOL)
    assert again.ok and again.changed == 0
    assert _array(state_dir) == array

    down = run_playbook("teardown.yml", INVENTORY, _vars(state_dir))
    assert down.ok and down.changed == 1
    assert _array(state_dir) is None
    down_again = run_playbook("teardown.yml", INVENTORY, _vars(state_dir))
    assert down_again.ok and down_again.changed == 0


def test_check_mode_shows_the_change_and_writes_nothing(tmp_path: Path) -> None:
    state_dir = tmp_path / "array"
    assert _apply(state_dir, **POOL).ok
    before = (state_dir / "array.json").read_bytes()
    plan = _apply(state_dir, check=True, **(POOL | {"raid_level": "raid5"}))
    assert plan.ok and plan.changed == 1
    assert '-    "raid_level": "raid10"' in plan.stdout
    assert '+    "raid_level": "raid5"' in plan.stdout
    assert (state_dir / "array.json").read_bytes() == before
    # In check mode the facts stay those of the array as it is.
    assert plan.facts["raid_level"] == "raid10"


def test_single_rank_records_one_rank_and_no_stripe(tmp_path: Path) -> None:
    state_dir = tmp_path / "array"
    play = _apply(state_dir, raid_level="raid6", layout="single_rank", cache_policy="wt-ra")
    assert play.ok, play.error
    array = _array(state_dir)
    assert array is not None
    assert (array["ranks"], array["stripe_kib"]) == (1, None)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (POOL | {"raid_level": "raid50"}, "raid_level"),
        (POOL | {"ranks": None}, "needs ranks >= 2"),
        (POOL | {"layout": "scattered"}, "layout"),
    ],
)
def test_invalid_configuration_fails_and_changes_nothing(
    tmp_path: Path, config: dict[str, Any], message: str
) -> None:
    state_dir = tmp_path / "array"
    assert _apply(state_dir, **POOL).ok
    before = (state_dir / "array.json").read_bytes()
    play = _apply(state_dir, **config)
    assert not play.ok
    assert message in (play.error or "")
    assert (state_dir / "array.json").read_bytes() == before


def test_relative_state_dir_is_refused_before_anything_is_written() -> None:
    play = run_playbook("reconfigure.yml", INVENTORY, _vars(Path("relative-array"), **POOL))
    assert not play.ok
    assert "state_dir must be an absolute path" in (play.error or "")
    # ansible-playbook runs in the playbook directory: that is where it would have landed.
    assert not (ROOT / "playbooks" / "relative-array").exists()


def test_the_array_refuses_a_remote_connection(tmp_path: Path) -> None:
    # The simulated array lives beside the controller: a remote host would silently write
    # the state on the wrong machine, so the management interface refuses it.
    inventory = tmp_path / "hosts.yml"
    hosts = yaml.safe_load(INVENTORY.read_text())
    host = hosts["all"]["children"]["storage"]["hosts"]["sim-array"]
    host |= {"ansible_connection": "ssh", "ansible_host": "127.0.0.1", "ansible_port": 1}
    inventory.write_text(yaml.safe_dump(hosts))
    state_dir = tmp_path / "array"
    play = run_playbook("reconfigure.yml", inventory, _vars(state_dir, **POOL))
    assert not play.ok
    assert "needs ansible_connection: local, not 'ssh'" in (play.error or "")
    assert not state_dir.exists()
