"""Which devices a chosen device's I/O also reaches, walked in sysfs: a partition reaches its
disk, and through the disk every device beneath it (a partition of an md array reaches the
array's members). md and device-mapper do not exist on the machine the suite runs on, so the
sysfs tree is laid out here as the kernel lays it out."""

from __future__ import annotations

from pathlib import Path

import pytest

from sweeper.capture import placement


@pytest.fixture
def sysfs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    devices = tmp_path / "devices"
    for d in ("sdb", "sdc", "md0/md0p1", "sdd/sdd1"):
        (devices / d).mkdir(parents=True)
    (devices / "md0/md0p1/partition").write_text("1\n")
    (devices / "sdd/sdd1/partition").write_text("1\n")
    (devices / "md0/slaves").mkdir()
    for member in ("sdb", "sdc"):
        (devices / "md0/slaves" / member).symlink_to(devices / member)
    block = tmp_path / "block"
    block.mkdir()
    for name, where in {
        "sdb": "sdb",
        "sdc": "sdc",
        "sdd": "sdd",
        "sdd1": "sdd/sdd1",
        "md0": "md0",
        "md0p1": "md0/md0p1",
    }.items():
        (block / name).symlink_to(devices / where)
    monkeypatch.setattr(placement, "SYS_BLOCK", block)
    return block


def test_a_partition_of_an_array_reaches_the_arrays_members(sysfs: Path) -> None:
    assert placement.inside("md0p1") == {"md0", "sdb", "sdc"}
    assert placement.overlapping(["md0p1", "sdb"]) == [("md0p1", "sdb")]


def test_a_disk_holds_its_partition_and_unrelated_devices_do_not_overlap(sysfs: Path) -> None:
    assert placement.inside("sdd1") == {"sdd"}
    assert placement.overlapping(["sdd", "sdd1"]) == [("sdd", "sdd1")]
    assert placement.overlapping(["sdb", "sdd1"]) == []
