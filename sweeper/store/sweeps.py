"""The sweeps' records of a store (``<root>/<sweep>/sweep.json``): a sweep's name checked
before it becomes a path, its record written whole, restated when the sweep resumes, read
within bounds and checked, and every sweep's listed newest first."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from sweeper.errors import StoreError
from sweeper.store.files import RecordProblem, atomic_write_bytes, read_checked, subfolders
from sweeper.store.progress import refuse_foreign_records
from sweeper.store.sweep_record_check import sweep_record
from sweeper.store.wholeness import RESTORE
from sweeper.untrusted import is_name

SWEEP_RECORD = "sweep.json"
#: the largest sweep record read: it holds the spec (a spec file is at most 1 MiB of YAML,
#: which JSON with its classes' paths may spell longer); one is some 3 KiB
MAX_SWEEP_RECORD_BYTES = 16 * 1024 * 1024


def sweep_folder(root: Path, sweep_id: str) -> Path:
    """The sweep's folder; a name that is not a sweep name (``../x``, a newline) never
    becomes a path."""
    if not is_name(sweep_id):
        raise StoreError(
            f"{sweep_id!r} is not a sweep name (letters, digits, '.', '_', '-'; at most 64)"
        )
    return root / sweep_id


def create_sweep(root: Path, sweep_id: str, record: dict[str, Any]) -> dict[str, Any]:
    """Register the sweep with ``record``, or return its existing record (restated, see
    ``_restated``) when the fingerprint matches; StoreError when it does not."""
    path = sweep_folder(root, sweep_id) / SWEEP_RECORD
    # What a sweeper is about to write first: refused before anything changes.
    refuse_foreign_records(path.parent)
    existing = get_sweep(root, sweep_id)
    if existing is not None:
        if existing.get("fingerprint") != record.get("fingerprint"):
            raise StoreError(
                f"sweep {sweep_id!r} already exists in {root} with a different spec "
                f"(fingerprint {existing.get('fingerprint')} vs {record.get('fingerprint')}); "
                "give the new spec another name, or remove the old sweep's folder"
            )
        return _restated(path, existing, record)
    _write_record(path, record, replace=False)
    return get_sweep(root, sweep_id) or record


def _restated(path: Path, existing: dict[str, Any], record: dict[str, Any]) -> dict[str, Any]:
    """The existing record, with the facts the spec states outside the fingerprint
    (``environment``: the fabric, the multipath software; the ``description``, words
    about the sweep) as the resuming spec states them: stating them on a sweep under way
    is how its disclosure becomes whole, and a description mended on resume is the one
    the reports show."""
    resumed = record.get("spec") or {}
    stated = resumed.get("environment") or {}
    spec = existing.get("spec")
    if not isinstance(spec, dict):
        return existing
    changes: dict[str, Any] = {}
    if (spec.get("environment") or {}) != stated:
        changes["environment"] = stated
    if "description" in resumed and resumed["description"] != spec.get("description"):
        changes["description"] = resumed["description"]
    if not changes:
        return existing
    updated = existing | {"spec": spec | changes}
    if "description" in changes and "description" in existing:
        updated["description"] = changes["description"]
    _write_record(path, updated, replace=True)
    return updated


def get_sweep(root: Path, sweep_id: str) -> dict[str, Any] | None:
    """The sweep's record, None where it has none; StoreError naming the file when it is
    damaged (``sweep_record``) or of another kind (``files.read_record``)."""
    return read_sweep(sweep_folder(root, sweep_id) / SWEEP_RECORD)


def read_sweep(path: Path) -> dict[str, Any] | None:
    """The sweep record at ``path`` (``files.read_checked``), None where there is none."""
    try:
        return read_checked(
            path,
            max_bytes=MAX_SWEEP_RECORD_BYTES,
            kind="sweep record",
            check=functools.partial(sweep_record, path),
        )
    except RecordProblem as exc:
        raise StoreError(f"{exc}{RESTORE}") from None


def list_sweeps(root: Path, damaged: list[str]) -> list[dict[str, Any]]:
    """The sweeps whose records are whole, newest first; each damaged one, and each entry of
    the store that cannot be looked at, is said in ``damaged``."""
    if not root.is_dir():
        return []
    out = []
    for folder in sorted(subfolders(root, damaged)):
        try:
            record = read_sweep(root / folder / SWEEP_RECORD)
        except StoreError as exc:
            damaged.append(str(exc))
            continue
        if record is not None:
            out.append(record)
    return sorted(out, key=_created, reverse=True)


def _write_record(path: Path, record: dict[str, Any], *, replace: bool) -> None:
    """A sweep's record as ``sweep.json``, written whole or not at all."""
    data = json.dumps(record, indent=2, sort_keys=True, default=str).encode()
    atomic_write_bytes(path, data, replace=replace)


def _created(record: dict[str, Any]) -> str:
    """When a sweep was created, as its record's ISO 8601 time sorts; a record that holds
    anything else there (a damaged or foreign one) sorts as the oldest, never fails the list."""
    created = record.get("created_at")
    return created if isinstance(created, str) else ""
