"""A sweep through `raidsweep run` on the vsan platform: vcsim for the policy side, the
simulated array's model for the load (vcsim's VMs cannot run fio).

What existed on vcsim during each configuration is what the configuration's record holds
(the module reads it back after applying) and what its runs were answered in.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from sweeper.configuration import Configuration
from sweeper.store import ParquetStore
from tests.support.cli import cli
from tests.support.specs import vsan_spec as _spec
from tests.support.vcsim import Observer, Vcsim, running_vcsim, write_inventory

pytestmark = pytest.mark.integration

#: raidsweep's configuration -> the vSAN capabilities the policy must hold
REPLICA = {"raid1": "RAID-1 (Mirroring) - Performance"}
EC = "RAID-5/6 (Erasure Coding) - Capacity"


def expected_caps(config: Configuration) -> dict[str, Any]:
    return {
        "hostFailuresToTolerate": {"raid1": 1, "raid5": 1, "raid6": 2}[config.raid_level],
        "replicaPreference": REPLICA.get(config.raid_level, EC),
        "stripeWidth": config.ranks if config.layout == "pool_stripe" else 1,
        "proportionalCapacity": 0,
        "cacheReservation": 0,
    }


def _raidsweep(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return cli(*args, env=env)


def _all_text(store_dir: Path) -> str:
    """Everything the store holds, as text: raw bytes of every file, and every Parquet
    column decoded (compression would hide a string from a byte grep)."""
    parts = []
    for path in sorted(store_dir.rglob("*")):
        if not path.is_file():
            continue
        parts.append(path.read_bytes().decode("latin-1"))
        if path.suffix == ".parquet":
            parts.append(json.dumps(pq.read_table(path).to_pylist(), default=str))
    return "\n".join(parts)


def test_sweep_applies_each_policy_and_runs_in_what_vcenter_read_back(
    tmp_path: Path, vcsim: Vcsim
) -> None:
    env = {"VSAN_PASSWORD": vcsim.password}
    inventory = write_inventory(tmp_path / "hosts.yml", vcsim)
    spec = _spec(tmp_path, inventory)
    store_dir = tmp_path / "store"
    observe = Observer(vcsim)
    outputs: list[str] = []
    try:
        # --check: the plan, from vCenter's own view, and nothing changed there.
        check = _raidsweep("run", str(spec), "--store", str(store_dir), "--check", env=env)
        outputs += [check.stdout, check.stderr]
        assert check.returncode == 0, check.stderr
        assert "creates or updates storage policy 'raidsweep'" in check.stdout
        assert f"DC0_C0_RP0_VM0 {vcsim.disk}" in check.stdout
        assert (
            "vCenter reports no vSAN disk groups, so whether the cluster is all-flash (which "
            "erasure coding and deduplication need) is not checked"
        ) in " ".join(check.stdout.split())
        assert "nothing was changed (--check)" in check.stdout
        assert "raidsweep" not in observe.policies()

        started = time.monotonic()
        run = _raidsweep("run", str(spec), "--store", str(store_dir), "-q", env=env)
        sweep_s = time.monotonic() - started
        outputs += [run.stdout, run.stderr]
        assert run.returncode == 0, run.stdout + run.stderr
        print(f"vcsim started in {vcsim.start_s:.2f}s; 12 configurations swept in {sweep_s:.1f}s")

        store = ParquetStore(store_dir)
        configs = store.configurations("vsan-test").sort_values("started_at")
        assert len(configs) == 12 and set(configs["status"]) == {"successful"}
        policy_ids = set()
        for row in configs.to_dict("records"):
            config = Configuration.from_key(row["config_key"])
            facts = json.loads(row["facts"])
            # The policy that existed while this configuration was measured.
            assert facts["policy"]["name"] == "raidsweep"
            assert facts["policy"]["capabilities"] == expected_caps(config), row["config_key"]
            assert facts["policies"].count("raidsweep") == 1
            assert set(facts["snapshots"].values()) == {config.snapshots}
            assert [d["vm"] for d in facts["disks"]] == list(vcsim.vms)
            policy_ids.add(facts["policy"]["id"])
        # vcsim has no policy update: every change of rules was a delete and create.
        rules_changes = sum(
            1
            for a, b in zip(configs["config_key"], configs["config_key"][1:], strict=False)
            if a.replace("/snap", "") != b.replace("/snap", "")
        )
        assert len(policy_ids) == rules_changes + 1

        runs = store.runs("vsan-test")
        assert len(runs) == 12 * 2 and set(runs["status"]) == {"ok"}
        for run_id, key in zip(runs["run_id"], runs["config_key"], strict=True):
            detail = store.run_detail(run_id) or {}
            state = json.loads(detail["disclosure"])["array_state"]
            # The model answered in the configuration vCenter read back, which is this one.
            params = {
                k: state[k]
                for k in ("raid_level", "layout", "cache_policy", "snapshots", "data_reduction")
            }
            if state["layout"] != "single_rank":
                params |= {"ranks": state["ranks"], "stripe_kib": state["stripe_kib"]}
            assert Configuration.from_params(params).key == key
            assert state["vsan"]["policy"]["capabilities"] == expected_caps(
                Configuration.from_key(key)
            )

        # On vcsim now: the last configuration's policy and snapshots.
        last = Configuration.from_key(configs["config_key"].iloc[-1])
        assert observe.policies()["raidsweep"] == expected_caps(last)
        held = ["raidsweep-hold"] if last.snapshots else []
        assert all(observe.snapshots(vm) == held for vm in vcsim.vms)

        disclose = _raidsweep("disclose", "vsan-test", "--store", str(store_dir), env=env)
        outputs += [disclose.stdout, disclose.stderr]
        assert disclose.returncode == 0, disclose.stderr
        recommend = _raidsweep("recommend", "vsan-test", "--store", str(store_dir), env=env)
        outputs += [recommend.stdout, recommend.stderr]
        assert recommend.returncode == 0, recommend.stderr

        # The password is nowhere: not in the store, its artifacts, or anything printed.
        assert vcsim.password not in _all_text(store_dir)
        assert not any(vcsim.password in text for text in outputs)
    finally:
        observe.close()


def test_a_missing_worker_vm_stops_the_sweep_before_anything_changes(
    tmp_path: Path, vcsim: Vcsim
) -> None:
    env = {"VSAN_PASSWORD": vcsim.password}
    inventory = write_inventory(tmp_path / "hosts.yml", vcsim, vms=("worker-gone",))
    spec = _spec(tmp_path, inventory)
    run = _raidsweep("run", str(spec), "--store", str(tmp_path / "store"), "-q", env=env)
    assert run.returncode == 2, run.stdout + run.stderr
    assert "worker VM 'worker-gone' does not exist in vCenter 127.0.0.1" in run.stderr
    assert vcsim.password not in run.stdout + run.stderr
    observe = Observer(vcsim)
    try:
        assert "raidsweep" not in observe.policies()
    finally:
        observe.close()


def test_a_refused_login_stops_the_sweep_with_status_2(tmp_path: Path, vcsim: Vcsim) -> None:
    wrong = "Wr0ng-" + vcsim.password[::-1]
    inventory = write_inventory(tmp_path / "hosts.yml", vcsim)
    spec = _spec(tmp_path, inventory)
    run = _raidsweep(
        "run", str(spec), "--store", str(tmp_path / "store"), "-q", env={"VSAN_PASSWORD": wrong}
    )
    assert run.returncode == 2, run.stdout + run.stderr
    assert f"refused the login of user {vcsim.username!r}" in run.stderr
    assert wrong not in run.stdout + run.stderr


def test_raid_levels_the_cluster_cannot_offer_are_refused_before_any_change(
    tmp_path: Path,
) -> None:
    """RAID-5 needs 4 usable hosts and RAID-6 6: on 3 hosts both are named before the first
    policy is made, exit status 2, and vCenter has no raidsweep policy."""
    with running_vcsim(hosts=3) as sim:
        spec = _spec(tmp_path, write_inventory(tmp_path / "hosts.yml", sim))
        out = _raidsweep(
            "run",
            str(spec),
            "--store",
            str(tmp_path / "store"),
            env={"VSAN_PASSWORD": sim.password, "COLUMNS": "250"},
        )
        text = " ".join(out.stderr.split())
        assert out.returncode == 2, out.stdout + out.stderr
        assert "raid_level raid5: cluster" in text and "(RAID-5): that needs 4 hosts" in text
        assert "(RAID-6): that needs 6 hosts, the cluster has 3 usable" in text
        assert "raid_level raid1" not in text
        assert "raidsweep" not in Observer(sim).policies()
        assert not (tmp_path / "store" / "vsan-test").exists()
        assert sim.password not in out.stdout + out.stderr
