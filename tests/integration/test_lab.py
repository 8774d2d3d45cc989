"""`raidsweep lab`: a real Debian guest under QEMU with md, device-mapper, mdadm, LVM and fio, its
data disks by stable id, its Ansible inventory; the CLI's up, status, idempotent up, down, and
bad input refused before anything is made."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from sweeper.cli import app
from sweeper.lab import Lab, LabError
from sweeper.lab import image as labmod
from tests.support.cli import cli as raidsweep
from tests.support.lab import DISK_MIB, DISKS, clean, guest_state, record, watched
from tests.support.paths import BIN

pytestmark = pytest.mark.integration


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return raidsweep(*args, env=env, columns=200, timeout=400)


def exited(pid: int) -> bool:
    """Gone, or a zombie that the reaper has not collected yet (it holds nothing open)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def test_guest_has_md_device_mapper_and_the_tools(lab_vm: Lab) -> None:
    by_id = lab_vm.ssh("ls /dev/disk/by-id/").stdout.split()
    assert sorted(n for n in by_id if n.startswith("virtio-data")) == sorted(
        f"virtio-data{i}" for i in range(DISKS)
    )
    assert "virtio-root" in by_id
    # Each data disk is the size asked, and the root is not among them.
    sizes = lab_vm.ssh(
        ["blockdev", "--getsize64", *(f"/dev/disk/by-id/virtio-data{i}" for i in range(DISKS))]
    ).stdout.split()
    assert sizes == [str(DISK_MIB * 2**20)] * DISKS
    assert "Personalities" in lab_vm.ssh("cat /proc/mdstat").stdout
    personalities = lab_vm.ssh("cat /proc/mdstat").stdout.splitlines()[0]
    for level in ("raid0", "raid1", "raid10", "raid5", "raid6"):
        assert f"[{level}]" in personalities
    assert "Driver version" in lab_vm.ssh("dmsetup version").stdout
    assert "LVM version" in lab_vm.ssh("lvm version").stdout
    assert "mdadm" in lab_vm.ssh("mdadm --version").stderr  # mdadm prints it on stderr
    assert lab_vm.ssh("fio --version").stdout.startswith("fio-")
    loaded = lab_vm.ssh("cat /proc/modules").stdout
    for module in ("dm_cache", "dm_cache_smq", "dm_snapshot", "dm_mirror", "raid456"):
        assert f"{module} " in loaded
    tools = "cache_check wipefs blkid lsblk pgrep mkfs.ext4 python3"
    lab_vm.ssh(f"for t in {tools}; do command -v $t >/dev/null || {{ echo $t; exit 1; }}; done")


def test_the_guests_state_leaves_out_only_an_empty_md_device(lab_vm: Lab) -> None:
    """Opening /dev/mdN where no array has that number makes an empty md device that stays
    until an ioctl; udev probing the node just after a stop does this. It holds no disk, so the
    test disks read as unchanged. An array assembled on them reads as a change."""
    clean(lab_vm)
    before = guest_state(lab_vm)
    lab_vm.ssh("[ -e /dev/md120 ] || mknod /dev/md120 b 9 120; blkid -p /dev/md120; true")
    try:
        assert lab_vm.ssh("cat /sys/block/md120/md/array_state").stdout.strip() == "clear"
        assert guest_state(lab_vm) == before
        lab_vm.ssh(
            "mdadm --create /dev/md121 --run --level=1 --raid-devices=2 --assume-clean "
            "--metadata=1.2 /dev/vda /dev/vdb && udevadm settle"
        )
        after = guest_state(lab_vm)
        assert "md121 : active raid1" in after and after != before
    finally:
        lab_vm.ssh("mdadm --stop /dev/md120; rm -f /dev/md120", check=False)
        clean(lab_vm)
    assert guest_state(lab_vm) == before


def test_inventory_reaches_the_guest_with_ansible(lab_vm: Lab) -> None:
    text = lab_vm.inventory_path.read_text()
    assert text.startswith("# Written by `raidsweep lab up`")
    assert "# The lab's data disks" in text and "#   /dev/disk/by-id/virtio-data9" in text
    inventory = yaml.safe_load(text)
    host = inventory["all"]["children"]["storage"]["hosts"]["raidsweep-lab"]
    st = lab_vm.status()
    assert host["ansible_host"] == "127.0.0.1" and host["ansible_port"] == st.port
    assert host["ansible_user"] == "root" and host["ansible_pipelining"] is True
    assert Path(host["ansible_ssh_private_key_file"]).is_file()
    assert host["ansible_python_interpreter"] == "/usr/bin/python3"
    assert host["linux_md_devices"] == [f"/dev/disk/by-id/virtio-data{i}" for i in range(DISKS)]
    assert host["linux_md_devices"] == st.disks
    proc = subprocess.run(
        [str(BIN / "ansible"), "-i", str(lab_vm.inventory_path), "storage", "-m", "ping"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0 and '"ping": "pong"' in proc.stdout, proc.stdout + proc.stderr


def test_cli_up_status_again_down(tmp_path: Path) -> None:
    folder = tmp_path / "vm"
    with watched(folder):
        started = time.monotonic()
        size = ["--dir", str(folder), "--disks", "2", "--disk-size", "32M", "--memory", "512M"]
        up = cli("lab", "up", *size)
        record("raidsweep lab up (2 disks of 32 MiB)", time.monotonic() - started)
        assert up.returncode == 0, up.stdout + up.stderr
        st = Lab(folder).status()
        assert st.running and st.port and len(st.disks) == 2
        assert f"-p {st.port} root@127.0.0.1" in up.stdout
        assert "/dev/disk/by-id/virtio-data1" in up.stdout
        assert f"inventory: {folder / 'hosts.yml'}" in up.stdout
        guest = Lab(folder).ssh("ls /dev/disk/by-id/; blockdev --getsize64 /dev/vda").stdout
        assert "virtio-data0" in guest and "virtio-data1" in guest
        assert "virtio-data2" not in guest and str(32 * 2**20) in guest
        status = cli("lab", "status", "--dir", str(folder))
        assert status.returncode == 0 and "running" in status.stdout
        assert f"QEMU pid {st.pid}" in status.stdout
        # up again: the same lab, untouched, at once
        again = cli("lab", "up", *size)
        assert again.returncode == 0 and "already running" in again.stdout
        assert Lab(folder).status().pid == st.pid
        # another shape while it runs: refused, the lab untouched
        other = cli("lab", "up", "--dir", str(folder), "--disks", "3")
        assert other.returncode == 2 and "already runs with 2 disk(s)" in other.stderr
        assert Lab(folder).status().pid == st.pid
        started = time.monotonic()
        down = cli("lab", "down", "--dir", str(folder))
        record("raidsweep lab down", time.monotonic() - started)
        assert down.returncode == 0 and "stopped" in down.stdout
        assert exited(st.pid)
        assert sorted(p.name for p in folder.iterdir()) == ["console.log", "qemu.log"]
        status = cli("lab", "status", "--dir", str(folder))
        assert status.returncode == 0 and "stopped" in status.stdout
        down = cli("lab", "down", "--dir", str(folder))
        assert down.returncode == 0 and "no lab running" in down.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--disks", "0"], "--disks: 0 is not between 1 and 24"),
        (["--disks", "25"], "--disks: 25 is not between 1 and 24"),
        (["--disk-size", "12q"], "--disk-size: '12q' is not a size"),
        (["--disk-size", "4M"], "--disk-size: 4 MiB is less than 8 MiB"),
        (["--disk-size", "1000k"], "--disk-size: '1000k' is not a whole number of MiB"),
        (["--memory", "lots"], "--memory: 'lots' is not a size"),
        (["--memory", "256M"], "--memory: 256 MiB is less than 512 MiB"),
    ],
)
def test_bad_input_exits_2_and_makes_nothing(tmp_path: Path, args: list[str], message: str) -> None:
    folder = tmp_path / "vm"
    result = CliRunner().invoke(app, ["lab", "up", "--dir", str(folder), *args])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert not folder.exists()


def test_missing_qemu_names_the_package(tmp_path: Path) -> None:
    folder = tmp_path / "vm"
    empty = tmp_path / "bin"
    empty.mkdir()
    result = cli("lab", "up", "--dir", str(folder), env={"PATH": str(empty)})
    assert result.returncode == 1
    assert "qemu-system-x86_64" in result.stderr and "qemu-system-x86 " in result.stderr
    assert "qemu-utils" in result.stderr and "openssh-client" in result.stderr
    assert not folder.exists()


def test_no_answer_in_time_kills_the_vm_and_shows_the_console(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lab = Lab(tmp_path / "vm")
    wait_ready = Lab._wait_ready

    def give_up_once_the_kernel_has_begun(self: Lab, disks: int, deadline: float) -> None:
        # The timeout runs out on a condition, not after a fixed few seconds (a busy machine
        # may not have printed a line by then): once the console shows the kernel's first
        # lines, and long before SSH could answer, the deadline is now.
        limit = time.monotonic() + 300
        while self.console_log.stat().st_size == 0 and time.monotonic() < limit:
            time.sleep(0.2)
        wait_ready(self, disks, time.monotonic())

    monkeypatch.setattr(Lab, "_wait_ready", give_up_once_the_kernel_has_begun)
    with pytest.raises(LabError) as caught:
        lab.up(disks=1, disk_mib=8, memory_mib=512, timeout_s=6)
    message = str(caught.value)
    assert "did not answer on SSH" in message and "console" in message
    # The console's last lines, as they were when it gave up (the kernel had begun by then).
    shown = message.split(":\n", 1)[1].splitlines()
    console = lab.console_log.read_text(errors="replace").replace("\r", "")
    assert shown and all(line in console for line in shown)
    assert not lab.status().running
    assert sorted(p.name for p in lab.folder.iterdir()) == ["console.log", "qemu.log"]


def test_the_image_key_follows_the_recipe(monkeypatch: pytest.MonkeyPatch) -> None:
    key = labmod.recipe_key()
    assert labmod.image_dir().name == f"image-{key}"
    monkeypatch.setattr(labmod, "PACKAGES", (*labmod.PACKAGES, "strace"))
    assert labmod.recipe_key() != key
    monkeypatch.undo()
    files = dict(labmod.TREE_FILES) | {"etc/hostname": "another\n"}
    monkeypatch.setattr(labmod, "TREE_FILES", files)
    assert labmod.recipe_key() != key
    monkeypatch.undo()
    assert labmod.recipe_key() == key


def test_building_as_non_root_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAIDSWEEP_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(labmod.os, "geteuid", lambda: 1000)
    with pytest.raises(LabError, match=r"building it needs root \(debootstrap\)"):
        labmod.ensure_image()
    assert not (tmp_path / "cache" / "lab").exists()


def test_the_mirror_comes_from_apts_own_sources(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RAIDSWEEP_LAB_MIRROR", raising=False)
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "sources.list.d" / "debian.sources").write_text(
        "Types: deb\nURIs: http://security.example/debian-security\n"
        "Suites: bookworm-security\nComponents: main\n\n"
        "# a comment\nTypes: deb deb-src\nURIs: http://mirror.example/debian\n"
        "Suites: bookworm bookworm-updates\nComponents: main\n"
    )
    assert labmod.debian_mirror(tmp_path) == "http://mirror.example/debian"
    (tmp_path / "sources.list.d" / "debian.sources").unlink()
    (tmp_path / "sources.list").write_text(
        "deb http://security.example/ bookworm-security main\n"
        "deb [arch=amd64] http://old.example/debian bookworm main contrib\n"
    )
    assert labmod.debian_mirror(tmp_path) == "http://old.example/debian"
    (tmp_path / "sources.list").write_text("")
    with pytest.raises(LabError, match="RAIDSWEEP_LAB_MIRROR"):
        labmod.debian_mirror(tmp_path)
