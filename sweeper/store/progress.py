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

import json
import re
from pathlib import Path
from typing import Any

from sweeper.processes import pid_alive

#: the one sweeper's record, and a worker's
SINGLE = "progress.json"
_WORKER_FILE = re.compile(r"progress-(?P<worker>[A-Za-z0-9._-]+)\.json")


def progress_file(sweep_dir: Path, worker: str | None) -> Path:
    """Where ``worker``'s (None: the only sweeper's) progress record is kept."""
    return sweep_dir / (SINGLE if worker is None else f"progress-{worker}.json")


def _record_files(sweep_dir: Path) -> list[tuple[str | None, Path]]:
    """Where each sweeper's record may be, by worker: the only sweeper's place first."""
    paths: list[tuple[str | None, Path]] = [(None, sweep_dir / SINGLE)]
    if sweep_dir.is_dir():
        for path in sorted(sweep_dir.iterdir()):
            found = _WORKER_FILE.fullmatch(path.name)
            if found:
                paths.append((found["worker"], path))
    return paths


def read_records(sweep_dir: Path) -> dict[str | None, dict[str, Any]]:
    """Every sweeper's progress record, by worker (None: a sweep run without ``--worker``);
    a record that cannot be read (a crash mid-write leaves none: they are written whole) is
    left out."""
    records: dict[str | None, dict[str, Any]] = {}
    for worker, path in _record_files(sweep_dir):
        try:
            record = json.loads(path.read_text())
        except (FileNotFoundError, NotADirectoryError, json.JSONDecodeError, UnicodeDecodeError):
            continue
        if isinstance(record, dict):
            records[worker] = record
    return records


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
    """The record files of workers whose process is not running (ended, or died)."""
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
        except (FileNotFoundError, NotADirectoryError):
            version.append(0)
    return tuple(version)
