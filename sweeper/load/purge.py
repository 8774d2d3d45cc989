"""SNIA PTS purge: return the target to a known, empty state before preconditioning.

Three methods, asked for with ``platform_options.purge``:

- ``discard``: ``blkdiscard`` over the whole device where it accepts discards (its queue's
  ``discard_max_bytes`` is not 0); where it does not (or the target is a file), a zero fill
  of the whole target with fio instead, and the disclosure says so.
- ``zero``: a zero fill of the whole target with fio (``zero_buffers``, direct I/O).
- ``nvme-format``: ``nvme format --ses=1`` (a user-data erase), only for an NVMe namespace
  and only when the spec asks for it by this name.

The purge runs only on a target that already passed the platform's safety checks, once per
configuration, before the fill and preconditioning.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from sweeper.fio.jobfile import check_filename

PURGE_METHODS = ("discard", "zero", "nvme-format")
#: an NVMe namespace as the kernel names it (nvme0n1), not a partition of one (nvme0n1p1)
NVME_NAMESPACE_RE = re.compile(r"nvme\d+n\d+")
ZERO_BLOCK = 1024**2


def block_name(target: str) -> str | None:
    """The kernel's name of the block device ``target`` is (any spelling), else None."""
    real = os.path.realpath(target)
    try:
        if not stat.S_ISBLK(os.stat(real).st_mode):
            return None
    except OSError:
        return None
    return os.path.basename(real)


def queue_dir(name: str) -> Path:
    """The block queue's sysfs folder of a device or of the disk a partition belongs to."""
    own = Path("/sys/class/block") / name
    if (own / "queue").is_dir():
        return own / "queue"
    return own.resolve().parent / "queue"


def discard_supported(target: str) -> bool:
    """Whether this host's block device ``target`` accepts discards (a file does not)."""
    name = block_name(target)
    if name is None:
        return False
    try:
        return int((queue_dir(name) / "discard_max_bytes").read_text()) > 0
    except (OSError, ValueError):
        return False


def nvme_format_problem(target: str) -> str | None:
    """Why ``nvme format`` must not be run on ``target`` (None when it may): only a whole
    NVMe namespace, never a partition, file or other kind of disk."""
    name = block_name(target)
    if name is None:
        return f"purge: nvme-format needs an NVMe namespace; {target} is not a block device"
    if not NVME_NAMESPACE_RE.fullmatch(name):
        return (
            f"purge: nvme-format needs an NVMe namespace (/dev/nvmeXnY); {target} is {name}: "
            "use purge: discard or zero"
        )
    others = sibling_namespaces(name, os.listdir("/sys/class/block"))
    if others:
        return (
            f"purge: nvme-format of {name} may erase {', '.join(others)} too (a controller "
            "whose Format NVM Attributes say so formats or erases all its namespaces "
            "together); use purge: discard or zero"
        )
    return None


def sibling_namespaces(name: str, devices: list[str]) -> list[str]:
    """The other namespaces of ``name``'s NVMe subsystem among ``devices`` (block device
    names: ``nvme0n2`` beside ``nvme0n1``; partitions and other subsystems left out)."""
    prefix = name[: name.rindex("n")]
    return sorted(
        d
        for d in devices
        if d != name and NVME_NAMESPACE_RE.fullmatch(d) and d[: d.rindex("n")] == prefix
    )


def zero_job(target: str, size: int) -> str:
    """The fio job that writes zeros over the first ``size`` bytes of ``target``."""
    return (
        "; raidsweep purge: write zeros over the whole target before the fill\n"
        "[purge]\n"
        f"filename={check_filename(target)}\n"
        "rw=write\nbs=1m\niodepth=16\nioengine=libaio\ndirect=1\nthread=1\n"
        f"size={size}\nzero_buffers=1\n"
    )


def zero_size(size: int) -> int:
    """The bytes a zero fill covers: whole MiB, or all of a target smaller than one."""
    return size - size % ZERO_BLOCK or size


def purge_plan(method: str, target: str, size: int | None) -> str:
    """What ``--check`` says the purge will do."""
    whole = f"the whole of {target}" + (f" ({size:,} bytes)" if size else "")
    if method == "nvme-format":
        return f"purges {whole} with nvme format --ses=1 (user-data erase) before the fill"
    if method == "zero":
        return f"purges {whole} by writing zeros with fio before the fill"
    how = "blkdiscard" if size is None or discard_supported(target) else None
    if how is None:
        return f"purges {whole} by writing zeros with fio before the fill (it cannot discard)"
    return f"purges {whole} with blkdiscard before the fill (zeros with fio where it cannot)"
