"""The local role's one module (local_target), run by real Ansible on this host: it creates a
missing target as a sparse file only when asked and not in check mode, describes a file by
its filesystem and a block device by lsblk, and refuses what fio cannot write to."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import devices
from tests.support.paths import PLAYBOOKS

pytestmark = pytest.mark.integration
ANSIBLE = Path(sys.executable).parent / "ansible"
LIBRARY = PLAYBOOKS / "roles" / "local" / "library"


def _module(*args: str, check: bool = False) -> dict[str, Any]:
    """local_target's result on localhost with ``args`` (key=value)."""
    cmd = [str(ANSIBLE), "localhost", "-M", str(LIBRARY), "-m", "local_target", "-o"]
    cmd += ["-a", " ".join(args)] + (["--check"] if check else [])
    env = os.environ | {
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_LOCALHOST_WARNING": "0",
        # the code raidsweep's modules share, as sweeper.ansible hands it to every play
        "ANSIBLE_MODULE_UTILS": str(PLAYBOOKS / "module_utils"),
    }
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120, check=False)
    # -o prints "localhost | STATUS => {json}" on one line
    status, _, doc = out.stdout.partition(" => ")
    return {"status": status.split("|")[-1].strip()} | json.loads(doc)


def test_a_missing_file_is_created_sparse_only_outside_check_mode(tmp_path: Path) -> None:
    target = tmp_path / "target.img"
    planned = _module(f"path={target}", "file_size=4194304", check=True)
    assert planned["status"] == "CHANGED" and not target.exists()
    assert planned["target"]["exists"] is False
    made = _module(f"path={target}", "file_size=4194304")
    assert made["status"] == "CHANGED" and target.stat().st_size == 4 * 1024**2
    assert target.stat().st_blocks == 0  # sparse: raidsweep's fill writes it
    found = made["target"]
    assert found["kind"] == "file" and found["realpath"] == str(target)
    assert found["filesystem"]["fstype"] and found["device"] is None
    # A target that exists is left as it is, whatever size is asked.
    again = _module(f"path={target}", "file_size=1048576")
    assert again["status"] == "SUCCESS" and target.stat().st_size == 4 * 1024**2


def test_a_block_device_is_described_by_lsblk(tmp_path: Path) -> None:
    with devices.zram_device("32M") as dev:
        found = _module(f"path={dev}")["target"]
    assert found["kind"] == "block" and found["device"]["size"] == 32 * 1024**2
    assert found["device"]["name"].startswith("zram") and found["filesystem"] is None


@pytest.mark.parametrize("what", ["missing", "folder"])
def test_what_fio_cannot_write_to_is_refused(tmp_path: Path, what: str) -> None:
    path = tmp_path / "missing.img" if what == "missing" else tmp_path
    result = _module(f"path={path}")
    assert result["status"] == "FAILED!"
    assert result["msg"] == f"{path} must be an existing block device or regular file"
    assert not (tmp_path / "missing.img").exists()
