"""A capture is never written to an observed device through a loop device: a file system on
a loop device over a file is written to the devices that file's file system is on (real
loop device, real ext4, real mount)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from sweeper.capture.placement import Unresolved, devices_beneath
from tests.support import devices


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("losetup") is None or shutil.which("mkfs.ext4") is None,
    reason="needs root, losetup and mkfs.ext4",
)
def test_a_file_system_on_a_loop_device_reaches_the_device_of_its_backing_file(
    tmp_path: Path,
) -> None:
    try:
        under_tmp = devices_beneath(str(tmp_path))
    except Unresolved as exc:
        pytest.skip(f"the folder's own devices cannot be told here: {exc}")
    if not under_tmp:
        pytest.skip("the test folder is on no block device (tmpfs)")
    with devices.loop_device(tmp_path / "fs.img", 32) as dev:
        subprocess.run(["mkfs.ext4", "-q", "-F", dev], check=True, capture_output=True)
        point = tmp_path / "mnt"
        point.mkdir()
        subprocess.run(["mount", dev, str(point)], check=True)
        try:
            found = devices_beneath(str(point))
        finally:
            subprocess.run(["umount", str(point)], check=True)
    assert os.path.basename(dev) in found
    assert under_tmp <= found, (under_tmp, found)
