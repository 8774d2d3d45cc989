"""Exclusive locks on files: one writer at a time, one sweep per storage target.

Every lock is an ``flock`` on a file that is created and never removed (removing a lock file
races with the next taker). The kernel releases an ``flock`` when the process that holds it
dies, however it dies, so a killed sweep never leaves a lock that blocks forever; raidsweep's
descriptors are not inherited by the plays and fio it starts (Python opens them
close-on-exec), so an orphaned child cannot keep one either. The holder writes who it is
(host, pid, what it runs, sweep, store, worker, since when) into the file, for the message
the next taker gets, and empties it when it lets go.

Stale locks, where the ``flock`` cannot tell: a lock still held although the process
recorded in it, on this host, is gone (a descriptor some other process kept, a lock on a
network filesystem that outlived its client) is watched for :data:`STALE_GRACE_S` and then
taken over: a fresh lock file is renamed into its place, one taker at a time. A holder
recorded on another host cannot be checked from here: the message names that host and the
lock file, and says to stop it there.

- :func:`exclusive_lock` waits for its turn (the store's compaction, the lab's image build).
- :func:`take_turn` waits a while for its turn, then refuses with :class:`LockHeld` naming
  the holder; its lock file is removed when let go, for a lock beside a user's own files
  (the set of a report's files: two ``raidsweep report -o same.html`` take turns).
- :func:`hold` does not wait: a second sweep of one sweep (and worker), or a second sweep on
  one storage target, is refused at once with :class:`LockHeld` (exit status 2), naming the
  holder and what to do.
- :func:`claim` does not wait either, nor refuse: a worker finding another at the same work
  (measuring a configuration's lost runs again) passes it by.
- :func:`holders` says who holds which of some locks, taking and creating nothing: for
  ``--check`` and ``plan``, and to refuse a sweep before its first (read-only) play.
- :func:`target_lock_dir` is where the per-target locks live: machine-wide, since two sweeps
  in two stores may point at the same array. ``RAIDSWEEP_LOCK_DIR`` moves it; by default
  ``/run/lock/raidsweep`` (tmpfs, cleared at boot, shared by every user of the machine) where
  it can be written, else ``~/.cache/raidsweep/locks``; ``RAIDSWEEP_LOCK_DIR`` must be an
  absolute path (:func:`lock_dir_problem`), and the commands check the folder before they
  write anything (``sweeper.cli.common.lock_folder_problem``). A lock is per machine: two
  machines driving one array (two load hosts, each with its own raidsweep) are not seen by
  it. Each target identity (``local:dev:8:16``, ``linux_md:10.0.0.5:22:dev:/dev/disk/by-id/…``)
  is one file named by its hash; a sweep holds one per part of the storage it drives, so two
  sweeps conflict when they share any part.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import socket
import time
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sweeper.errors import InputError
from sweeper.processes import pid_alive
from sweeper.untrusted import folder_text_problem


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
    resume = ", and running again resumes it" if holder.get("sweep") else ""
    return (
        f"wait for it to finish, or stop it (Ctrl-C, or kill {holder.get('pid')}); a process "
        f"that is killed releases its locks by itself{resume}"
    )


#: how long a lock found held is watched before its holder is judged: a taker writes who it
#: is right after its ``flock``, and a ``--check`` may probe a lock for a moment
SETTLE_S = 0.5
#: how long a lock that is held, though its recorded holder on this host is gone, is watched
#: for a living holder before it is taken over
STALE_GRACE_S = 2.0


def _held(path: Path, subject: str, holder: dict[str, Any]) -> LockHeld:
    return LockHeld(subject, [f"in use by {describe_holder(holder)}: {_advice(holder, path)}"])


def _flock_within(fd: int, seconds: float) -> bool:
    """Whether the exclusive ``flock`` of ``fd`` was had within ``seconds`` (never blocks)."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)


def _identity(path: Path | int) -> tuple[int, int] | None:
    try:
        st = os.fstat(path) if isinstance(path, int) else os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


def _take(path: Path, subject: str, record: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """The open, locked descriptor of ``path`` with ``record`` written in; LockHeld naming
    ``subject`` and the holder if another process holds it. Returns the stale record found,
    if any: one whose process is gone (its lock released by the kernel, or — where ``flock``
    could not tell, the file still locked — taken over, see :func:`_take_over`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        if _flock_within(fd, SETTLE_S):
            previous = _record(path)
            stale = previous if _gone(previous) else {}
        else:
            seen = _identity(fd)
            os.close(fd)
            fd = -1
            holder = _stale_holder(path)
            if not holder:
                raise _held(path, subject, _record(path))
            fd = _take_over(path, subject, seen)
            stale = holder
        data = json.dumps(record | {"subject": subject}).encode()
        os.ftruncate(fd, 0)
        os.pwrite(fd, data, 0)
        return fd, stale
    except BaseException:
        if fd >= 0:
            os.close(fd)
        raise


def _stale_holder(path: Path) -> dict[str, Any]:
    """The record of ``path``'s holder if that holder is gone although the lock is held (a
    descriptor kept by some other process, a lock on a network filesystem that outlived its
    client), watched for :data:`STALE_GRACE_S`; ``{}`` while a living holder may hold it."""
    deadline = time.monotonic() + STALE_GRACE_S
    while True:
        holder = _record(path)
        if not _gone(holder):
            return {}
        if time.monotonic() >= deadline:
            return holder
        time.sleep(0.1)


def _take_over(path: Path, subject: str, seen: tuple[int, int] | None) -> int:
    """A fresh lock file, locked, put in the place of ``path`` (whose lock is held on behalf
    of a holder that is gone): the old file, lock and all, is unlinked by the rename. One
    taker at a time, and only while ``path`` is still the file seen held (``seen``): a
    second taker finds the first's lock and is refused naming it."""
    guard = os.open(
        path.with_name(path.name + ".takeover"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644
    )
    try:
        if not _flock_within(guard, STALE_GRACE_S):
            raise _held(path, subject, _record(path))
        if _identity(path) != seen:  # taken over (or released and retaken) meanwhile
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            if _flock_within(fd, SETTLE_S):
                return fd
            os.close(fd)
            raise _held(path, subject, _record(path))
        fresh = path.with_name(f".{path.name}.{os.getpid()}.new")
        fd = os.open(fresh, os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            os.rename(fresh, path)
        except BaseException:
            os.close(fd)
            with contextlib.suppress(OSError):
                fresh.unlink()
            raise
        return fd
    finally:
        os.close(guard)  # releases the guard


def _gone(holder: dict[str, Any]) -> bool:
    """Whether a lock's recorded holder is known to be gone: on this host, its pid dead. A
    holder on another host cannot be told from here, and a lock with no record yet has a
    holder about to write one."""
    if not holder or holder.get("host") != socket.gethostname():
        return False
    pid = holder.get("pid")
    return not (isinstance(pid, int) and pid_alive(pid))


def holders(locks: dict[Path, str]) -> list[LockHeld]:
    """Which of ``locks`` another process holds now, each as the LockHeld a taker would get;
    creates nothing and takes nothing (it may probe a lock for an instant: a taker waits
    :data:`SETTLE_S` for that). For ``--check`` and ``plan``, which change nothing but say
    who is at work, and to refuse before the first play a sweep that could not go on."""
    found = []
    for path, subject in locks.items():
        holder = holder_of(path)
        if holder is not None:
            found.append(_held(path, subject, holder))
    return found


def holder_of(path: Path) -> dict[str, Any] | None:
    """The record of the process that holds ``path``'s lock now (``{}`` while it has not yet
    written who it is); None when nobody does: no such file, the lock free, or held on behalf
    of a holder on this host that is gone (the next taker takes it over). Creates and takes
    nothing (it may probe the lock for an instant: a taker waits :data:`SETTLE_S` for that)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:  # no lock file: never taken here
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _record(path)
        return None if _gone(holder) else holder  # one that is gone will be taken over
    except OSError:
        return None  # a filesystem without locks: the taker will say
    finally:
        os.close(fd)  # closing releases the probe
    return None


@contextlib.contextmanager
def take_turn(path: Path, subject: str, record: dict[str, Any], *, wait_s: float) -> Iterator[None]:
    """Hold the exclusive ``flock`` of ``path`` for the block, with ``record`` written in;
    wait up to ``wait_s`` seconds for the holder ahead (0: not at all), then LockHeld naming
    ``subject``, that holder and what to do. The lock goes with the process.

    Unlike the other locks here the file is made for the holding and removed when let go
    (a lock beside a user's files leaves nothing there): the holder removes it while it
    still holds it, and a taker that got the lock of a file no longer at ``path`` (removed
    by the holder ahead) takes the one there now. A holder that is killed leaves the file,
    unlocked; the next taker takes it and removes it in turn."""
    fd = _take_turn(path, subject, record, wait_s)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            # still this holder's file: a taker makes a new one only where there is none
            path.unlink()
        os.close(fd)  # closing releases the flock


def _take_turn(path: Path, subject: str, record: dict[str, Any], wait_s: float) -> int:
    """The open, locked descriptor of the file at ``path`` (see :func:`take_turn`)."""
    deadline = time.monotonic() + wait_s
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            if not _flock_within(fd, max(0.0, deadline - time.monotonic())):
                holder = _record(path)
                waited = f" for more than {wait_s:g} s" if wait_s > 0 else ""
                raise LockHeld(
                    subject,
                    [f"in use by {describe_holder(holder)}{waited}: {_advice(holder, path)}"],
                )
            if _identity(fd) == _identity(path):
                os.ftruncate(fd, 0)
                os.pwrite(fd, json.dumps(record | {"subject": subject}).encode(), 0)
                return fd
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # removed (or replaced) by the holder ahead as it let go: again


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


@contextlib.contextmanager
def claim(path: Path, subject: str, record: dict[str, Any]) -> Iterator[bool]:
    """Hold ``path``'s lock for the block if no other process holds it, yielding True; else
    yield False, nothing taken (the holder does the work the lock guards: the taker passes
    it by). A lock of a holder that is gone is taken, as :func:`hold` takes it."""
    try:
        fd, _ = _take(path, subject, record)
    except LockHeld:
        yield False
        return
    try:
        yield True
    finally:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)  # no record of a holder that is gone
        os.close(fd)  # closing releases the flock


#: the environment variable that moves the machine-wide folder of the targets' locks
LOCK_DIR_ENV = "RAIDSWEEP_LOCK_DIR"


def lock_dir_problem(value: str) -> str | None:
    """Why ``value`` (``RAIDSWEEP_LOCK_DIR``'s) cannot name the folder of the targets' locks,
    or None; from its text alone (the folder itself is looked at by
    ``sweeper.cli.common.lock_folder_problem``). It is refused empty (as an empty
    ``RAIDSWEEP_STORE`` is: ``"$UNSET"`` must not choose a folder), relative (each working
    folder would be a lock folder of its own, and two sweeps of one array started from two
    folders would not see each other), with template syntax or control characters, and where
    it is not UTF-8 text (a lock names its folder to the next taker)."""
    problem = folder_text_problem(value, "lock folder")
    if problem is not None:
        return problem
    if not os.path.isabs(value):
        return (
            f"{value!r} is not an absolute path: the lock folder is machine-wide, the same "
            "for every sweep whatever folder it runs from"
        )
    return None


def target_lock_dir() -> Path:
    """The machine-wide folder of the storage targets' locks (see the module's text);
    InputError naming ``RAIDSWEEP_LOCK_DIR`` where it cannot name one
    (:func:`lock_dir_problem`)."""
    given = os.environ.get(LOCK_DIR_ENV)
    if given is not None:
        problem = lock_dir_problem(given)
        if problem is not None:
            raise InputError(LOCK_DIR_ENV, [problem])
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
        # os.fsencode: an identity holds a path, and a path need not be UTF-8 text
        folder / f"{hashlib.sha256(os.fsencode(i)).hexdigest()[:32]}.lock": f"storage target {i}"
        for i in identities
    }


def canonical_host(address: str) -> str:
    """One spelling of a host for a target identity: its first address as the resolver
    gives it (``lab``, ``LAB.example.`` and ``10.0.0.5`` are one host), else the name as
    written, in lower case. The resolver is asked once per sweep, before the lock."""
    name = address.strip().rstrip(".").lower()
    try:
        infos = socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return name
    addresses = sorted({str(info[4][0]) for info in infos})
    return addresses[0] if addresses else name
