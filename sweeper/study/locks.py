"""The study's locks: a PostgreSQL advisory lock, the flock of the journal's appends, and
the lock that serialises one worker's read-then-write steps on the study."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import optuna

#: how long a sweeper waits for the study's lock before it stops with StudyLockedError
LOCK_TIMEOUT_S = 120.0


class StudyLockedError(RuntimeError):
    """The study's lock stayed taken past LOCK_TIMEOUT_S."""


def _advisory_key(name: str) -> int:
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:7], "big")


@contextlib.contextmanager
def _pg_lock(engine: Any, name: str) -> Iterator[None]:
    from sqlalchemy import text

    with engine.connect() as conn:
        conn.execute(text("SELECT pg_advisory_lock(:k)"), {"k": _advisory_key(name)})
        try:
            yield
        finally:
            conn.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": _advisory_key(name)})


class JournalFlock:
    """The lock of each append to the study's journal, on flock(2), which the kernel releases
    when its process ends however it ends. Optuna's own journal locks are files (a symlink,
    or one made with O_EXCL) that outlive a process killed while holding one: the next
    sweeper then waits 30 s for Optuna to call it stale. Threads of one process take turns
    through a thread lock; processes through the file's flock."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._threads = threading.Lock()
        self._fd: int | None = None

    def acquire(self) -> bool:
        self._threads.acquire()
        try:
            fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except BaseException:
                os.close(fd)
                raise
        except BaseException:
            self._threads.release()
            raise
        self._fd = fd
        return True

    def release(self) -> None:
        fd, self._fd = self._fd, None
        try:
            if fd is not None:
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
        finally:
            self._threads.release()


@contextlib.contextmanager
def study_lock(storage: optuna.storages.BaseStorage, sweep_dir: Path) -> Iterator[None]:
    """Serialise one worker's read-then-write steps on the study against the others'.

    Enqueueing the grid, or choosing a configuration and claiming it, must not interleave
    with another sweeper's: two would enqueue the grid twice, or build the same point. A
    PostgreSQL advisory lock for a shared database; a file lock for a journal beside the store.
    """
    if isinstance(storage, optuna.storages.RDBStorage):
        with _pg_lock(storage.engine, f"raidsweep-study-{sweep_dir.name}"):
            yield
        return
    sweep_dir.mkdir(parents=True, exist_ok=True)
    with open(sweep_dir / "study.lock", "a") as fh:
        # Another sweeper holds it for one ask or tell (milliseconds); one holding it for
        # minutes has hung, and waiting for ever would hang this sweep too.
        deadline = time.monotonic() + LOCK_TIMEOUT_S
        while True:
            try:
                fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise StudyLockedError(
                        f"the study of {sweep_dir.name} is locked by another process "
                        f"({sweep_dir / 'study.lock'}) for more than {LOCK_TIMEOUT_S:g} s"
                    ) from None
                time.sleep(0.05)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
