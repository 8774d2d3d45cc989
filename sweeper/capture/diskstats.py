"""The block devices this host has and their ``/proc/diskstats`` counters (pure parsing)."""

from __future__ import annotations

import os
import re
import stat

#: the counters kept of each device, in ``/proc/diskstats`` order after its name: the 11 of
#: every kernel, the discards' 4 (4.18 and later) and the flushes' 2 (5.5 and later)
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
    "discards",
    "discards_merged",
    "discard_sectors",
    "discard_ms",
    "flushes",
    "flush_ms",
)
#: how many of ``FIELDS`` a kernel's lines may hold (``/proc/diskstats`` grew twice)
WIDTHS = (11, 15, 17)
#: the counters the kernel prints as 32-bit milliseconds (``%u``, on every kernel and
#: architecture): they wrap at ``WRAP``, after 49.7 days of one request in flight (sooner for
#: ``weighted_ms``, the sum over every request in flight). The request and sector counts are
#: unsigned longs.
WRAPPING = frozenset({"read_ms", "write_ms", "io_ms", "weighted_ms", "discard_ms", "flush_ms"})
WRAP = 2**32
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


def width(parts: int) -> int:
    """How many of ``FIELDS`` a line of ``parts`` words holds (0: not a device's line)."""
    return max((w for w in WIDTHS if parts - 3 >= w), default=0)


def fields(text: str) -> tuple[str, ...]:
    """The counters this kernel's ``/proc/diskstats`` gives (``FIELDS`` or its first 11 or
    15; the first 11 when it lists no device)."""
    widths = [width(len(line.split())) for line in text.splitlines()]
    return FIELDS[: min((w for w in widths if w), default=WIDTHS[0])]


def parse(text: str, devices: list[str] | tuple[str, ...]) -> dict[str, list[int]]:
    """The counters of each of ``devices`` present in the text of ``/proc/diskstats``, as
    many of ``FIELDS`` as its lines hold."""
    wanted = set(devices)
    out: dict[str, list[int]] = {}
    for line in text.splitlines():
        parts = line.split()
        n = width(len(parts))
        if n and parts[2] in wanted:
            out[parts[2]] = [int(x) for x in parts[3 : 3 + n]]
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
