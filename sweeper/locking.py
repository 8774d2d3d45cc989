"""Exclusive locks on files: one writer at a time, one sweep per storage target.

Every lock is an ``flock`` on a file that is created and never removed (removing a lock file
races with the next taker). The kernel releases an ``flock`` when the process that holds it
dies, however it dies, so a killed sweep never leaves a lock that blocks forever; raidsweep's
descriptors are not inherited by the plays and fio it starts (Python opens them
close-on-exec), so an orphaned child cannot keep one either. The holder writes who it is
(host, pid, what it runs, since when) into the file, for the message the next taker gets; a
record whose process on this host is gone is a stale record, said as such.

- :func:`exclusive_lock` waits for its turn (the store's compaction, the lab's image build).
- :func:`hold` does not wait: a second sweep of one sweep (and worker), or a second sweep on
  one storage target, is refused at once with :class:`LockHeld`, naming the holder.
- :func:`target_lock_dir` is where the per-target locks live: machine-wide, since two sweeps
  in two stores may point at the same array. ``RAIDSWEEP_LOCK_DIR`` moves it; by default
  ``/run/lock/raidsweep`` (tmpfs, cleared at boot, shared by every user of the machine) where
  it can be written, else ``~/.cache/raidsweep/locks``. A lock is per machine: two machines
  driving one array (two load hosts, each with its own raidsweep) are not seen by it.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import socket
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sweeper.errors import InputError
from sweeper.processes import pid_alive


@contextlib.contextmanager
def exclusive_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path`` (created, never truncated) for the block; a
    second holder waits. The lock goes with the process, so a crash cannot leave it held."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


class LockHeld(InputError):
    """Another process holds the lock: exit status 2, naming it and what to do."""


def _record(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text() or "{}")
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def describe_holder(holder: dict[str, Any]) -> str:
    """``pid 1234 on host h (raidsweep run quick, since 2026-…)``, from a lock's record."""
    if not holder:
        return "another process (it has not yet written who it is)"
    what = f"{holder.get('what')}, " if holder.get("what") else ""
    return (
        f"pid {holder.get('pid')} on host {holder.get('host')} "
        f"({what}since {holder.get('since', 'an unknown time')})"
    )


def _advice(holder: dict[str, Any], path: Path) -> str:
    if holder.get("host") not in (None, socket.gethostname()):
        return (
            f"it runs on another host and cannot be checked from here: wait for it, or stop it "
            f"there; if it no longer runs, its lock file is {path}"
        )
    return (
        f"wait for it to finish, or stop it (Ctrl-C, or kill {holder.get('pid')}); a sweep that "
        "is killed releases its locks by itself, and running again resumes it"
    )


def _take(path: Path, subject: str, record: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The open, locked descriptor of ``path`` with ``record`` written in; LockHeld naming
    ``subject`` and the holder if another process holds it. Returns the stale record found,
    if any."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        holder = _record(path)
        raise LockHeld(
            subject, [f"in use by {describe_holder(holder)}: {_advice(holder, path)}"]
        ) from None
    except BaseException:
        os.close(fd)
        raise
    previous = _record(path)
    stale = previous if previous and not _alive(previous) else {}
    data = json.dumps(record | {"subject": subject}).encode()
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)
    return fd, stale


def _alive(holder: dict[str, Any]) -> bool:
    if holder.get("host") != socket.gethostname():
        return True  # cannot be told from here
    return pid_alive(holder.get("pid"))


def lock_record(what: str, **more: Any) -> dict[str, Any]:
    """What a holder writes into its lock: who, where, what, since when."""
    return {
        "what": what,
        "host": socket.gethostname(),
        "pid": os.getpid(),
        "since": datetime.now(UTC).isoformat(timespec="seconds"),
    } | more


@contextlib.contextmanager
def hold(locks: dict[Path, str], record: dict[str, Any]) -> Iterator[list[dict[str, Any]]]:
    """Hold every lock of ``locks`` (lock file -> what it guards, taken in the given order,
    none waited for, so no order can deadlock) for the block; LockHeld naming what and who
    if any is held elsewhere, and then none is kept. Yields the stale records found (a
    holder recorded on this host whose process is gone)."""
    taken: list[int] = []
    stale: list[dict[str, Any]] = []
    try:
        for path in locks:
            fd, found = _take(path, locks[path], record)
            taken.append(fd)
            if found:
                stale.append(found)
        yield stale
    finally:
        for fd in taken:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, 0)  # no record of a holder that is gone
            os.close(fd)  # closing releases the flock


def target_lock_dir() -> Path:
    """The machine-wide folder of the storage targets' locks (see the module's text)."""
    given = os.environ.get("RAIDSWEEP_LOCK_DIR")
    if given:
        return Path(given)
    run_lock = Path("/run/lock")
    if run_lock.is_dir() and os.access(run_lock, os.W_OK | os.X_OK):
        return run_lock / "raidsweep"
    return Path.home() / ".cache" / "raidsweep" / "locks"


def target_locks(identities: Sequence[str]) -> dict[Path, str]:
    """One lock file per storage target identity (``local:dev:8:16``, ``ssh:host:22:/dev/…``),
    each with what it guards."""
    folder = target_lock_dir()
    return {
        folder / f"{hashlib.sha256(i.encode()).hexdigest()[:32]}.lock": f"storage target {i}"
        for i in identities
    }
