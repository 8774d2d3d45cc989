"""linux_md's filesystem layer reads the stripe geometry back from the filesystem's own tools:
here from ``dumpe2fs`` on a real ext4 image made with a known stride and stripe width."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.support.ansible_modules import load_module
from tests.support.paths import ROLES

pytestmark = pytest.mark.skipif(
    shutil.which("mkfs.ext4") is None or shutil.which("dumpe2fs") is None,
    reason="needs e2fsprogs",
)


def _fs_layer() -> Any:
    return load_module(ROLES / "linux_md" / "library" / "fs_layer.py")


class _Commands:
    """What the geometry reader asks of its Ansible module: to run a command."""

    def run_command(self, argv: list[str]) -> tuple[int, str, str]:
        proc = subprocess.run(argv, capture_output=True, text=True, check=False)
        return proc.returncode, proc.stdout, proc.stderr

    def fail_json(self, msg: str) -> None:
        raise AssertionError(msg)


@pytest.mark.parametrize(("block", "stride", "width"), [(1024, 16, 48), (4096, 16, 64)])
def test_ext4_geometry_is_read_from_dumpe2fs(
    tmp_path: Path, block: int, stride: int, width: int
) -> None:
    image = tmp_path / "fs.img"
    image.write_bytes(b"")
    subprocess.run(["truncate", "-s", "64M", str(image)], check=True)
    subprocess.run(
        [
            "mkfs.ext4",
            "-q",
            "-F",
            "-b",
            str(block),
            "-E",
            f"stride={stride},stripe_width={width}",
            str(image),
        ],
        check=True,
    )
    found = _fs_layer().geometry(_Commands(), "ext4", str(image), str(tmp_path))
    assert found == {
        "tool": "dumpe2fs -h",
        "unit_kib": stride * block // 1024,
        "width_kib": width * block // 1024,
    }


def test_ext4_without_raid_hints_has_no_geometry(tmp_path: Path) -> None:
    image = tmp_path / "fs.img"
    subprocess.run(["truncate", "-s", "64M", str(image)], check=True)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(image)], check=True)
    found = _fs_layer().geometry(_Commands(), "ext4", str(image), str(tmp_path))
    assert found == {"tool": "dumpe2fs -h", "unit_kib": None, "width_kib": None}
