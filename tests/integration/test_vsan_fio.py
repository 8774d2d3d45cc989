"""The vsan platform with ``load: fio``: the policies on vcsim, fio in the worker VMs.

vcsim's VMs cannot run anything, so both of its worker VMs are reached, over SSH, in the lab
VM (sweeper.lab), each running fio on the same test disk at the same time: the run is both
workers' jobs together, each worker's share in the disclosure. The workers' disk is checked
before the sweep; a mounted one stops it with exit status 2 and nothing changed on vCenter.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from sweeper.lab import Lab
from sweeper.store import ParquetStore
from tests.support.cli import cli
from tests.support.specs import quick_fio_matrix
from tests.support.vcsim import Observer, running_vcsim, write_inventory

pytestmark = pytest.mark.integration
DEVICE = "/dev/disk/by-id/virtio-data0"


def _inventory(path: Path, sim, lab: Lab) -> Path:
    write_inventory(path, sim)
    doc = yaml.safe_load(path.read_text())
    lab_host = yaml.safe_load(lab.inventory_path.read_text())["all"]["children"]["storage"][
        "hosts"
    ]["raidsweep-lab"]
    ssh = {k: v for k, v in lab_host.items() if k.startswith("ansible_")}
    for worker in doc["all"]["children"]["workers"]["hosts"].values():
        worker.update(ssh)  # both of vcsim's VMs are reached in the lab VM
    path.write_text(yaml.safe_dump(doc))
    return path


def _spec(tmp_path: Path, inventory: Path) -> Path:
    spec = {
        "name": "vsan-fio",
        "platform": "vsan",
        "inventory": str(inventory),
        "platform_options": {"load": "fio", "worker_device": DEVICE},
        "config_space": {
            "raid_level": ["raid1", "raid5"],
            "layout": ["single_rank"],
            "cache_policy": ["wb-ra"],
        },
        "matrix": quick_fio_matrix("randread", "write", sync=["dsync"]),  # redo_log's writes
        "classes": ["redo_log"],
    }
    path = tmp_path / "vsan-fio.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


def _raidsweep(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return cli(*args, env=env, columns=250, timeout=900)


def test_fio_in_the_workers_under_each_policy(tmp_path: Path, lab_vm: Lab) -> None:
    lab_vm.ssh(f"wipefs -a -q {DEVICE}; umount /mnt 2>/dev/null; true")
    with running_vcsim(hosts=6) as sim:
        env = {"VSAN_PASSWORD": sim.password}
        spec = _spec(tmp_path, _inventory(tmp_path / "hosts.yml", sim, lab_vm))
        store_dir = tmp_path / "store"
        observe = Observer(sim)

        # A worker's test disk in use: refused before anything changes on vCenter.
        lab_vm.ssh(f"mkfs.ext4 -q {DEVICE} && mount {DEVICE} /mnt")
        refused = _raidsweep("run", str(spec), "--store", str(store_dir), env=env)
        text = " ".join(refused.stderr.split())
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert f"worker DC0_C0_RP0_VM0: {DEVICE} mounted on /mnt" in text
        assert "carries a ext4 filesystem" in text
        assert "raidsweep" not in observe.policies()
        assert not (store_dir / "vsan-fio").exists()
        lab_vm.ssh(f"umount /mnt && wipefs -a -q {DEVICE}")

        check = _raidsweep("run", str(spec), "--store", str(store_dir), "--check", env=env)
        assert check.returncode == 0, check.stderr
        assert f"fio writes to {DEVICE} in every worker VM (DC0_C0_RP0_VM0, DC0_C0_RP0_VM1)" in (
            " ".join(check.stdout.split())
        )
        run = _raidsweep("run", str(spec), "--store", str(store_dir), "-q", env=env)
        assert run.returncode == 0, run.stdout + run.stderr
        assert sim.password not in run.stdout + run.stderr

    store = ParquetStore(store_dir)
    configs = store.configurations("vsan-fio")
    assert len(configs) == 2 and set(configs["status"]) == {"successful"}
    for row in configs.to_dict("records"):
        facts = json.loads(row["facts"])
        method = facts["policy"]["rules"]["failure_tolerance_method"]
        assert method.startswith("RAID-1" if row["raid_level"] == "raid1" else "RAID-5/6")
    runs = store.runs("vsan-fio")
    assert len(runs) == 4 and set(runs["status"]) == {"ok"}
    assert set(runs["tool_version"]) == {"fio-3.33"}
    for row in runs.to_dict("records"):
        detail = store.run_detail(row["run_id"])
        assert detail is not None
        shares = json.loads(detail["disclosure"])["load_hosts_results"]
        assert set(shares) == {"DC0_C0_RP0_VM0", "DC0_C0_RP0_VM1"}
        direction = "read" if row["cell_key"].startswith("randread") else "write"
        # the run is both workers' I/O together, over the longer of their runtimes (fio's
        # group rate): their own rates add up to it within the runtimes' difference (tens of
        # milliseconds of a 2 s run in the emulated guest: 0.6% measured)
        total = sum(s[direction]["iops"] for s in shares.values())
        assert row["iops"] == pytest.approx(total, rel=0.03)
        assert all(s[direction]["iops"] > 0 for s in shares.values())
