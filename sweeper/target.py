"""A local fio target (block device or file): what it is, and whether writing to it is safe.

Modelled on linux-system-roles/storage's safe mode: a target is written only when the user
named it in the allow-list, and never while it is mounted, used by swap, held by another
device (LVM, md, dm) or carrying a filesystem, unless the spec says that signature may go.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Target:
    path: str  # as the spec names it
    realpath: str
    kind: str  # block | file | missing | other
    size: int  # bytes (0 when missing)
    facts: dict[str, object] = field(default_factory=dict)

    @property
    def block_name(self) -> str:
        return os.path.basename(self.realpath)


def inspect_target(path: str) -> Target:
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return Target(path, real, "missing", 0)
    if stat.S_ISBLK(st.st_mode):
        name = os.path.basename(real)
        sys_dir = Path("/sys/class/block") / name
        sectors = _read(sys_dir / "size")
        size = int(sectors) * 512 if sectors and sectors.isdigit() else 0
        facts = {
            "rotational": _read(sys_dir / "queue" / "rotational"),
            "logical_block_size": _read(sys_dir / "queue" / "logical_block_size"),
            "physical_block_size": _read(sys_dir / "queue" / "physical_block_size"),
            "scheduler": _read(sys_dir / "queue" / "scheduler"),
            "read_ahead_kb": _read(sys_dir / "queue" / "read_ahead_kb"),
            "model": _read(sys_dir / "device" / "model"),
            "read_only": _read(sys_dir / "ro"),
        }
        return Target(path, real, "block", size, facts)
    if stat.S_ISREG(st.st_mode):
        return Target(path, real, "file", st.st_size, {"allocated_bytes": st.st_blocks * 512})
    return Target(path, real, "other", 0)


def _read(path: Path) -> str | None:
    try:
        return path.read_text().strip()
    except OSError:
        return None


def _mount_sources() -> set[str]:
    sources = set()
    with contextlib.suppress(OSError), open("/proc/self/mounts", encoding="utf-8") as fh:
        for line in fh:
            src = line.split(" ", 1)[0].replace("\\040", " ")
            if src.startswith("/"):
                sources.add(os.path.realpath(src))
    with contextlib.suppress(OSError), open("/proc/swaps", encoding="utf-8") as fh:
        for line in list(fh)[1:]:
            sources.add(os.path.realpath(line.split()[0]))
    return sources


def _partitions(name: str) -> list[str]:
    sys_dir = Path("/sys/class/block") / name
    with contextlib.suppress(OSError):
        return [p.name for p in sys_dir.iterdir() if (p / "partition").exists()]
    return []


def _signature(device: str) -> str | None:
    """The filesystem or partition-table type blkid finds on ``device`` (None: none)."""
    try:
        out = subprocess.run(
            ["blkid", "-p", "-o", "export", "--", device],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    fields = dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)
    return fields.get("TYPE") or fields.get("PTTYPE")


def _direct_io_problem(path: str) -> str | None:
    """Whether the filesystem that holds ``path`` accepts O_DIRECT (tmpfs does not)."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECT", 0)
    try:
        if os.path.exists(path):
            os.close(os.open(path, flags))
        else:
            fd, probe = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".rs-probe-")
            os.close(fd)
            try:
                os.close(os.open(probe, flags))
            finally:
                os.unlink(probe)
    except OSError as exc:
        return f"direct I/O is not possible there ({exc.strerror}); use a disk-backed filesystem"
    return None


def target_problems(
    path: str,
    *,
    allow: list[str],
    file_size: int | None,
    overwrite_signatures: bool = False,
) -> list[tuple[str, str]]:
    """Why fio must not write to ``path`` as asked: (option key, message) pairs."""
    if not isinstance(path, str) or not path.startswith("/"):
        return [("target", f"{path!r} is not an absolute path")]
    t = inspect_target(path)
    allowed = {os.path.realpath(a) for a in allow if isinstance(a, str)}
    if t.kind == "missing":
        if file_size is None:
            return [
                (
                    "target",
                    f"{path} does not exist (give file_size to have raidsweep create a file)",
                )
            ]
        parent = os.path.dirname(t.realpath)
        if not os.path.isdir(parent):
            return [("target", f"{path}: its folder {parent} does not exist")]
        if os.path.commonpath([parent, "/dev"]) == "/dev":
            # a device named wrongly (sdb for sdc) would be benchmarked as a file in memory
            return [
                (
                    "target",
                    f"{path} does not exist, and a scratch file there would be made among the "
                    "device nodes (in memory): is the device's name right?",
                )
            ]
        if not os.access(parent, os.W_OK):
            return [("target", f"{path}: its folder {parent} is not writable")]
        free = os.statvfs(parent)
        if free.f_bavail * free.f_frsize < file_size:
            have = free.f_bavail * free.f_frsize
            return [("file_size", f"{file_size} bytes do not fit in {parent} ({have} free)")]
        problem = _direct_io_problem(t.realpath)
        return [("target", f"{path}: {problem}")] if problem else []
    if t.kind == "other":
        return [("target", f"{path} is neither a block device nor a regular file")]
    problems: list[tuple[str, str]] = []
    # A file of exactly file_size is the scratch file the spec asked for (made by an earlier
    # run of this sweep); any other existing target is the user's and needs the allow-list.
    scratch = t.kind == "file" and file_size is not None and t.size == file_size
    if t.kind == "file" and file_size is not None and not scratch and t.realpath not in allowed:
        problems.append(
            (
                "file_size",
                f"{path} exists with {t.size} bytes, not the {file_size} asked for; "
                "remove it, or name it under platform_options.allow to use it as it is",
            )
        )
    elif not scratch and t.realpath not in allowed:
        what = "device" if t.kind == "block" else "existing file"
        problems.append(
            (
                "allow",
                f"{path} is an {what} not in the allow-list; fio overwrites it, so name it "
                "under platform_options.allow to confirm",
            )
        )
    if not os.access(t.realpath, os.W_OK) or t.facts.get("read_only") == "1":
        problems.append(("target", f"{path} is not writable"))
    if t.kind == "block":
        mounted = _mount_sources()
        busy = [t.realpath] + [f"/dev/{p}" for p in _partitions(t.block_name)]
        for dev in busy:
            if dev in mounted:
                problems.append(("target", f"{dev} is mounted or used as swap"))
        holders = Path("/sys/class/block") / t.block_name / "holders"
        with contextlib.suppress(OSError):
            held = sorted(p.name for p in holders.iterdir())
            if held:
                problems.append(("target", f"{path} is held by {', '.join(held)}"))
        if t.size == 0:
            problems.append(("target", f"{path} has no capacity (size 0)"))
        sig = _signature(t.realpath)
        if sig and not overwrite_signatures:
            problems.append(
                (
                    "target",
                    f"{path} carries a {sig} signature; set overwrite_signatures: true to "
                    "allow fio to destroy it",
                )
            )
    else:
        problem = _direct_io_problem(t.realpath)
        if problem:
            problems.append(("target", f"{path}: {problem}"))
    return problems
