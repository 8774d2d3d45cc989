"""``raidsweep run`` (and ``run --check``) never writes a file the user did not name in the
allow-list, even one of exactly ``file_size`` bytes: the backing file of a mounted ext4
filesystem (the audit's case, on a real loop device and mount) and a file of random data.
Each refusal exits 2 naming ``platform_options.allow`` and what holds the file, and leaves
the file (its hash), its folder and the store as they were. Allowed, the mounted image is
still refused while its loop device holds it. Mounts and loop devices are undone after.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import devices
from tests.support.cli import cli
from tests.support.files import digest
from tests.support.specs import local_spec, quick_fio_matrix

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("lock_dir")]
SIZE_MIB = 64
ROOT_ONLY = pytest.mark.skipif(
    os.geteuid() != 0 or not all(shutil.which(t) for t in ("losetup", "mount", "mkfs.ext4")),
    reason="needs root, losetup, mount and mkfs.ext4",
)


def _sh(*cmd: str) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()


def _spec(tmp_path: Path, options: dict[str, Any]) -> Path:
    matrix = quick_fio_matrix("randread", "write", runtime="1s")
    return local_spec(tmp_path, "guard", {"file_size": f"{SIZE_MIB}m"} | options, matrix)


def _refused(spec: Path, store: Path, *more: str) -> str:
    """``raidsweep run --check`` of ``spec``, then ``raidsweep run``: both exit 2, writing no
    store; their messages as one line (the check first: were it to pass, nothing is run)."""
    texts = []
    for args in (("--check",), ()):
        proc = cli("run", spec, "--store", store, "-q", *more, *args)
        assert proc.returncode == 2, proc.stdout + proc.stderr
        assert "Traceback" not in proc.stderr and "destroyed" not in proc.stdout
        assert not store.exists()
        texts.append(" ".join(proc.stderr.split()))
    assert texts[0] == texts[1]  # --check tells what run refuses, and why
    return texts[0]


@pytest.fixture
def mounted_image(tmp_path: Path) -> Iterator[tuple[Path, str, Path]]:
    """The audit's file: 64 MiB, ext4, on a loop device, mounted, a file written in it; then
    remounted read-only so that the filesystem itself writes nothing while we compare.
    Unmounted and detached after, whatever the test did."""
    (tmp_path / "data").mkdir()
    image = tmp_path / "data" / "mounted.img"
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    with devices.loop_device(image, SIZE_MIB) as dev:
        _sh("mkfs.ext4", "-q", "-F", dev)
        _sh("mount", dev, str(mnt))
        try:
            (mnt / "important.txt").write_text("data\n")
            _sh("mount", "-o", "remount,ro", str(mnt))
            yield image, dev, mnt
        finally:
            subprocess.run(["umount", str(mnt)], capture_output=True, check=False)


@ROOT_ONLY
def test_the_backing_file_of_a_mounted_filesystem_is_refused_and_untouched(
    tmp_path: Path, mounted_image: tuple[Path, str, Path]
) -> None:
    image, dev, mnt = mounted_image
    before = digest(image), sorted(os.listdir(image.parent))
    store = tmp_path / "s"
    holds = f"{image} is the backing file of loop device {dev} (mounted at {mnt})"
    # Not allowed: the user did not name it; and what holds it is named too.
    text = _refused(_spec(tmp_path, {"target": str(image)}), store)
    assert "platform_options.allow" in text
    assert f"{image} exists and raidsweep did not make it" in text
    assert holds in text and f"losetup -d {dev}" in text
    assert f"{image} carries a ext4 signature" in text
    # Allowed, even with its signature let go: still refused while the loop device holds it.
    for more in ({}, {"overwrite_signatures": True}):
        spec = _spec(tmp_path, {"target": str(image), "allow": [str(image)]} | more)
        text = _refused(spec, store)
        assert "platform_options.target" in text and holds in text
        assert "raidsweep did not make it" not in text
        assert ("carries a ext4 signature" in text) == (not more)
    assert (digest(image), sorted(os.listdir(image.parent))) == before
    assert (mnt / "important.txt").read_text() == "data\n"


def test_a_file_of_random_data_is_refused_and_untouched(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    data = tmp_path / "data" / "data.img"
    data.write_bytes(os.urandom(SIZE_MIB * 1024**2))
    attributes = os.listxattr(data)
    before = digest(data), sorted(os.listdir(data.parent))
    text = _refused(_spec(tmp_path, {"target": str(data)}), tmp_path / "s")
    assert f"platform_options.allow: {data} exists and raidsweep did not make it" in text
    assert "name it under platform_options.allow to confirm" in text
    assert (digest(data), sorted(os.listdir(data.parent))) == before
    assert os.listxattr(data) == attributes  # not marked as raidsweep's either
