"""A local fio target (block device or file): what it is, and whether writing to it is safe.

Modelled on linux-system-roles/storage's safe mode: a target is written only when the user
named it in the allow-list, and never while it is mounted, used by swap, held by another
device (LVM, md, dm) or carrying a filesystem, unless the spec says that signature may go.

A file is no different: one that exists is the user's, and needs the allow-list, unless
raidsweep made it as its scratch file. raidsweep knows its own by a mark on the file itself,
the extended attribute ``user.raidsweep.scratch`` naming the file's inode, put on the inode
before the file has its name (``create_scratch_file`` of the local role's module
``local_target``, which makes it): no crash leaves a file at the
target's path without its mark, the mark goes with the inode when the file is removed (a
file made later in its place, even on a reused inode number, has none) and a copy (``cp
-a``, ``rsync -X``) is another inode, which the mark does not name. Allowed or raidsweep's
own, a file is refused while it backs a loop device, is mounted or used as swap, or carries
a filesystem signature (unless the spec says that signature may go).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import stat
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sweeper.target_identity import local_identity

#: the extended attribute raidsweep puts on a scratch file it creates; its value names the
#: file's inode (:func:`scratch_mark`)
SCRATCH_XATTR = "user.raidsweep.scratch"
_MARK = "raidsweep scratch file, inode "
#: errors of a filesystem that keeps no (user) extended attributes
_NO_XATTRS = {errno.ENOTSUP, errno.EOPNOTSUPP}


@dataclass(frozen=True)
class Target:
    path: str  # as the spec names it
    realpath: str
    kind: str  # block | file | missing | unreachable (facts["reason"]) | other
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
    except OSError as exc:  # through a file, a loop of links, a name too long, no access
        return Target(path, real, "unreachable", 0, {"reason": exc.strerror or str(exc)})
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


def _dangling(path: str) -> bool:
    """Whether the link ``path`` leads to nothing (a loop of links is unreachable, not this)."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return False


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


#: where blkid is looked for beside the PATH (cron's PATH has no sbin)
_SBIN = ("/usr/sbin", "/sbin", "/usr/bin", "/bin")


class UnknownSignature(Exception):
    """Whether a device or file carries a signature cannot be told."""


def _signature(device: str) -> str | None:
    """The filesystem or partition-table type blkid finds on ``device`` (None: none).

    Fails closed: only blkid's "nothing found" (exit status 2) is no signature. Two or more
    signatures (exit 8, nothing printed: a filesystem over a leftover one) are a signature;
    blkid missing, timing out or failing otherwise raise ``UnknownSignature``."""
    search = os.pathsep.join([os.environ.get("PATH", ""), *_SBIN])
    blkid = shutil.which("blkid", path=search)
    if blkid is None:
        raise UnknownSignature("blkid (util-linux) is not installed")
    try:
        out = subprocess.run(
            [blkid, "-p", "-o", "export", "--", device],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise UnknownSignature("blkid took more than 30 s") from None
    except OSError as exc:
        raise UnknownSignature(f"blkid could not run: {exc.strerror}") from None
    if out.returncode == 2:
        return None
    if out.returncode == 8:
        return "more than one (blkid: ambivalent probing result)"
    fields = dict(line.split("=", 1) for line in out.stdout.splitlines() if "=" in line)
    found = fields.get("TYPE") or fields.get("PTTYPE")
    if out.returncode == 0 and found:
        return found
    if out.returncode == 0:
        return "an unnamed one (blkid found a signature of no type)"
    said = (out.stderr.strip() or out.stdout.strip())[-200:]
    raise UnknownSignature(f"blkid exited {out.returncode}" + (f": {said}" if said else ""))


def _claimed(node: str) -> bool:
    """Whether the kernel refuses an exclusive open of the block device ``node`` (EBUSY):
    mounted in any mount namespace, a member of a mounted multi-device filesystem, held by
    md, device-mapper or a partition in use, or opened exclusively by a program (mkfs,
    cryptsetup). What this mount table, /proc/swaps and the holders do not show."""
    try:
        fd = os.open(node, os.O_RDONLY | os.O_EXCL | os.O_CLOEXEC)
    except OSError as exc:
        return exc.errno == errno.EBUSY
    os.close(fd)
    return False


def scratch_mark(inode: int) -> bytes:
    """The value of :data:`SCRATCH_XATTR` on the scratch file whose inode is ``inode``."""
    return f"{_MARK}{inode}".encode()


def not_scratch_reason(path: str) -> str | None:
    """Why the existing file ``path`` is not a scratch file raidsweep made (None: it is one):
    its mark must be there and name the file's own inode."""
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
        mark = os.getxattr(real, SCRATCH_XATTR)
    except OSError as exc:
        if exc.errno == errno.ENODATA:
            return f"it lacks the {SCRATCH_XATTR} mark raidsweep puts on the files it makes"
        if exc.errno in _NO_XATTRS:
            return "its filesystem keeps no extended attributes to mark raidsweep's files with"
        return f"its mark cannot be read ({exc.strerror})"
    if not stat.S_ISREG(st.st_mode):
        return "it is not a regular file"
    if mark == scratch_mark(st.st_ino):
        return None
    named = re.fullmatch(re.escape(_MARK) + r"(\d+)", mark.decode("utf-8", "replace"))
    if named is None:
        return f"its {SCRATCH_XATTR} attribute is not a mark raidsweep writes"
    return (
        f"its {SCRATCH_XATTR} mark names inode {named.group(1)}, not its own inode "
        f"{st.st_ino}: it is a copy, not the file raidsweep made"
    )


def _unescape(field_: str) -> str:
    """A /proc/self/mounts field, its octal escapes (``\\040`` for a space) decoded."""
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field_)


def _mount_points() -> dict[str, list[str]]:
    """Each mounted or swapped-on device or file (real path) with where it is mounted
    (``swap`` for a swap area)."""
    points: dict[str, list[str]] = {}
    with contextlib.suppress(OSError), open("/proc/self/mounts", encoding="utf-8") as fh:
        for line in fh:
            parts = line.split(" ")
            if len(parts) > 1 and parts[0].startswith("/"):
                src = os.path.realpath(_unescape(parts[0]))
                points.setdefault(src, []).append(_unescape(parts[1]))
    with contextlib.suppress(OSError), open("/proc/swaps", encoding="utf-8") as fh:
        for line in list(fh)[1:]:
            if line.split():
                points.setdefault(os.path.realpath(_unescape(line.split()[0])), []).append("swap")
    return points


def _loop_devices_of(real: str) -> list[str]:
    """The loop devices whose backing file is the file ``real``, known by its device and
    inode (any name of it: a hard link, another path) as :mod:`sweeper.target_identity`
    reads a loop device's backing file."""
    own = {k for k in local_identity(real) if k.startswith(("local:inode:", "local:path:"))}
    return _loops_meeting(real, own)


def _sharing_storage(real: str) -> list[str]:
    """The other loop devices over the same storage as the block device ``real``: over the
    same backing file, over ``real`` itself, or beneath it (``real`` a loop over them), as
    ``sweeper.target_identity`` chains a loop device to what backs it."""
    return [node for node in _loops_meeting(real, set(local_identity(real))) if node != real]


def _loops_meeting(real: str, own: set[str]) -> list[str]:
    """The loop devices whose chain of identities (``local_identity``) meets ``own``, the
    identities of ``real``."""
    try:
        st = os.stat(real)
    except OSError:
        return []
    found = []
    with contextlib.suppress(OSError):
        for place in sorted(Path("/sys/class/block").iterdir(), key=lambda p: _natural(p.name)):
            if not (place / "loop").is_dir():  # not a loop device, or one with no file
                continue
            node = f"/dev/{place.name}"
            if os.path.exists(node):
                beneath = set(local_identity(node))
            else:  # no node to ask: the file sysfs names, if it is still this one
                beneath = set()
                name = _read(place / "loop" / "backing_file") or ""
                with contextlib.suppress(OSError, ValueError):
                    other = os.stat(name)
                    if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
                        beneath.add(f"local:path:{real}")
            if own & beneath:
                found.append(node)
    return found


def _natural(name: str) -> list[object]:
    """``loop2`` before ``loop10``."""
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _uses(node: str, points: dict[str, list[str]]) -> list[str]:
    """What uses the loop device ``node``: where it or a partition of it is mounted or used
    as swap (``points``: ``_mount_points``), what holds it, else whether the kernel refuses
    to open it exclusively."""
    name = os.path.basename(node)
    uses = []
    for dev in [node] + [f"/dev/{p}" for p in sorted(_partitions(name))]:
        for point in points.get(dev, []):
            which = "" if dev == node else f"{dev} "
            swap = point == "swap"
            uses.append(f"{dev} used as swap" if swap else f"{which}mounted at {point}")
    with contextlib.suppress(OSError):
        held = sorted(p.name for p in (Path("/sys/class/block") / name / "holders").iterdir())
        if held:
            uses.append(f"held by {', '.join(held)}")
    if not uses and _claimed(node):
        uses.append("in use: the kernel refuses to open it exclusively")
    return uses


def _file_in_use(path: str, real: str) -> list[str]:
    """What holds the existing file ``real`` (``path`` as the spec names it): loop devices
    it backs (with where they are mounted and what holds them), its own mounts or swap."""
    problems = []
    points = _mount_points()
    for node in _loop_devices_of(real):
        uses = _uses(node, points)
        how = f" ({'; '.join(uses)})" if uses else ""
        problems.append(
            f"{path} is the backing file of loop device {node}{how}; fio must not write "
            f"under it: detach it (losetup -d {node}) once nothing uses it"
        )
    for point in points.get(real, []):
        problems.append(
            f"{path} is used as swap" if point == "swap" else f"{path} is mounted at {point}"
        )
    return problems


def _direct_io_problem(path: str) -> str | None:
    """Whether the filesystem that holds ``path`` accepts O_DIRECT (tmpfs does not) and, for
    a file still to be made, keeps the mark that tells raidsweep's scratch file from the
    user's files (a probe file beside it, removed again)."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECT", 0)
    try:
        if os.path.exists(path):
            os.close(os.open(path, flags))
        else:
            fd, probe = tempfile.mkstemp(dir=os.path.dirname(path) or ".", prefix=".rs-probe-")
            try:
                os.close(os.open(probe, flags))
                try:
                    os.setxattr(fd, SCRATCH_XATTR, scratch_mark(os.fstat(fd).st_ino))
                except OSError as exc:
                    if exc.errno not in _NO_XATTRS:
                        raise
                    return (
                        "its filesystem keeps no extended attributes, so raidsweep could not "
                        "know the file it makes there as its own when the sweep resumes; "
                        "create the file yourself and name it under platform_options.allow"
                    )
            finally:
                os.close(fd)
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
    if len(path) > 1 and path.endswith("/"):
        return [("target", f"{path} ends with a slash: a device or a file has none")]
    if os.path.islink(path) and _dangling(path):
        dest = os.readlink(path)
        return [("target", f"{path} is a link to {dest}, which does not exist")]
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
    if t.kind == "unreachable":
        return [("target", f"{path} cannot be looked at: {t.facts['reason']}")]
    listed = t.realpath in allowed
    problems: list[tuple[str, str]] = []
    # An existing file is the scratch file the spec asks for only if raidsweep made it (its
    # mark names its inode) and it has file_size bytes; any other is the user's and needs
    # the allow-list, whatever its size.
    not_ours = not_scratch_reason(t.realpath) if t.kind == "file" else None
    scratch = t.kind == "file" and file_size == t.size and not_ours is None
    if listed or scratch:
        pass
    elif t.kind == "file" and file_size is not None and t.size != file_size:
        problems.append(
            (
                "file_size",
                f"{path} exists with {t.size} bytes, not the {file_size} asked for; "
                "remove it, or name it under platform_options.allow to use it as it is",
            )
        )
    elif t.kind == "file" and file_size is not None:
        problems.append(
            (
                "allow",
                f"{path} exists and raidsweep did not make it ({not_ours}); fio overwrites "
                "it, so name it under platform_options.allow to confirm, or remove it to "
                "have raidsweep make its own",
            )
        )
    else:
        what = "a device" if t.kind == "block" else "an existing file"
        problems.append(
            (
                "allow",
                f"{path} is {what} not in the allow-list; fio overwrites it, so name it "
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
        held: list[str] = []
        with contextlib.suppress(OSError):
            held = sorted(p.name for p in holders.iterdir())
            if held:
                problems.append(("target", f"{path} is held by {', '.join(held)}"))
        if not held and not any(dev in mounted for dev in busy) and _claimed(t.realpath):
            problems.append(
                (
                    "target",
                    f"{path} is in use: the kernel refuses to open it exclusively (mounted, "
                    "perhaps in another mount namespace or as a member of a multi-device "
                    "filesystem, held by a partition in use, or opened exclusively by a "
                    "program)",
                )
            )
        points = _mount_points()
        for other in _sharing_storage(t.realpath):
            uses = _uses(other, points)
            if uses:
                problems.append(
                    (
                        "target",
                        f"{path} shares its storage with {other} ({'; '.join(uses)}): fio "
                        f"would write under it",
                    )
                )
        if t.size == 0:
            problems.append(("target", f"{path} has no capacity (size 0)"))
    else:
        # Allowed or raidsweep's own, a file is refused as a device is: while something uses
        # it as storage (a loop device, a mount, swap), or while it carries a filesystem.
        problems += [("target", msg) for msg in _file_in_use(path, t.realpath)]
    try:
        sig = _signature(t.realpath)
    except UnknownSignature as exc:
        sig = None
        if not overwrite_signatures:
            problems.append(
                (
                    "target",
                    f"{path}: whether it carries a filesystem or partition table cannot be "
                    f"told ({exc}); set overwrite_signatures: true to allow fio to destroy "
                    "whatever it carries",
                )
            )
    if sig and not overwrite_signatures:
        problems.append(
            (
                "target",
                f"{path} carries a {sig} signature; set overwrite_signatures: true to "
                "allow fio to destroy it",
            )
        )
    if t.kind == "file" and (problem := _direct_io_problem(t.realpath)):
        problems.append(("target", f"{path}: {problem}"))
    return problems
