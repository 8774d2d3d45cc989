"""The local target's lock identity is what the kernel says the target is, not its name.

Two names of one storage are one lock: a hard link and a symlink of a file, the file through
a bind mount of its folder, a loop device and the file behind it, a loop device over another
block device, a partition and its disk. Real files, real mounts, real loop devices (root and
util-linux; each unmounted or detached after); the identity is the platform's own
(``LocalPlatform.target_identity``), and the locks taken from it are real ``flock``s.
"""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from sweeper.locking import LockHeld, hold, holders, lock_record, target_locks
from tests.support.devices import bind_mount, loop_over
from tests.support.locks import local_identity
from tests.support.paths import ROOT

ROOT_ONLY = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("losetup") is None or shutil.which("mount") is None,
    reason="needs root, losetup and mount",
)


def _dev(path: Path | str) -> str:
    rdev = os.stat(path).st_rdev
    return f"local:dev:{os.major(rdev)}:{os.minor(rdev)}"


def _inode(path: Path | str) -> str:
    st = os.stat(path)
    return f"local:inode:{os.major(st.st_dev)}:{os.minor(st.st_dev)}:{st.st_ino}"


def _file(path: Path, size_mib: int = 8) -> Path:
    with open(path, "wb") as fh:
        fh.truncate(size_mib * 1024**2)
    return path


def _refused(first: set[str], second: set[str], tmp_path: Path, monkeypatch) -> LockHeld:
    """The refusal a sweep on ``second`` gets while one on ``first`` holds its locks."""
    monkeypatch.setenv("RAIDSWEEP_LOCK_DIR", str(tmp_path / "locks"))
    with hold(target_locks(sorted(first)), lock_record("raidsweep run first", sweep="first")):
        found = holders(target_locks(sorted(second)))
    assert found, (first, second)
    return found[0]


# --- files ----------------------------------------------------------------------------------


def test_a_hard_link_is_the_same_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = _file(tmp_path / "target.img")
    hard = tmp_path / "hard.img"
    os.link(target, hard)
    a, b = local_identity(target, tmp_path / "a"), local_identity(hard, tmp_path / "b")
    assert _inode(target) in a & b
    held = _refused(a, b, tmp_path, monkeypatch)
    assert f"in use by pid {os.getpid()}" in str(held) and "raidsweep run first" in str(held)
    # Another file (another inode) in the same folder is other storage.
    other = _file(tmp_path / "other.img")
    assert not local_identity(other, tmp_path / "c") & a


def test_a_symlink_is_the_same_file(tmp_path: Path) -> None:
    target = _file(tmp_path / "target.img")
    link = tmp_path / "link.img"
    link.symlink_to(target)
    a, b = local_identity(target, tmp_path / "a"), local_identity(link, tmp_path / "b")
    assert a == b and {f"local:path:{target}", _inode(target)} <= a


def test_a_file_yet_to_be_made_is_named_by_its_real_path(tmp_path: Path) -> None:
    target = tmp_path / "t.img"
    link = tmp_path / "link.img"
    link.symlink_to(target)
    a, b = local_identity(target, tmp_path / "a"), local_identity(link, tmp_path / "b")
    assert a == b and f"local:path:{target}" in a
    assert not a & local_identity(tmp_path / "o.img", tmp_path / "c")


def test_identity_is_the_same_in_another_process(tmp_path: Path) -> None:
    target = _file(tmp_path / "target.img")
    hard = tmp_path / "hard.img"
    os.link(target, hard)
    script = (
        "import sys\n"
        "from sweeper.target_identity import local_identity\n"
        "print('\\n'.join(local_identity(sys.argv[1])))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script, str(hard)],
        check=True,
        capture_output=True,
        text=True,
        cwd=ROOT,
    ).stdout.split("\n")
    assert set(filter(None, out)) == local_identity(hard, tmp_path / "a")


def test_lock_files_are_named_by_hash_only(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("RAIDSWEEP_LOCK_DIR", str(tmp_path / "locks"))
    weird = tmp_path / "a b" / ".." / "t\u00e9 x.img"
    (tmp_path / "a b").mkdir()
    _file(tmp_path / "t\u00e9 x.img")
    for path in target_locks(sorted(local_identity(weird, tmp_path / "s"))):
        assert path.parent == tmp_path / "locks"
        assert re.fullmatch(r"[0-9a-f]{32}\.lock", path.name), path


@ROOT_ONLY
def test_a_bind_mount_is_the_same_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "real"
    folder.mkdir()
    target = _file(folder / "target.img")
    with bind_mount(folder, tmp_path / "bound") as bound:
        seen = bound / "target.img"
        assert os.path.realpath(seen) != str(target)  # realpath alone cannot tell
        a, b = local_identity(target, tmp_path / "a"), local_identity(seen, tmp_path / "b")
        assert _inode(target) in a & b
        _refused(a, b, tmp_path, monkeypatch)


# --- block devices --------------------------------------------------------------------------


@ROOT_ONLY
def test_a_loop_device_is_its_backing_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = _file(tmp_path / "target.img")
    hard = tmp_path / "hard.img"
    os.link(target, hard)
    with loop_over(hard) as dev:  # attached by another name of the file
        loop = local_identity(dev, tmp_path / "a")
        assert _dev(dev) in loop
        assert _inode(target) in loop & local_identity(target, tmp_path / "b")
        held = _refused(local_identity(target, tmp_path / "c"), loop, tmp_path, monkeypatch)
        assert "raidsweep run first" in str(held)
        # Its node by another name (a by-id link, a node of its own) is the same device.
        node = tmp_path / "node"
        os.mknod(node, 0o600 | 0o060000, os.stat(dev).st_rdev)
        assert local_identity(node, tmp_path / "d") == loop
    assert not (local_identity(dev, tmp_path / "e") & local_identity(target, tmp_path / "f"))


@ROOT_ONLY
def test_a_loop_device_whose_file_was_removed_is_still_that_file(tmp_path: Path) -> None:
    target = _file(tmp_path / "target.img")
    kept = tmp_path / "kept.img"
    os.link(target, kept)
    want = _inode(target)
    with loop_over(target) as dev:
        target.unlink()  # the name the kernel recorded is gone; the inode lives on in kept
        assert want in local_identity(dev, tmp_path / "a") & local_identity(kept, tmp_path / "b")


@ROOT_ONLY
def test_a_loop_over_a_loop_reaches_the_file(tmp_path: Path) -> None:
    target = _file(tmp_path / "target.img")
    with loop_over(target) as lower, loop_over(lower) as upper:
        up = local_identity(upper, tmp_path / "a")
        assert {_dev(upper), _dev(lower), _inode(target)} <= up
        assert up & local_identity(target, tmp_path / "b")


def _mbr(path: Path) -> Path:
    """A file of 8 MiB with an MBR of one partition, sectors 2048 to 6143."""
    _file(path)
    table = bytearray(512)
    struct.pack_into("<B3sB3sII", table, 446, 0, b"\0\0\0", 0x83, b"\0\0\0", 2048, 4096)
    table[510:512] = b"\x55\xaa"
    with open(path, "r+b") as fh:
        fh.write(table)
    return path


@ROOT_ONLY
def test_a_partition_and_its_disk_overlap(tmp_path: Path, monkeypatch) -> None:
    target = _mbr(tmp_path / "disk.img")
    with loop_over(target, "--partscan") as dev:
        name = os.path.basename(dev)
        sys_part = Path("/sys/class/block") / name / f"{name}p1"
        if not (sys_part / "dev").exists():
            pytest.skip("the kernel did not read the partition table")
        major, minor = (sys_part / "dev").read_text().strip().split(":")
        node = tmp_path / "part"  # the partition's node, whatever /dev holds
        os.mknod(node, 0o600 | 0o060000, os.makedev(int(major), int(minor)))
        part = local_identity(node, tmp_path / "a")
        disk = local_identity(dev, tmp_path / "b")
        assert f"local:dev:{major}:{minor}" in part and _dev(dev) in part & disk
        assert _inode(target) in part  # and the file behind the disk
        _refused(disk, part, tmp_path, monkeypatch)
        _refused(part, disk, tmp_path, monkeypatch)


def _fake_sysfs(root: Path) -> Path:
    """A sysfs of a disk ``sdz`` (250:0) with a partition ``sdz1`` (250:1) and a
    device-mapper device ``dm-9`` (251:0) over it; ``root/dev/block`` as the kernel's."""
    block = root / "devices" / "block"
    disk, part, dm = block / "sdz", block / "sdz" / "sdz1", block / "dm-9"
    for place, number in ((disk, "250:0"), (part, "250:1"), (dm, "251:0")):
        place.mkdir(parents=True)
        (place / "dev").write_text(number + "\n")
    (part / "partition").write_text("1\n")
    (dm / "slaves").mkdir()
    (dm / "slaves" / "sdz1").symlink_to(part)
    (root / "dev" / "block").mkdir(parents=True)
    for number, place in (("250:0", disk), ("250:1", part), ("251:0", dm)):
        (root / "dev" / "block" / number).symlink_to(place)
    return root / "dev" / "block"


@ROOT_ONLY
def test_devices_beneath_by_sysfs(tmp_path: Path, monkeypatch) -> None:
    """A partition reaches its disk, a device-mapper device the devices beneath it (the
    kernel here may read no partition table: a sysfs laid out as the kernel's)."""
    from sweeper import target_identity as module

    monkeypatch.setattr(module, "SYS_DEV_BLOCK", _fake_sysfs(tmp_path / "sys"))
    nodes = {}
    for name, (major, minor) in {"sdz": (250, 0), "sdz1": (250, 1), "dm": (251, 0)}.items():
        nodes[name] = tmp_path / name
        os.mknod(nodes[name], 0o600 | 0o060000, os.makedev(major, minor))
    disk, part, dm = (local_identity(nodes[n], tmp_path / n) for n in ("sdz", "sdz1", "dm"))
    assert disk == {"local:dev:250:0"}
    assert part == {"local:dev:250:1", "local:dev:250:0"}
    assert dm == {"local:dev:251:0", "local:dev:250:1", "local:dev:250:0"}
    _refused(disk, part, tmp_path, monkeypatch)
    _refused(part, dm, tmp_path, monkeypatch)
