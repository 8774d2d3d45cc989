"""A sweep's progress records: one per sweeper (``progress.json``, and ``progress-W.json`` for
``--worker W``), read as one.

Several workers share one sweep; each writes only its own record, so none overwrites
another's state. The sweep's state is read from all of them: it runs while one of its
workers' processes runs, has stopped early (``interrupted``) if any worker stopped before its
end or died, and has ``finished`` only when every worker has. Without this, the first worker
to run out of configurations wrote ``finished`` over a sweep another worker was still
measuring, and a killed worker's unmeasured configuration never showed.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path
from typing import Any

from sweeper.errors import StoreError
from sweeper.processes import pid_alive
from sweeper.store.files import RecordProblem, kind_of, read_checked
from sweeper.store.progress_record import checked_progress

#: the one sweeper's record, and a worker's
SINGLE = "progress.json"
_WORKER_FILE = re.compile(r"progress-(?P<worker>[A-Za-z0-9._-]+)\.json")
#: the largest progress record read (one is some 300 bytes, 2 KiB with a decision by evidence)
MAX_BYTES = 1024 * 1024


def progress_file(sweep_dir: Path, worker: str | None) -> Path:
    """Where ``worker``'s (None: the only sweeper's) progress record is kept."""
    return sweep_dir / (SINGLE if worker is None else f"progress-{worker}.json")


def _record_files(
    sweep_dir: Path, damaged: list[str] | None = None
) -> list[tuple[str | None, Path]]:
    """Where each sweeper's record may be, by worker: the only sweeper's place first. A sweep
    folder that cannot be listed is said in ``damaged`` (its workers' records are not read)."""
    paths: list[tuple[str | None, Path]] = [(None, sweep_dir / SINGLE)]
    try:
        names = sorted(os.listdir(sweep_dir))
    except (FileNotFoundError, NotADirectoryError):
        return paths
    except OSError as exc:
        problem = f"cannot be read ({exc.strerror}); its workers' progress records are left out"
        _said(damaged, f"{sweep_dir}: {problem}")
        return paths
    for name in names:
        found = _WORKER_FILE.fullmatch(name)
        if found:
            paths.append((found["worker"], sweep_dir / name))
    return paths


def read_records(
    sweep_dir: Path, damaged: list[str] | None = None
) -> dict[str | None, dict[str, Any]]:
    """Every sweeper's progress record, by worker (None: a sweep run without ``--worker``).
    A record that is not one (not JSON, not the shape raidsweep writes, a file of another
    kind: ``progress_record``, ``files.read_record``) is left out and said in ``damaged``,
    naming its file; a crash mid-write leaves none (they are written whole)."""
    records: dict[str | None, dict[str, Any]] = {}
    for worker, path in _record_files(sweep_dir, damaged):
        try:
            record = read_checked(
                path, max_bytes=MAX_BYTES, kind="progress record", check=checked_progress
            )
            if record is not None:
                records[worker] = record
        except RecordProblem as exc:
            _said(damaged, f"{exc}; left out")
        except ValueError as exc:
            _said(damaged, f"{path}: damaged ({exc}); left out")
    return records


def _said(damaged: list[str] | None, problem: str) -> None:
    if damaged is not None:
        damaged.append(problem)


def refuse_foreign_records(sweep_dir: Path) -> None:
    """StoreError naming the first place of a progress record that holds what raidsweep never
    writes there (a folder, a FIFO, a device, a link it cannot follow): a sweeper replaces its
    record (a folder in its place failed the sweep mid-way) and reads the others', so a sweep
    is refused before it changes anything. A damaged record of raidsweep's own kind (a
    regular file) is no reason: its sweeper writes it anew."""
    for _, path in _record_files(sweep_dir):
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            if not os.path.lexists(path):
                continue
            problem = "is a link to nowhere"
        except OSError as exc:
            problem = f"cannot be read ({exc.strerror})"
        else:
            if stat.S_ISREG(mode):
                continue
            problem = f"is {kind_of(mode)}"
        raise StoreError(
            f"{path}: {problem}, not a progress record as raidsweep writes one; remove it, then "
            "run again"
        )


def merged(records: dict[str | None, dict[str, Any]]) -> dict[str, Any] | None:
    """The sweep's progress as one record: the latest record's figures, with the state (and
    pid) that tells the whole sweep — ``running`` with a live worker's pid while any worker's
    process runs; otherwise ``interrupted`` if any worker stopped early or died while running;
    ``finished`` only if all have finished. Several workers add ``workers``: each one's state
    and pid."""
    if not records:
        return None
    if len(records) == 1:
        return next(iter(records.values()))
    latest = max(records.values(), key=lambda r: str(r.get("updated_at", "")))
    live = [r for r in records.values() if r.get("state") == "running" and pid_alive(r.get("pid"))]
    if live:
        state, pid = "running", live[0].get("pid")
    elif all(r.get("state") == "finished" for r in records.values()):
        state, pid = "finished", latest.get("pid")
    else:
        state, pid = "interrupted", latest.get("pid")
    workers = {
        (name or ""): {"state": r.get("state"), "pid": r.get("pid")} for name, r in records.items()
    }
    return latest | {"state": state, "pid": pid, "workers": workers}


def ended_worker_files(sweep_dir: Path) -> list[Path]:
    """The record files of workers whose process is not running (ended, or died); a damaged
    one is not among them (it is left as it is, for its reader to name)."""
    ended = []
    for worker, record in read_records(sweep_dir).items():
        if worker is not None and not (
            record.get("state") == "running" and pid_alive(record.get("pid"))
        ):
            ended.append(progress_file(sweep_dir, worker))
    return ended


def records_version(sweep_dir: Path) -> tuple[int, ...]:
    """Changes whenever any sweeper's progress record is written (their times of change)."""
    version = []
    for _, path in _record_files(sweep_dir):
        try:
            version.append(path.stat().st_mtime_ns)
        except OSError:  # none there, or one that cannot be read: its reader names it
            version.append(0)
    return tuple(version)
