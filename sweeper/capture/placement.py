"""Where block devices sit among each other and where a file is written: the block devices
beneath a path's file system (so that a capture never writes to a device it observes), and
the observed devices that contain another (a disk and its partition, a device-mapper or md
device and its members), whose I/O a capture would count twice.

A path's device is its file system's ``st_dev`` where that is a block device. Some file
systems give an anonymous one instead (``0:N``: btrfs, overlayfs, network and memory file
systems): then the mount that holds the path (``/proc/self/mountinfo``, parsed here without
touching the system) says what it is — btrfs the devices under ``/sys/fs/btrfs/<uuid>/
devices`` of its mount source, overlayfs the devices beneath its upper directory, a file
system of memory or of the network none. Anything else cannot be told, and says so."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

MOUNTINFO = "/proc/self/mountinfo"
SYS_BLOCK = Path("/sys/class/block")
SYS_BTRFS = Path("/sys/fs/btrfs")
#: file systems held in memory or across the network: written to no local block device
NO_DEVICE = frozenset(
    {
        "tmpfs",
        "ramfs",
        "devtmpfs",
        "hugetlbfs",
        "nfs",
        "nfs4",
        "cifs",
        "smb3",
        "9p",
        "virtiofs",
        "ceph",
        "glusterfs",
        "fuse.sshfs",
    }
)


class Unresolved(ValueError):
    """The block devices a path is written to cannot be told."""


@dataclass(frozen=True)
class Mount:
    """A line of ``/proc/self/mountinfo``: where it is mounted, its ``major:minor``, file
    system type, source and super options."""

    point: str
    device: str
    fstype: str
    source: str
    options: str


def _unescape(text: str) -> str:
    """mountinfo's octal escapes (``\\040`` for a space) undone."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text)


def parse_mountinfo(text: str) -> list[Mount]:
    """The mounts of ``/proc/self/mountinfo`` in its order (later mounts over earlier)."""
    out = []
    for line in text.splitlines():
        head, sep, tail = line.partition(" - ")
        fields, rest = head.split(), tail.split()
        if not sep or len(fields) < 5 or len(rest) < 2:
            continue
        options = rest[2] if len(rest) > 2 else ""
        out.append(Mount(_unescape(fields[4]), fields[2], rest[0], _unescape(rest[1]), options))
    return out


def mount_of(path: str, mounts: list[Mount]) -> Mount | None:
    """The mount that holds ``path`` (a resolved path): the deepest mount point above it,
    the last mounted where several are mounted on one point."""
    best: Mount | None = None
    for mount in mounts:
        point = mount.point.rstrip("/") + "/"
        if (path.rstrip("/") + "/").startswith(point) and (
            best is None or len(mount.point) >= len(best.point)
        ):
            best = mount
    return best


def devices_beneath(path: str) -> set[str]:
    """The block devices the file system holding ``path`` is written to: its own device(s),
    the disk a partition belongs to, and every device beneath a device-mapper or md device;
    Unresolved when they cannot be told."""
    real = os.path.realpath(path)
    dev = os.stat(real).st_dev
    own = _sysfs_name(f"{os.major(dev)}:{os.minor(dev)}")
    if own is not None:
        return _below({own})
    with open(MOUNTINFO) as fh:
        mount = mount_of(real, parse_mountinfo(fh.read()))
    if mount is None:
        raise Unresolved(f"no mount holds {real} (/proc/self/mountinfo)")
    return _below(_mount_devices(mount))


def _mount_devices(mount: Mount) -> set[str]:
    if mount.fstype in NO_DEVICE:
        return set()
    if mount.fstype == "overlay":
        upper = re.search(r"(?:^|,)upperdir=([^,]+)", mount.options)
        if upper is None:  # read-only layers only: nothing is written
            return set()
        return devices_beneath(upper.group(1))
    source = _block_source(mount.source)
    if source is None:
        raise Unresolved(
            f"it is on {mount.fstype} from {mount.source!r} (mounted on {mount.point}), "
            "which names no block device"
        )
    if mount.fstype != "btrfs":
        return {source}
    members = [d for d in SYS_BTRFS.glob("*/devices") if (d / source).exists()]
    if not members:
        raise Unresolved(
            f"it is on btrfs from {mount.source} (mounted on {mount.point}), whose devices "
            f"{SYS_BTRFS} does not list"
        )
    return {source} | {link.name for d in members for link in d.iterdir()}


def _block_source(source: str) -> str | None:
    """The kernel's name of a mount source that is a block device, else None."""
    try:
        st = os.stat(source)
    except (OSError, ValueError):
        return None
    if not stat.S_ISBLK(st.st_mode):
        return None
    return _sysfs_name(f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}")


def _sysfs_name(major_minor: str) -> str | None:
    link = Path("/sys/dev/block") / major_minor
    return os.path.basename(os.path.realpath(link)) if link.exists() else None


def _below(names: set[str]) -> set[str]:
    """``names`` with the disk each partition belongs to and every device beneath each."""
    found: set[str] = set()
    todo = [os.path.realpath(SYS_BLOCK / n) for n in names]
    while todo:
        place = todo.pop()
        name = os.path.basename(place)
        if name in found:
            continue
        found.add(name)
        if os.path.exists(os.path.join(place, "partition")):
            # the disk is walked too: a partition of md0 or dm-0 reaches md0's members
            todo.append(os.path.dirname(place))
        slaves = os.path.join(place, "slaves")
        if os.path.isdir(slaves):
            todo += [os.path.realpath(os.path.join(slaves, s)) for s in os.listdir(slaves)]
        todo += [os.path.realpath(SYS_BLOCK / n) for n in _backing(place, found)]
    return found


def _backing(place: str, seen: set[str]) -> set[str]:
    """The devices beneath a loop device's backing file: the one it is (a loop over a
    device), or those its file system is written to (a loop over a file)."""
    try:
        with open(os.path.join(place, "loop", "backing_file")) as fh:
            backing = fh.read().strip()
    except OSError:
        return set()  # not a loop device, or one with no file
    try:
        st = os.stat(backing)
    except OSError:
        return set()
    if stat.S_ISBLK(st.st_mode):
        name = _sysfs_name(f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}")
        return {name} - seen if name else set()
    try:
        return devices_beneath(os.path.dirname(backing) or "/") - seen
    except (Unresolved, OSError):
        return set()


def inside(name: str) -> set[str]:
    """The devices ``name``'s I/O also reaches: the disk of a partition, and every device
    beneath a device-mapper or md device (``slaves``), to the bottom."""
    return _below({name}) - {name}


def overlapping(names: list[str]) -> list[tuple[str, str]]:
    """Each pair ``(outer, inner)`` of ``names`` where ``inner``'s I/O is counted in
    ``outer``'s as well: a disk and its partition, a stacked device and a device beneath it."""
    chosen = set(names)
    pairs = []
    for name in names:
        for below in sorted(inside(name) & chosen):
            if _is_partition_of(name, below):  # a partition's I/O is its disk's too
                pairs.append((below, name))
            else:  # a stacked device's I/O reaches the devices beneath it
                pairs.append((name, below))
    return pairs


def _is_partition_of(part: str, disk: str) -> bool:
    place = Path(os.path.realpath(SYS_BLOCK / part))
    return (place / "partition").exists() and place.parent.name == disk
