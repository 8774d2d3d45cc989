"""A device or file that holds data someone uses is never written, however it is in use:
checks that fail closed, and uses that this mount table does not show.

Real loop devices (root, util-linux) over files made here, real filesystems (mkfs.ext4,
mkfs.btrfs), a real exclusive open; every refusal checked for its message and for the
device's bytes being as they were."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest

from sweeper.target import target_problems
from tests.support import devices
from tests.support.files import digest

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("losetup") is None or shutil.which("mkfs.ext4") is None,
    reason="needs root, losetup and mkfs.ext4",
)


def _problems(target: str, *, overwrite: bool = False) -> list[str]:
    found = target_problems(target, allow=[target], file_size=None, overwrite_signatures=overwrite)
    return [" ".join(msg.split()) for _, msg in found]


def _sh(*cmd: str) -> None:
    subprocess.run(cmd, check=True, capture_output=True)


def test_two_signatures_are_a_signature(tmp_path: Path) -> None:
    """ext4 over a leftover btrfs superblock: blkid finds both, prints nothing, exits 8 (it
    read as "no signature" and fio destroyed the filesystem)."""
    if shutil.which("mkfs.btrfs") is None:
        pytest.skip("needs mkfs.btrfs")
    image, btrfs = tmp_path / "d.img", tmp_path / "b.img"
    with open(btrfs, "wb") as fh:
        fh.truncate(128 * 1024**2)
    _sh("mkfs.btrfs", "-q", "-f", str(btrfs))
    with open(image, "wb") as fh:
        fh.truncate(64 * 1024**2)
    _sh("mkfs.ext4", "-q", "-F", str(image))
    with open(btrfs, "rb") as src, open(image, "r+b") as dst:  # btrfs's superblock at 64 KiB
        src.seek(65536)
        dst.seek(65536)
        dst.write(src.read(65536))
    with devices.loop_over(image) as dev:
        before = digest(image)
        problems = _problems(dev)
        assert any("carries a more than one (blkid: ambivalent" in p for p in problems), problems
        assert digest(image) == before
        assert _problems(dev, overwrite=True) == []


def test_without_blkid_a_device_is_not_taken_for_empty(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cron's PATH has no sbin; a PATH with no blkid at all, nor in sbin: refused, not
    written (it read as no signature)."""
    with devices.loop_device(tmp_path / "g.img", 32) as dev:
        _sh("mkfs.ext4", "-q", "-F", dev)
        with monkeypatch.context() as patch:
            patch.setenv("PATH", "/usr/bin:/bin")
            assert any("carries a ext4 signature" in p for p in _problems(dev))  # sbin searched
            patch.setattr("sweeper.target._SBIN", ())
            patch.setenv("PATH", str(tmp_path))
            problems = _problems(dev)
        assert any("cannot be told (blkid (util-linux) is not installed)" in p for p in problems), (
            problems
        )


def test_a_loop_device_over_the_file_another_mounted_one_is_over_is_refused(
    tmp_path: Path,
) -> None:
    """Two loop devices over one file, the first mounted: writing the second writes under
    the mount (it was written, the journal corrupt)."""
    image = tmp_path / "d.img"
    with devices.loop_device(image, 64) as first:
        _sh("mkfs.ext4", "-q", "-F", first)
        point = tmp_path / "mnt"
        point.mkdir()
        _sh("mount", first, str(point))
        try:
            with devices.loop_over(image) as second:
                before = digest(image)
                problems = _problems(second, overwrite=True)
                assert any(
                    f"shares its storage with {first} (mounted at {point})" in p for p in problems
                ), problems
                with devices.loop_over(first) as stacked:  # a loop over the mounted device
                    problems = _problems(stacked, overwrite=True)
                    assert any(f"shares its storage with {first}" in p for p in problems)
                assert digest(image) == before
        finally:
            _sh("umount", str(point))


def test_a_device_opened_exclusively_is_in_use(tmp_path: Path) -> None:
    """As mkfs or cryptsetup hold a device (O_EXCL), or a mount in another mount namespace:
    no mount table here shows it, the kernel's exclusive open does."""
    with devices.loop_device(tmp_path / "x.img", 32) as dev:
        assert _problems(dev, overwrite=True) == []
        holder = subprocess.Popen(
            [
                "python3",
                "-c",
                "import os, sys, time\n"
                "fd = os.open(sys.argv[1], os.O_RDWR | os.O_EXCL)\n"
                "print('held', flush=True)\n"
                "time.sleep(60)\n",
                dev,
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
            problems = _problems(dev, overwrite=True)
            assert any(
                "is in use: the kernel refuses to open it exclusively" in p for p in problems
            )
        finally:
            holder.kill()
            holder.wait()
        deadline = time.monotonic() + 5
        while _problems(dev, overwrite=True) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _problems(dev, overwrite=True) == []


def test_a_mount_in_another_mount_namespace_is_in_use(tmp_path: Path) -> None:
    if shutil.which("unshare") is None:
        pytest.skip("needs unshare")
    with devices.loop_device(tmp_path / "ns.img", 32) as dev:
        _sh("mkfs.ext4", "-q", "-F", dev)
        point = tmp_path / "mnt"
        point.mkdir()
        inside = subprocess.Popen(
            [
                "unshare",
                "-m",
                "--propagation",
                "private",
                "sh",
                "-c",
                f"mount {dev} {point} && echo mounted && sleep 60",
            ],
            stdout=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            assert inside.stdout is not None and inside.stdout.readline().strip() == "mounted"
            problems = _problems(dev, overwrite=True)
            assert any("is in use" in p for p in problems), problems
        finally:
            os.killpg(inside.pid, signal.SIGKILL)  # the namespace, and its mount, go with it
            inside.wait()
            time.sleep(0.5)
