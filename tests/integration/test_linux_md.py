"""The linux_md platform against a real kernel: md and LVM in the lab VM (sweeper.lab).

- Safe mode: every refusal (not a stable id, root disk, mounted, holders, filesystem,
  partition table, RAID and LVM signatures) fails before any change, names the device and
  the reason, exits 2 and changes nothing in the guest; a device marked wipeable is accepted.
- A real sweep through ``raidsweep run``: RAID 5/10 × single_rank/host_stripe/pool_stripe (RAID 0
  planned, RAID 6 applied),
  each configuration verified from the guest's own view (sysfs, ``mdadm --detail``, ``lvs``)
  as recorded with it, the results in the store, devices outside the allow-list untouched.
- ``raidsweep plan`` changes nothing; a second apply of a configuration changes nothing;
  ``raidsweep teardown`` leaves the disks clean, and a second teardown has nothing to do.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from sweeper.ansible import run_playbook
from sweeper.configuration import Configuration
from sweeper.lab import Lab
from sweeper.platforms.linux_md import LinuxMdPlatform
from sweeper.store import ParquetStore
from tests.support.campaign import FIGURES
from tests.support.cli import cli as raidsweep
from tests.support.lab import clean, guest_state
from tests.support.paths import EXAMPLES
from tests.support.specs import quick_fio_matrix

pytestmark = pytest.mark.integration
BY_ID = "/dev/disk/by-id/virtio-data{}"
ALLOW = [BY_ID.format(i) for i in range(8)]  # data8 and data9 stay outside the allow-list
LEVEL_MEMBERS = {"raid0": 4, "raid5": 4, "raid6": 4, "raid10": 4, "raid1": 2}

#: an MBR with one partition, written without fdisk (the lab has none)
MBR = (
    "python3 -c \"import struct; f = open('/dev/vda', 'r+b'); f.seek(446); "
    "f.write(bytes([0, 0, 0, 0, 0x83, 0, 0, 0]) + struct.pack('<II', 2048, 4096)); "
    "f.seek(510); f.write(b'\\x55\\xaa'); f.close()\" && udevadm settle && "
    # udev may still be probing the disk after the last wipe: the kernel then says busy
    "for i in 1 2 3 4 5; do blockdev --rereadpt /dev/vda && break; sleep 1; done"
)


#: The two tests that build arrays spend minutes of guest time under TCG; a hung task is stopped
#: by Ansible's task timeout (the fixture below), so this bound is only for a guest that is slow throughout.
LAB_BUILD_TIMEOUT_S = 1200


@pytest.fixture(autouse=True)
def _task_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    """A task that hangs in the guest fails the play naming its task and host (Ansible's own
    task timeout) long before pytest's timeout would stop the test without a word."""
    monkeypatch.setenv("ANSIBLE_TASK_TIMEOUT", "300")


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return raidsweep(*args, env=env, columns=250, timeout=1800)


def inventory(lab: Lab, folder: Path, devices: list[str], wipeable: list[str] = ()) -> Path:
    doc = yaml.safe_load(lab.inventory_path.read_text())
    host = doc["all"]["children"]["storage"]["hosts"]["raidsweep-lab"]
    host["linux_md_devices"] = list(devices)
    host["linux_md_wipeable"] = list(wipeable)
    path = folder / "hosts.yml"
    path.write_text(yaml.safe_dump(doc))
    return path


def spec(folder: Path, inv: Path, name: str = "md-lab", **space: Any) -> Path:
    doc = {
        "name": name,
        "platform": "linux_md",
        "inventory": str(inv),
        "platform_options": {"rank_devices": 4, "chunk_kib": 64},
        "config_space": {
            "raid_level": ["raid0", "raid5", "raid6", "raid10"],
            "layout": ["single_rank", "host_stripe", "pool_stripe"],
            "ranks": [2],
            "stripe_kib": {"host_stripe": [64], "pool_stripe": [4096]},
            "cache_policy": ["wb-ra"],
        }
        | space,
        "matrix": quick_fio_matrix("write", extra_cells=["randread/4k/qd1x1"]),
        "classes": ["redo_log"],
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False))
    return path


REFUSALS = {
    # case: (guest set-up, allow-list, wipeable, what the refusal says)
    "not a stable id": ("true", ["/dev/vda", *ALLOW[1:]], [], "/dev/vda' is not a stable id"),
    "root disk": (
        "true",
        ["/dev/disk/by-id/virtio-root", *ALLOW[1:]],
        [],
        "virtio-root: /dev/vdk holds the root filesystem",
    ),
    "mounted": (
        "mkfs.ext4 -q /dev/vda && mount /dev/vda /mnt",
        ALLOW,
        [ALLOW[0]],
        "virtio-data0: /dev/vda is mounted on /mnt",
    ),
    "holders": (
        "mdadm --create /dev/md/other --run --homehost any --name other --level=1 "
        "--raid-devices=2 --assume-clean /dev/vda /dev/vdb",
        ALLOW,
        [],
        "virtio-data0: in use by /dev/md127 (holders), which is not raidsweep's",
    ),
    "filesystem": ("mkfs.ext4 -q /dev/vda", ALLOW, [], "virtio-data0: carries a ext4 signature"),
    "partition table": (MBR, ALLOW, [], "virtio-data0: carries a dos signature"),
    "RAID signature": (
        "mdadm --create /dev/md/other --run --homehost any --name other "
        "--level=1 --raid-devices=2 /dev/vda /dev/vdb && mdadm --stop "
        "/dev/md/other",
        ALLOW,
        [],
        "carries a linux_raid_member signature",
    ),
    "LVM signature": ("pvcreate -q /dev/vda", ALLOW, [], "virtio-data0: carries a LVM2_member"),
}


@pytest.mark.parametrize("case", list(REFUSALS))
def test_safe_mode_refuses_before_any_change(lab_vm: Lab, tmp_path: Path, case: str) -> None:
    setup, allow, wipeable, message = REFUSALS[case]
    clean(lab_vm)
    lab_vm.ssh(f"{setup} && udevadm settle")
    before = guest_state(lab_vm)
    store = tmp_path / "store"
    path = spec(tmp_path, inventory(lab_vm, tmp_path, allow, wipeable))
    # Every case through `raidsweep run`; `plan` takes the same preflight, so one case shows
    # that it refuses too (a refusal costs a play in the guest: seconds under TCG).
    commands = [["run", str(path)]] + ([["plan", str(path)]] if case == "mounted" else [])
    for command in commands:
        out = cli(*command, "--store", str(store))
        assert out.returncode == 2, (case, command, out.stdout, out.stderr)
        assert message in " ".join(out.stderr.split()), (case, out.stderr)
        assert "password" not in out.stderr
    assert guest_state(lab_vm) == before
    assert not (store / "md-lab").exists(), "nothing is written for a refused sweep"
    FIGURES.setdefault("destructive guard (linux_md)", []).append(f"refused: {case}")
    clean(lab_vm)


def test_role_refuses_without_the_preflight(lab_vm: Lab, tmp_path: Path) -> None:
    """The role's own guard, not only the sweeper's preflight: a mounted device is refused
    by the configuration play itself, and nothing changes."""
    clean(lab_vm)
    lab_vm.ssh("mkfs.ext4 -q /dev/vda && mount /dev/vda /mnt && udevadm settle")
    before = guest_state(lab_vm)
    inv = inventory(lab_vm, tmp_path, ALLOW, [ALLOW[0]])
    platform = LinuxMdPlatform({"rank_devices": 4}, tmp_path, inv)
    play = run_playbook(
        "reconfigure.yml",
        inv,
        platform.extravars(Configuration.from_key("raid5/single_rank/wb-ra")),
    )
    assert not play.ok
    assert "virtio-data0: /dev/vda is mounted on /mnt" in play.failure()
    assert guest_state(lab_vm) == before
    clean(lab_vm)


def test_wipeable_device_is_accepted(lab_vm: Lab, tmp_path: Path) -> None:
    clean(lab_vm)
    lab_vm.ssh("mkfs.ext4 -q /dev/vda && udevadm settle")
    before = guest_state(lab_vm)
    path = spec(tmp_path, inventory(lab_vm, tmp_path, ALLOW, [ALLOW[0]]))
    out = cli("run", str(path), "--check", "--store", str(tmp_path / "store"))
    assert out.returncode == 0, out.stderr
    assert "whatever those devices hold is destroyed" in " ".join(out.stdout.split())
    assert guest_state(lab_vm) == before
    clean(lab_vm)


def test_the_lab_example_passes_check(lab_vm: Lab, tmp_path: Path) -> None:
    """examples/lab/linux-md.yaml names the lab by ``inventory: lab``: the running lab's."""
    clean(lab_vm)
    cache = tmp_path / "cache"
    (cache / "lab").mkdir(parents=True)
    (cache / "lab" / "vm").symlink_to(lab_vm.folder)  # the lab's default place
    example = EXAMPLES / "lab" / "linux-md.yaml"
    before = guest_state(lab_vm)
    out = cli(
        "run",
        str(example),
        "--check",
        "--store",
        str(tmp_path / "s"),
        env={"RAIDSWEEP_CACHE": str(cache)},
    )
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert "24 configuration(s)" in text and "nothing was changed (--check)" in text
    assert "/dev/disk/by-id/virtio-data7 (/dev/vdh)" in text
    assert guest_state(lab_vm) == before and not (tmp_path / "s").exists()


def _check_configuration(config: Configuration, facts: dict[str, Any]) -> None:
    """What the guest reported while the configuration stood is that configuration."""
    ranks = config.rank_count
    arrays = sorted(facts["arrays"], key=lambda a: a["name"])
    assert [a["name"] for a in arrays] == [f"raidsweep-r{i}" for i in range(ranks)]
    for i, a in enumerate(arrays):
        assert a["level"] == config.raid_level
        members = LEVEL_MEMBERS[config.raid_level]
        assert len(a["members"]) == members
        assert a["chunk_kib"] == 64
        assert f"Raid Level : {config.raid_level}" in a["detail"]
        assert f"Raid Devices : {members}" in a["detail"]
        # rank i takes the allow-list's devices i*4 .. i*4+3 (vda.. in the lab)
        assert a["members"] == [f"vd{chr(ord('a') + i * members + j)}" for j in range(members)]
    volume = next(lv for lv in facts["lvs"] if lv["lv_name"] == "volume")
    if config.layout == "single_rank":
        assert int(volume["stripes"]) == 1
    else:
        assert int(volume["stripes"]) == ranks
        assert int(volume["stripe_size"]) == config.stripe_kib * 1024
    assert int(volume["lv_read_ahead"]) == 1024 * 1024
    assert facts["volume"] == "/dev/raidsweep/volume"


@pytest.mark.timeout(LAB_BUILD_TIMEOUT_S)
def test_sweep_plan_idempotence_and_teardown(lab_vm: Lab, tmp_path: Path) -> None:
    clean(lab_vm)
    # Outside the allow-list: a filesystem that must survive everything below.
    lab_vm.ssh("mkfs.ext4 -q -L keepme /dev/vdi && udevadm settle")
    inv = inventory(lab_vm, tmp_path, ALLOW)
    path = spec(tmp_path, inv)
    store_dir = tmp_path / "store"
    # The sweep builds parity and mirror arrays in every layout; RAID 0 is planned above and
    # RAID 6 applied below, so every level meets the kernel while the lab's time stays short.
    sweep = spec(tmp_path / "sweep", inv, raid_level=["raid5", "raid10"])

    # raidsweep plan: what each configuration would do, and nothing done.
    before = guest_state(lab_vm)
    out = cli("plan", str(path), "--store", str(store_dir), "--limit", "2")
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert "raid0/single_rank/wb-ra create md array raidsweep-r0: raid0" in text
    assert "create volume raidsweep/volume: 50% of the group, striped over 2 PVs" in text
    assert guest_state(lab_vm) == before

    # The sweep itself.
    out = cli("run", str(sweep), "--store", str(store_dir), "-q")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "6 configuration(s) completed, 12 run(s) written" in " ".join(out.stdout.split())
    store = ParquetStore(store_dir)
    configs = store.configurations("md-lab")
    assert len(configs) == 6 and set(configs["status"]) == {"successful"}
    for _, row in configs.iterrows():
        _check_configuration(Configuration.from_key(row["config_key"]), json.loads(row["facts"]))
    runs = store.runs("md-lab")
    assert len(runs) == 12 and set(runs["status"]) == {"ok"}
    assert (runs["iops"] > 0).all()
    assert set(runs["tool_version"]) == {"fio-3.33"}
    FIGURES.setdefault("linux_md in the lab VM", []).append(
        f"sweep of 6 configurations × 2 cells: {len(runs)} runs stored; "
        f"array time {float(configs['reconfig_array_time_s'].sum()):.0f} s reconfiguring"
    )

    # A second apply of a configuration changes nothing (the cache knobs and a snapshot too).
    platform = LinuxMdPlatform({"rank_devices": 4, "chunk_kib": 64}, tmp_path, inv)
    config = Configuration.from_key("raid6/host_stripe/ranks2/stripe64k/wt-nora/snap")
    first = run_playbook("reconfigure.yml", inv, platform.extravars(config))
    assert first.ok, first.failure()
    assert first.changed > 0
    again = run_playbook("reconfigure.yml", inv, platform.extravars(config))
    assert again.ok, again.failure()
    assert again.changed == 0, again.stdout[-3000:]
    assert again.facts["plan"] == []
    # ... as the guest itself sees it
    detail = lab_vm.ssh("mdadm --detail /dev/md/raidsweep-r1").stdout
    assert "Raid Level : raid6" in detail and "Chunk Size : 64K" in detail
    lvs = lab_vm.ssh(
        "lvs --noheadings --units k --nosuffix -o lv_name,origin,stripes,stripe_size,"
        "lv_read_ahead raidsweep"
    ).stdout.split("\n")
    rows = {r.split()[0]: r.split() for r in lvs if r.strip()}
    assert rows["volume"][1:] == ["2", "64.00", "0"]
    assert rows["volume-hold"][1] == "volume"
    caches = lab_vm.ssh("cat /sys/block/vd[a-h]/cache_type").stdout.split("\n")
    assert {c for c in caches if c} == {"write through"}

    # Teardown: clean disks; the device outside the allow-list is as it was; again: nothing.
    out = cli("teardown", str(sweep), "--store", str(store_dir))
    assert out.returncode == 0, out.stderr
    assert "torn down" in out.stdout
    state = lab_vm.ssh(
        "cat /proc/mdstat; vgs --noheadings; for d in /dev/vd[a-h]; do wipefs --no-act $d; done"
    ).stdout
    assert "md12" not in state and "raidsweep" not in state
    assert "linux_raid_member" not in state and "LVM2_member" not in state
    assert lab_vm.ssh("blkid -o value -s LABEL /dev/vdi").stdout.strip() == "keepme"
    out = cli("teardown", str(sweep), "--store", str(store_dir))
    assert out.returncode == 0 and "nothing to remove" in out.stdout, out.stdout
    clean(lab_vm)


@pytest.mark.timeout(LAB_BUILD_TIMEOUT_S)
def test_lvmcache_modes_snapshot_and_teardown(lab_vm: Lab, tmp_path: Path) -> None:
    """With platform_options.lvmcache, wb/wt is a dm-cache's mode on the inventory's faster
    device: built, switched without rebuilding the volume, idempotent, and torn down."""
    clean(lab_vm)
    inv = inventory(lab_vm, tmp_path, ALLOW)
    doc = yaml.safe_load(inv.read_text())
    host = doc["all"]["children"]["storage"]["hosts"]["raidsweep-lab"]
    host["linux_md_cache_device"] = BY_ID.format(9)
    inv.write_text(yaml.safe_dump(doc))
    platform = LinuxMdPlatform(
        {"rank_devices": 4, "chunk_kib": 64, "lvmcache": True}, tmp_path, inv
    )

    def apply(key: str) -> Any:
        play = run_playbook("reconfigure.yml", inv, platform.extravars(Configuration.from_key(key)))
        assert play.ok, play.failure()
        return play

    def cache_view() -> dict[str, list[str]]:
        out = lab_vm.ssh(
            "lvs -a --noheadings -o lv_name,segtype,cache_mode,stripes,devices raidsweep"
        ).stdout
        return {r.split()[0].strip("[]"): r.split()[1:] for r in out.splitlines() if r.strip()}

    apply("raid10/host_stripe/ranks2/stripe64k/wb-ra")
    view = cache_view()
    assert view["volume"][:2] == ["cache", "writeback"]
    assert view["volume_corig"][:1] == ["striped"] and view["volume_corig"][1] == "2"
    assert "/dev/vdj" in " ".join(view["volume_cache_cpool_cdata"])  # on the cache device
    volume_uuid = lab_vm.ssh("lvs --noheadings -o lv_uuid raidsweep/volume").stdout
    play = apply("raid10/host_stripe/ranks2/stripe64k/wt-ra/snap")
    assert "switch the dm-cache of raidsweep/volume to writethrough" in play.facts["plan"]
    assert cache_view()["volume"][:2] == ["cache", "writethrough"]
    assert "volume-hold" in cache_view()
    # the same volume, only its cache switched
    assert lab_vm.ssh("lvs --noheadings -o lv_uuid raidsweep/volume").stdout == volume_uuid
    again = apply("raid10/host_stripe/ranks2/stripe64k/wt-ra/snap")
    assert again.changed == 0 and again.facts["plan"] == []
    play = run_playbook("teardown.yml", inv, platform.teardown_extravars())
    assert play.ok, play.failure()
    state = lab_vm.ssh(
        "cat /proc/mdstat; vgs --noheadings; dmsetup ls; "
        "for d in /dev/vd[a-h] /dev/vdj; do wipefs --no-act $d; done"
    ).stdout
    assert "md12" not in state and "raidsweep" not in state and "LVM2_member" not in state
    assert "linux_raid_member" not in state
    clean(lab_vm)
