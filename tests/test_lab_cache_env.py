"""``RAIDSWEEP_CACHE`` names the folder the lab keeps its image and VM in: a value that cannot
name one is refused before anything, and the lab's inventory holds its paths as values (a
``#`` or a ``: `` in a folder's name is not YAML of its own)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from sweeper.lab.inventory import inventory_text
from sweeper.lab.vm import LabStatus
from tests.support.paths import RAIDSWEEP


@pytest.mark.parametrize(
    ("value", "words"),
    [
        ("", "is empty"),
        ("relative/cache", "is not an absolute path"),
        ("/tmp/a\x1b[31mred", "control character"),
        ("/tmp/{{ lookup('env', 'HOME') }}", "template syntax"),
    ],
)
def test_a_cache_folder_that_cannot_be_one_is_refused(
    tmp_path: Path, value: str, words: str
) -> None:
    env = dict(os.environ, RAIDSWEEP_CACHE=value, COLUMNS="200")
    for command in (["lab", "status"], ["lab", "down", "--dir", str(tmp_path / "vm")]):
        done = subprocess.run(
            [str(RAIDSWEEP), *command], env=env, cwd=tmp_path, capture_output=True, text=True
        )
        assert done.returncode == 2, done.stdout + done.stderr
        assert "RAIDSWEEP_CACHE" in done.stderr and words in done.stderr
        assert "Traceback" not in done.stderr and "\x1b[31m" not in done.stderr
    assert list(tmp_path.iterdir()) == []  # nothing made


def test_the_lab_inventory_holds_its_paths_as_values(tmp_path: Path) -> None:
    folder = tmp_path / "my #cache: 'x'"
    status = LabStatus(
        folder=folder,
        running=True,
        pid=123,
        port=2222,
        disks=["/dev/disk/by-id/virtio-data0", "/dev/disk/by-id/virtio-data1"],
        disk_mib=256,
        key_path=folder / "lab" / "id_ed25519",
    )
    text = inventory_text(status, ["d0 #.img", "d1\n.img"])
    host = yaml.safe_load(text)["all"]["children"]["storage"]["hosts"]
    (facts,) = host.values()
    assert facts["ansible_ssh_private_key_file"] == str(folder / "lab" / "id_ed25519")
    assert facts["linux_md_devices"] == status.disks
    assert facts["ansible_port"] == 2222 and facts["ansible_pipelining"] is True
    # every line before the inventory is a comment, the file names quoted in it
    head = text[: text.index("all:")]
    assert all(line.startswith("#") for line in head.splitlines())
