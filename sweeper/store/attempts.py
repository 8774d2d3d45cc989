"""A run's records wherever the store keeps them (its own files, in whichever sweep, and the
compacted parts): the record a run's detail shows, and each attempt at the run, once."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from sweeper.errors import StoreError
from sweeper.store.one_row import COMPACTED, is_run
from sweeper.store.wholeness import RESTORE, RUN_LAYOUT, keys_of_part, part_problem, reason
from sweeper.vocabulary import RUN_ID_RE


def run_record(root: Path, run_id: str) -> dict[str, Any] | None:
    """The run's good record, else its latest failed attempt; None when the store at
    ``root`` holds no run ``run_id``. StoreError naming the file when the run has no good
    record to show but a file that may hold it is damaged (not Parquet, or its columns)."""
    if not RUN_ID_RE.fullmatch(run_id):
        return None
    # The run's own files first, then the parts (a file compacted away meanwhile is in
    # a part by then); its good run if any, else its latest failed attempt.
    damaged: list[str] = []
    rows = _loose_records(root, run_id, damaged)
    if not any(r["status"] == "ok" for r in rows):
        rows += _compacted_records(root, run_id, damaged)
        if damaged:
            raise StoreError(f"run {run_id} cannot be shown: {'; '.join(damaged)}{RESTORE}")
    if not rows:
        return None
    return max(rows, key=_attempt_order)


def attempts(root: Path, run_id: str, damaged: list[str]) -> list[dict[str, Any]]:
    """Every record of the run once, in ``_attempt_order``; the damaged files that may hold
    one are left out, each said in ``damaged``."""
    if not RUN_ID_RE.fullmatch(run_id):
        return []
    # Every place, not the run files alone: a configuration compacted between a failed
    # attempt and the good run holds the attempt in a part and the good run in a file.
    found: list[str] = []
    rows = _loose_records(root, run_id, found) + _compacted_records(root, run_id, found)
    damaged += [f"{line}; left out" for line in found]
    # A compaction killed between writing its part and removing the run files leaves a
    # record in both: one attempt, kept once.
    unique = {_attempt_key(r): r for r in rows}
    return sorted(unique.values(), key=_attempt_order)


def nth_attempt(records: list[dict[str, Any]], run_id: str, attempt: int) -> dict[str, Any] | None:
    """The record of ``attempts``' ``attempt`` (1-based) among the run's ``records``; None
    when there is no run ``run_id``, ValueError naming the range when the run has no such
    attempt."""
    if not records:
        return None
    if not 1 <= attempt <= len(records):
        raise ValueError(f"attempt {attempt}: run {run_id} has attempts 1 to {len(records)}")
    return records[attempt - 1]


def _attempt_order(row: dict[str, Any]) -> tuple[bool, Any]:
    """Failed attempts by when they finished, the good run last (at most one per run)."""
    return (row["status"] == "ok", row["finished_at"])


def _attempt_key(row: dict[str, Any]) -> tuple[str, Any]:
    """What tells one attempt from another: a run's good record is one, its failed attempts
    are told apart by when they finished (as ``runs.put_run`` names their files)."""
    return (row["status"], None if row["status"] == "ok" else row["finished_at"])


def _loose_records(root: Path, run_id: str, damaged: list[str]) -> list[dict[str, Any]]:
    """The run's records in run files of its own: its good run and its failed attempts."""
    rows: list[dict[str, Any]] = []
    for pattern in (f"*/runs/*/{run_id}.parquet", f"*/runs/*/{run_id}.failed-*.parquet"):
        for path in root.glob(pattern):
            with contextlib.suppress(FileNotFoundError):
                rows += _rows_of_run(path, run_id, damaged)
    return rows


def _compacted_records(root: Path, run_id: str, damaged: list[str]) -> list[dict[str, Any]]:
    """The run's records in compacted parts."""
    rows: list[dict[str, Any]] = []
    for part in root.glob(f"*/{COMPACTED}/*.parquet"):
        with contextlib.suppress(FileNotFoundError):
            rows += _rows_of_run(part, run_id, damaged, part=True)
    return rows


def _may_hold(part: Path, run_id: str) -> bool:
    """Whether the compacted ``part`` holds run ``run_id`` (True when it cannot tell)."""
    try:
        return any(k[0] == run_id for k in keys_of_part(part))
    except StoreError:
        return True


def _rows_of_run(
    path: Path, run_id: str, damaged: list[str], *, part: bool = False
) -> list[dict[str, Any]]:
    """The records of run ``run_id`` in the file at ``path`` (a run file, or a compacted
    ``part``); a damaged file that holds it, or may, is added to ``damaged``."""
    if part and not _may_hold(path, run_id):
        return []
    problem = part_problem(path, RUN_LAYOUT)
    if problem is not None:
        damaged.append(f"{path}: {problem}")
        return []
    try:
        if part:
            return pq.read_table(path, filters=[("run_id", "=", run_id)]).to_pylist()
        table = pq.read_table(path)
    except FileNotFoundError:
        raise
    except (OSError, pa.ArrowException) as exc:  # its footer whole, its pages not
        damaged.append(f"{path}: damaged, not a whole Parquet file ({reason(exc)[:120]})")
        return []
    # only what is the run its name says (a swapped file is not)
    return [r for r in table.to_pylist() if is_run(r, run_id)]
