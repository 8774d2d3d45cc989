"""What a local fio target is, as the kernel knows it, for its machine-wide lock.

Two names of one storage must give one lock, however they are spelled: a symlink, a hard
link, a bind mount, a ``/dev/disk/by-id`` link, a loop device over a file. So a target is
named by numbers the kernel gives it, never by its name alone:

- a file by ``local:inode:MAJOR:MINOR:INODE``, its filesystem's device and its inode (the
  same through every hard link and bind mount), by its real path (``local:path:…``, the
  spelling other locks of a file use), and by its entry in its folder,
  ``local:entry:MAJOR:MINOR:INODE:NAME``: the folder's device and inode and the file's name
  there. A file the sweep has yet to create has no inode: its entry is what names it
  whatever path reaches its folder (a bind mount of the folder, a symlink to it), and an
  existing file has the same entry, so a sweep that created the file and one that names
  it through another path, now that it exists, still share a lock;
- a block device by ``local:dev:MAJOR:MINOR`` and, since its I/O reaches them too, the
  devices beneath it (sysfs): the disk a partition belongs to, every device beneath a
  device-mapper or md device (``slaves``), and a loop device's backing file (its inode,
  from ``/sys/block/loopN/loop/backing_inode`` and ``backing_dev`` where the kernel has
  them, else from ``LOOP_GET_STATUS64``, else by its ``backing_file`` path) or backing
  device.

Every part is a number the kernel keeps while the storage exists (an entry: with a name), so
every process (and a resumed sweep) finds the same ones; two sweeps conflict when they share
any.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import stat
import struct
from pathlib import Path

SYS_DEV_BLOCK = Path("/sys/dev/block")

#: ``LOOP_GET_STATUS64`` (linux/loop.h) and the head of its ``struct loop_info64``:
#: ``lo_device``, ``lo_inode``, ``lo_rdevice`` (the backing file's device, inode, and its own
#: device number where it is a device node)
LOOP_GET_STATUS64 = 0x4C05
LOOP_INFO64_SIZE = 232
_LOOP_HEAD = struct.Struct("=QQQ")

#: how deep the devices beneath a target are followed (a loop over a file on a loop, …)
MAX_DEPTH = 16


def _dev(number: int) -> str:
    return f"local:dev:{os.major(number)}:{os.minor(number)}"


def _inode(device: int, inode: int) -> str:
    return f"local:inode:{os.major(device)}:{os.minor(device)}:{inode}"


def _entry(folder_device: int, folder_inode: int, name: str) -> str:
    return f"local:entry:{os.major(folder_device)}:{os.minor(folder_device)}:{folder_inode}:{name}"


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except (OSError, UnicodeDecodeError):
        return None


def local_identity(target: str) -> list[str]:
    """The lock identities of ``target`` (a path as a spec names it), first the one a person
    reads best; never raises (what cannot be read is left out: the preflight names it)."""
    found: dict[str, None] = {}
    _of_path(target, found, 0)
    return list(found)


def _of_path(target: str, found: dict[str, None], depth: int) -> None:
    real = os.path.realpath(target)
    try:
        st = os.stat(real)
    except (OSError, ValueError):
        # Not there yet (the sweep creates it, after taking its lock): its real path, and
        # its entry in the folder that holds it.
        found[f"local:path:{real}"] = None
        _of_entry(real, found)
        return
    if stat.S_ISBLK(st.st_mode):
        _of_block(st.st_rdev, found, depth)
        return
    found[f"local:path:{real}"] = None
    found[_inode(st.st_dev, st.st_ino)] = None
    _of_entry(real, found)


def _of_entry(real: str, found: dict[str, None]) -> None:
    """The file's entry (``real``: a real path, its folder's links followed) as its folder's
    device and inode and its name there; nothing where the folder cannot be read (the
    preflight names it)."""
    folder, name = os.path.split(real)
    if not name:
        return
    with contextlib.suppress(OSError, ValueError):
        st = os.stat(folder)
        if stat.S_ISDIR(st.st_mode):
            found[_entry(st.st_dev, st.st_ino, name)] = None


def _of_block(rdev: int, found: dict[str, None], depth: int) -> None:
    """The device ``rdev`` and every device and file beneath it (sysfs)."""
    key = _dev(rdev)
    if key in found:
        return
    found[key] = None
    if depth >= MAX_DEPTH:
        return
    place = Path(os.path.realpath(SYS_DEV_BLOCK / f"{os.major(rdev)}:{os.minor(rdev)}"))
    if not (place / "dev").exists():
        return
    if (place / "partition").exists():  # the disk it belongs to
        _of_sysfs(place.parent, found, depth + 1)
    with contextlib.suppress(OSError):
        for slave in sorted((place / "slaves").iterdir()):
            _of_sysfs(Path(os.path.realpath(slave)), found, depth + 1)
    if (place / "loop").is_dir():
        _of_loop(place, rdev, found, depth + 1)


def _of_sysfs(place: Path, found: dict[str, None], depth: int) -> None:
    """The block device whose sysfs folder is ``place``, and what is beneath it."""
    text = _read(place / "dev")
    if text is None:
        return
    major, _, minor = text.partition(":")
    if major.isdigit() and minor.isdigit():
        _of_block(os.makedev(int(major), int(minor)), found, depth)


def _of_loop(place: Path, rdev: int, found: dict[str, None], depth: int) -> None:
    """A loop device's backing file by its device and inode (the kernel's own numbers, not
    the name it was attached by), and by its path while that names the same file."""
    loop = place / "loop"
    backing = _sysfs_backing(loop) or _ioctl_backing(place.name, rdev)
    name = _read(loop / "backing_file")
    if name is not None and name.endswith(" (deleted)"):
        name = None  # the file has no name any more; its inode is what it is
    if backing is None and name is not None:
        with contextlib.suppress(OSError, ValueError):
            st = os.stat(name)
            backing = (st.st_dev, st.st_ino, st.st_rdev if stat.S_ISBLK(st.st_mode) else 0)
    if backing is None:
        return
    device, inode, backing_rdev = backing
    if backing_rdev:  # a loop over a block device: that device, and what is beneath it
        _of_block(backing_rdev, found, depth)
        return
    if name is not None:
        with contextlib.suppress(OSError, ValueError):
            st = os.stat(name)
            if (st.st_dev, st.st_ino) == (device, inode):  # the name still names that file
                found[f"local:path:{os.path.realpath(name)}"] = None
    found[_inode(device, inode)] = None


def _sysfs_backing(loop: Path) -> tuple[int, int, int] | None:
    """``(device, inode, 0)`` from ``backing_dev`` and ``backing_inode``, where the kernel
    has them (``MAJOR:MINOR`` or an encoded number)."""
    inode = _read(loop / "backing_inode")
    device = _read(loop / "backing_dev")
    if not (inode and inode.isdigit() and device):
        return None
    major, sep, minor = device.partition(":")
    if sep and major.isdigit() and minor.isdigit():
        return os.makedev(int(major), int(minor)), int(inode), 0
    if device.isdigit():
        number = int(device)
        return os.makedev(os.major(number), os.minor(number)), int(inode), 0
    return None


def _ioctl_backing(name: str, rdev: int) -> tuple[int, int, int] | None:
    """``(device, inode, rdev)`` of a loop device's backing file from ``LOOP_GET_STATUS64``
    (the device node is opened read-only, only if it is the loop device ``rdev``)."""
    node = Path("/dev") / name
    try:
        fd = os.open(node, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISBLK(st.st_mode) or st.st_rdev != rdev:
            return None
        info = fcntl.ioctl(fd, LOOP_GET_STATUS64, bytes(LOOP_INFO64_SIZE))
    except OSError:
        return None
    finally:
        os.close(fd)
    device, inode, backing_rdev = _LOOP_HEAD.unpack_from(info)
    if not inode:
        return None
    return (
        os.makedev(os.major(device), os.minor(device)),
        inode,
        os.makedev(os.major(backing_rdev), os.minor(backing_rdev)) if backing_rdev else 0,
    )
