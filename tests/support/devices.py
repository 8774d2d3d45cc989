"""Block devices and mounts made for a test: a loop device over a sparse file made for it or
over a file the test has, a zram device, a bind mount of a folder; each removed again after
the test, whatever it left behind."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def _sh(*cmd: str) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()


@contextmanager
def loop_device(backing: Path, size_mib: int, *losetup_options: str) -> Iterator[str]:
    """A loop device over ``backing``, a sparse file of ``size_mib`` MiB made for it
    (``losetup_options`` such as ``--read-only``); unmounted and detached after."""
    with open(backing, "wb") as fh:
        fh.truncate(size_mib * 1024**2)
    dev = _sh("losetup", "--find", "--show", *losetup_options, str(backing))
    try:
        yield dev
    finally:
        subprocess.run(["umount", dev], capture_output=True, check=False)
        subprocess.run(["losetup", "-d", dev], check=False)


@contextmanager
def loop_over(backing: Path | str, *losetup_options: str) -> Iterator[str]:
    """A loop device over ``backing``, a file (or block device) the test already has
    (``losetup_options`` such as ``--read-only``); detached after."""
    dev = _sh("losetup", "--find", "--show", *losetup_options, str(backing))
    try:
        yield dev
    finally:
        subprocess.run(["losetup", "-d", dev], check=False)


@contextmanager
def bind_mount(source: Path, point: Path) -> Iterator[Path]:
    """``source`` bind-mounted at ``point`` (a folder made for it): the same folder by
    another path; unmounted after."""
    point.mkdir()
    subprocess.run(["mount", "--bind", str(source), str(point)], check=True)
    try:
        yield point
    finally:
        subprocess.run(["umount", str(point)], check=False)


@contextmanager
def zram_device(size: str = "64M") -> Iterator[str]:
    """A zram device of ``size``, reset after."""
    dev = _sh("zramctl", "--find", "--size", size)
    try:
        yield dev
    finally:
        subprocess.run(["zramctl", "--reset", dev], check=False)
