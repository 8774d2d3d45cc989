"""The vsan role and its vsan_policy module against vcsim, govmomi's vSphere API simulator.

Every play is real Ansible through ansible-runner; every fact is read back from vcsim with
pyvmomi independently of the module (SPBM for policies, the PropertyCollector for
snapshots). vcsim keeps policies and snapshots but not a disk's policy or the cluster's
deduplication and compression, so those are checked as far as vcsim can show them.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sweeper.ansible import PlayResult, run_playbook
from tests.support.vcsim import Observer, Vcsim, running_vcsim, vcsim_fixture, write_inventory

pytestmark = pytest.mark.integration

RAID5_STRIPED = {
    "raid_level": "raid5",
    "layout": "pool_stripe",
    "ranks": 4,
    "stripe_kib": 1024,
    "cache_policy": "wb-ra",
}
RAID5_CAPS = {
    "hostFailuresToTolerate": 1,
    "replicaPreference": "RAID-5/6 (Erasure Coding) - Capacity",
    "stripeWidth": 4,
    "proportionalCapacity": 0,
    "cacheReservation": 0,
}


#: one vcsim for the module's tests, which leave it as they found it
vcsim = vcsim_fixture(scope="module")


@pytest.fixture
def password_env(vcsim: Vcsim, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VSAN_PASSWORD", vcsim.password)


@pytest.fixture
def observe(vcsim: Vcsim) -> Iterator[Observer]:
    obs = Observer(vcsim)
    try:
        yield obs
    finally:
        obs.close()


def apply(inventory: Path, state_dir: Path, check: bool = False, **config: Any) -> PlayResult:
    return run_playbook(
        "reconfigure.yml",
        inventory,
        {"raidsweep_platform": "vsan", "vsan_state_dir": str(state_dir)} | config,
        check=check,
    )


def teardown(inventory: Path, state_dir: Path) -> PlayResult:
    return run_playbook(
        "teardown.yml",
        inventory,
        {"raidsweep_platform": "vsan", "vsan_state_dir": str(state_dir)},
    )


def test_apply_reapply_change_check_and_teardown(
    tmp_path: Path, vcsim: Vcsim, observe: Observer, password_env: None
) -> None:
    inv = write_inventory(tmp_path / "hosts.yml", vcsim)
    state = tmp_path / "state"
    plays: list[PlayResult] = []

    first = apply(inv, state, **RAID5_STRIPED, snapshots=True, data_reduction=True)
    plays.append(first)
    assert first.ok, first.error
    # The policy as vcsim's SPBM holds it, exactly.
    assert observe.policies()["raidsweep"] == RAID5_CAPS
    assert all(observe.snapshots(vm) == ["raidsweep-hold"] for vm in vcsim.vms)
    facts = first.facts
    assert facts["policy"]["rules"] == {
        "failures_to_tolerate": 1,
        "failure_tolerance_method": "RAID-5/6 (Erasure Coding)",
        "stripe_width": 4,
        "object_space_reservation": 0,
        "flash_read_cache_reservation": 0.0,
    }
    assert facts["policy_action"] == "created" and facts["pbm_path"] == "/pbm"
    # vcsim serves no capability metadata and reports no disk groups: neither is checked.
    assert facts["checked"] == {
        "usable_hosts": 6,
        "hosts_needed": 4,
        "capability_metadata": False,
        "all_flash": None,
    }
    # vcsim accepts dedup/compression and a disk's policy but reports neither back.
    assert facts["data_reduction"] == {"requested": True, "reported": None}
    assert [d["policy_id"] for d in facts["disks"]] == [None, None]
    assert facts["disk_policy_verified"] is False
    assert json.loads((state / "vsan.json").read_text()) == facts

    again = apply(inv, state, **RAID5_STRIPED, snapshots=True, data_reduction=True)
    plays.append(again)
    assert again.ok, again.error
    assert again.facts["policy"]["id"] == facts["policy"]["id"]  # not recreated
    assert not any("policy 'raidsweep':" in c for c in again.facts["changes"])
    assert not any("snapshot" in c for c in again.facts["changes"])
    assert all(observe.snapshots(vm) == ["raidsweep-hold"] for vm in vcsim.vms)

    # Check mode: the plan in vSphere's terms, and nothing changed on vcsim.
    plan = apply(
        inv,
        state,
        check=True,
        raid_level="raid1",
        layout="single_rank",
        cache_policy="wb-ra",
        snapshots=False,
    )
    plays.append(plan)
    assert plan.ok, plan.error
    assert '-        "failure_tolerance_method": "RAID-5/6 (Erasure Coding)"' in plan.stdout
    assert '+        "failure_tolerance_method": "RAID-1 (Mirroring)"' in plan.stdout
    assert observe.policies()["raidsweep"] == RAID5_CAPS
    assert all(observe.snapshots(vm) == ["raidsweep-hold"] for vm in vcsim.vms)
    assert json.loads((state / "vsan.json").read_text()) == again.facts

    # A new configuration: vcsim cannot update a policy, so it is deleted and created again
    # (the same name, new rules); the snapshot of the old layout is released.
    mirror = apply(
        inv,
        state,
        raid_level="raid1",
        layout="single_rank",
        cache_policy="wb-ra",
        snapshots=False,
        vsan_mirror_failures_to_tolerate=2,
    )
    plays.append(mirror)
    assert mirror.ok, mirror.error
    assert mirror.facts["policy_action"] == "recreated"
    policies = observe.policies()
    assert policies["raidsweep"] == {
        "hostFailuresToTolerate": 2,
        "replicaPreference": "RAID-1 (Mirroring) - Performance",
        "stripeWidth": 1,
        "proportionalCapacity": 0,
        "cacheReservation": 0,
    }
    assert "vSAN Default Storage Policy" in policies  # nothing else touched
    assert all(observe.snapshots(vm) == [] for vm in vcsim.vms)

    down = teardown(inv, state)
    plays.append(down)
    assert down.ok, down.error
    assert "raidsweep" not in observe.policies()
    assert not (state / "vsan.json").exists()
    down_again = teardown(inv, state)
    plays.append(down_again)
    assert down_again.ok and down_again.changed == 0

    for play in plays:
        assert vcsim.password not in play.stdout
        assert vcsim.password not in json.dumps(play.facts)


def _assert_untouched(observe: Observer, sim: Vcsim) -> None:
    assert "raidsweep" not in observe.policies()
    assert all(observe.snapshots(vm) == [] for vm in sim.vms)


def test_a_missing_worker_vm_is_named_and_nothing_changes(
    tmp_path: Path, vcsim: Vcsim, observe: Observer, password_env: None
) -> None:
    inv = write_inventory(tmp_path / "hosts.yml", vcsim, vms=(vcsim.vms[0], "worker-gone"))
    play = apply(inv, tmp_path / "state", **RAID5_STRIPED, snapshots=True)
    assert not play.ok
    assert "worker VM 'worker-gone' does not exist in vCenter 127.0.0.1" in play.error
    _assert_untouched(observe, vcsim)


def test_a_missing_test_disk_is_named(
    tmp_path: Path, vcsim: Vcsim, observe: Observer, password_env: None
) -> None:
    inv = write_inventory(tmp_path / "hosts.yml", vcsim)
    text = inv.read_text().replace(f"- {vcsim.disk}", "- Hard disk 9", 1)
    inv.write_text(text)
    play = apply(inv, tmp_path / "state", **RAID5_STRIPED, snapshots=True)
    assert not play.ok
    assert f"has no disk 'Hard disk 9' (it has: {vcsim.disk})" in play.error
    _assert_untouched(observe, vcsim)


def test_a_refused_login_names_host_and_user_never_the_password(
    tmp_path: Path, vcsim: Vcsim, observe: Observer, monkeypatch: pytest.MonkeyPatch
) -> None:
    wrong = "Wr0ng-" + vcsim.password[::-1]
    monkeypatch.setenv("VSAN_PASSWORD", wrong)
    inv = write_inventory(tmp_path / "hosts.yml", vcsim)
    play = apply(inv, tmp_path / "state", **RAID5_STRIPED)
    assert not play.ok
    assert play.error == (
        f"vCenter 127.0.0.1:{vcsim.port} refused the login of user {vcsim.username!r}"
    )
    assert wrong not in play.stdout and vcsim.password not in play.stdout
    _assert_untouched(observe, vcsim)


def test_an_unreachable_vcenter_is_named(tmp_path: Path, vcsim: Vcsim, password_env: None) -> None:
    with socket.socket() as s:  # a port nothing listens on once closed
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    inv = write_inventory(tmp_path / "hosts.yml", vcsim, vsan_port=port)
    play = apply(inv, tmp_path / "state", **RAID5_STRIPED)
    assert not play.ok
    assert play.error.startswith(f"cannot reach vCenter 127.0.0.1:{port}: ")
    assert "refused" in play.error.lower()


def test_a_rule_the_cluster_does_not_offer_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # RAID-6 needs six hosts; this cluster has three.
    with running_vcsim(hosts=3) as small:
        monkeypatch.setenv("VSAN_PASSWORD", small.password)
        inv = write_inventory(tmp_path / "hosts.yml", small)
        play = apply(
            inv,
            tmp_path / "state",
            raid_level="raid6",
            layout="single_rank",
            cache_policy="wb-ra",
            snapshots=True,
        )
        assert not play.ok
        assert play.error == (
            "cluster 'DC0_C0' does not offer the rule 'Failure tolerance method' = "
            "RAID-5/6 (Erasure Coding) with failures to tolerate 2 (RAID-6): that needs 6 "
            "hosts, the cluster has 3 usable"
        )
        obs = Observer(small)
        try:
            _assert_untouched(obs, small)
        finally:
            obs.close()


def test_query_checks_every_policy_of_a_sweep_and_changes_nothing(
    tmp_path: Path, vcsim: Vcsim, observe: Observer, password_env: None
) -> None:
    """The preflight's query: each policy the sweep will ask for, checked against the
    cluster in one call; problems come back per policy, in order; nothing is made."""
    inv = write_inventory(tmp_path / "hosts.yml", vcsim)
    policies = [
        {"failure_tolerance_method": "RAID-5/6 (Erasure Coding)", "failures_to_tolerate": 2},
        {
            "failure_tolerance_method": "RAID-1 (Mirroring)",
            "failures_to_tolerate": 3,
            "stripe_width": 4,
        },
        {
            "failure_tolerance_method": "RAID-1 (Mirroring)",
            "failures_to_tolerate": 1,
            "stripe_width": 13,
        },
    ]
    play = apply(inv, tmp_path / "state", vsan_state="query", vsan_check_policies=policies)
    assert play.ok, play.error
    facts = play.facts
    assert facts["policy_problems"] == [
        [],  # RAID-6 needs 6 hosts: vcsim has 6
        [
            "cluster 'DC0_C0' does not offer the rule 'Failure tolerance method' = RAID-1 "
            "(Mirroring) with failures to tolerate 3 (RAID-1): that needs 7 hosts, the cluster "
            "has 6 usable"
        ],
        ["cluster 'DC0_C0': rule 'Number of disk stripes per object': 13 is outside 1..12"],
    ]
    assert facts["data_reduction_problems"] == []
    flash = facts["flash"]
    assert flash["architecture"] is None and flash["all_flash"] is None
    assert sorted(flash["hosts"]) == sorted(facts["usable_hosts"]) and len(flash["hosts"]) == 6
    assert set(flash["hosts"].values()) == {"no disk groups reported"}
    assert facts["capability_metadata"] is False
    assert facts["changes"] == [] and play.changed == 0
    _assert_untouched(observe, vcsim)


def test_the_password_can_come_from_ansible_vault(
    tmp_path: Path, vcsim: Vcsim, observe: Observer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("VSAN_PASSWORD", raising=False)
    monkeypatch.delenv("VMWARE_PASSWORD", raising=False)
    vault_pass = tmp_path / "vault-pass"
    vault_pass.write_text("raidsweep-vault-test\n")
    encrypted = subprocess.run(
        [
            str(Path(sys.executable).parent / "ansible-vault"),
            "encrypt_string",
            "--vault-password-file",
            str(vault_pass),
            "--name",
            "vsan_password",
            vcsim.password,
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    inv = write_inventory(tmp_path / "hosts.yml", vcsim)
    group_vars = tmp_path / "group_vars"
    group_vars.mkdir()
    (group_vars / "storage.yml").write_text("---\n" + encrypted)
    assert vcsim.password not in (group_vars / "storage.yml").read_text()
    monkeypatch.setenv("ANSIBLE_VAULT_PASSWORD_FILE", str(vault_pass))
    state = tmp_path / "state"
    play = apply(inv, state, **RAID5_STRIPED)
    assert play.ok, play.error
    assert observe.policies()["raidsweep"] == RAID5_CAPS
    assert vcsim.password not in play.stdout
    assert teardown(inv, state).ok
