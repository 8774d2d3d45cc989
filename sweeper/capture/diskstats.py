"""The block devices this host has and their ``/proc/diskstats`` counters (pure parsing)."""

from __future__ import annotations

import os
import re
import stat

#: the counters kept of each device, in ``/proc/diskstats`` order after its name
FIELDS = (
    "reads",
    "reads_merged",
    "read_sectors",
    "read_ms",
    "writes",
    "writes_merged",
    "write_sectors",
    "write_ms",
    "in_flight",
    "io_ms",
    "weighted_ms",
)
DISKSTATS = "/proc/diskstats"
SECTOR_BYTES = 512
#: a block device's name as the kernel gives it in ``/proc/diskstats`` (``sda``, ``nvme0n1p2``,
#: ``dm-0``, ``md127``, ``mmcblk0boot0``, ``ubiblock0_0``; at most 31 characters and a
#: partition number). A capture refuses the rest: a ``/`` (``cciss/c0d0`` of drivers long
#: gone; sysfs spells it ``cciss!c0d0``) would make the name a path.
DEVICE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:!-]{0,63}")


def is_device_name(name: str) -> bool:
    """Whether ``name`` is one a capture holds (``DEVICE_NAME``, and no ``..``)."""
    return DEVICE_NAME.fullmatch(name) is not None and ".." not in name


def parse(text: str, devices: list[str] | tuple[str, ...]) -> dict[str, list[int]]:
    """The counters of each of ``devices`` present in the text of ``/proc/diskstats``."""
    wanted = set(devices)
    out: dict[str, list[int]] = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 14 and parts[2] in wanted:
            out[parts[2]] = [int(x) for x in parts[3:14]]
    return out


def known_devices(text: str) -> list[str]:
    """Every device name ``/proc/diskstats`` lists."""
    return [parts[2] for line in text.splitlines() if len(parts := line.split()) >= 14]


def device_name(given: str, known: list[str]) -> str:
    """The kernel's name of a device given as a name (``sda``, ``loop0``) or a path in any
    spelling (``/dev/sda``, ``/dev/disk/by-id/…``); ValueError naming the problem otherwise."""
    if given in known:
        return _checked(given)
    real = os.path.realpath(given)
    try:
        is_block = stat.S_ISBLK(os.stat(real).st_mode)
    except OSError:
        is_block = False
    name = os.path.basename(real)
    if is_block and name in known:
        return _checked(name)
    if not is_block and "/" in given:
        raise ValueError(f"{given!r} is not a block device")
    raise ValueError(f"{given!r} is not a block device /proc/diskstats lists")


def _checked(name: str) -> str:
    if not is_device_name(name):
        raise ValueError(f"the kernel's name {name!r} is not one a capture can hold")
    return name


def devices_beneath(path: str) -> set[str]:
    """The block devices the file system holding ``path`` is written to: its own device, the
    disk a partition belongs to, and every device beneath a device-mapper or md device."""
    try:
        dev = os.stat(path).st_dev
    except OSError:
        return set()
    link = f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}"
    if not os.path.exists(link):
        return set()
    found: set[str] = set()
    todo = [os.path.realpath(link)]
    while todo:
        place = todo.pop()
        name = os.path.basename(place)
        if name in found:
            continue
        found.add(name)
        parent = os.path.dirname(place)
        if os.path.exists(os.path.join(parent, "partition")) or os.path.exists(
            os.path.join(place, "partition")
        ):
            found.add(os.path.basename(parent))
        slaves = os.path.join(place, "slaves")
        if os.path.isdir(slaves):
            todo += [os.path.realpath(os.path.join(slaves, s)) for s in os.listdir(slaves)]
    return found
