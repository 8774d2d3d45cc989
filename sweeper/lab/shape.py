"""The lab's shape: how many data disks, how large, how much memory — in range, and within
what this machine can give it (``check_shape``, ``check_fits``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

MAX_DISKS = 24  # q35's root bus has about 28 free PCI slots: one each, plus root and network
MIN_DISK_MIB = 8
MIN_MEMORY_MIB = 512
#: what the host keeps for itself (QEMU, raidsweep, the tests) beside the guest's memory
HOST_RESERVE_MIB = 512


def check_shape(disks: int, disk_mib: int, memory_mib: int) -> None:
    """ValueError naming the parameter when the lab's shape is out of range."""
    if not 1 <= disks <= MAX_DISKS:
        raise ValueError(f"disks: {disks} is not between 1 and {MAX_DISKS}")
    if disk_mib < MIN_DISK_MIB:
        raise ValueError(f"disk_mib: {disk_mib} MiB is less than {MIN_DISK_MIB} MiB")
    if memory_mib < MIN_MEMORY_MIB:
        raise ValueError(f"memory_mib: {memory_mib} MiB is less than {MIN_MEMORY_MIB} MiB")


def check_fits(disks: int, disk_mib: int, memory_mib: int, folder: Path) -> None:
    """ValueError naming the parameter when this machine cannot give the lab what it asks:
    more memory than is available now (less a reserve for the host), or data disks that would
    not fit in the free space of ``folder``'s file system once written (they are sparse files,
    so a lab that asks too much would start and fail later, in the guest, on a full disk)."""
    available = _available_mib()
    if available is not None and memory_mib > available - HOST_RESERVE_MIB:
        raise ValueError(
            f"memory_mib: {memory_mib:,} MiB is more than this machine can give "
            f"({available:,} MiB available, {HOST_RESERVE_MIB} MiB kept for the host)"
        )
    free = shutil.disk_usage(_existing(folder)).free // 2**20
    if disks * disk_mib > free:
        raise ValueError(
            f"disk_mib: {disks} disk(s) of {disk_mib:,} MiB need {disks * disk_mib:,} MiB, "
            f"more than the {free:,} MiB free where the lab keeps them ({folder})"
        )


def _available_mib() -> int | None:
    """MemAvailable of /proc/meminfo in MiB, or the physical memory where there is none."""
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2**20
    except (OSError, ValueError):
        return None


def _existing(folder: Path) -> Path:
    """The folder or its nearest existing parent (the lab's folder may not exist yet)."""
    for path in (folder, *folder.parents):
        if path.is_dir():
            return path
    return Path("/")
