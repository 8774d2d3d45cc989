"""What the store trusts of what it reads: a stored run is the run its place is for, a
Parquet file is whole, a sweep's record names the sweep of its folder; and the queries that
keep one row per record."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from sweeper.errors import StoreError
from sweeper.store.records import RunAddress
from sweeper.untrusted import is_name

COMPACTED = "compacted"  # <sweep>/compacted/<config dir>.<ns>.parquet
# One row per stored record: a good run once per address, a failed attempt once per stamp.
ONE_ROW_PER_RECORD = (
    "QUALIFY row_number() OVER (PARTITION BY run_id, status, "
    "CASE WHEN status = 'ok' THEN NULL ELSE finished_at END ORDER BY finished_at) = 1"
)
#: whether a stored run is the run its place is for: its sweep is the one read, its run id
#: is the hash of its address (sweep, configuration, cell, repetition), and a run file's name
#: is that run id (a compacted part holds many runs, each checked by its hash)
ADDRESSED = (
    "(sweep_id = $1 AND run_id = substr(sha256(sweep_id || chr(31) || config_key || chr(31) || "
    "cell_key || chr(31) || CAST(repetition AS VARCHAR)), 1, 24) AND (filename LIKE "
    "'%/" + COMPACTED + "/%' OR regexp_extract(filename, '/([0-9a-f]{24})[^/]*$', 1) = run_id))"
)
#: one row per record among the runs that are what their place says (a swapped file's row
#: never takes the place of the good run it copies)
ONE_ROW_PER_ADDRESSED_RECORD = ONE_ROW_PER_RECORD.replace(
    "PARTITION BY run_id", "PARTITION BY addressed, run_id"
)
#: what names a stored run: read with every run, to check it is the run its place is for
IDENTITY = ("run_id", "sweep_id", "config_key", "cell_key", "repetition")


def runs_query(columns: list[str], include_failed: bool) -> str:
    """The read of ``columns`` of the runs (the view ``parts``, the sweep the parameter $1):
    one row per record, in the order of their addresses, and a column ``misplaced_run``
    holding, only for a run that is not what its place says, its file and address."""
    cols = ", ".join(f'"{n}"' for n in columns)
    # What the address check, the one row per record and the order need besides.
    needed = [n for n in (*IDENTITY, "status", "finished_at") if n not in columns]
    where = "" if include_failed else "WHERE status = 'ok'"
    # Column names and clauses are ours; the sweep is a parameter.
    inner = (
        f"SELECT {', '.join([cols, *needed])}, filename, "  # noqa: S608
        f"{ADDRESSED} AS addressed FROM parts {where}"
    )
    fields = ", ".join(f"'{n}': {n}" for n in ("filename", *IDENTITY))
    outer = f"SELECT {cols}, CASE WHEN addressed THEN NULL ELSE {{{fields}}} END"
    order = "ORDER BY config_key, cell_key, repetition, finished_at"
    return f"{outer} AS misplaced_run FROM ({inner} {ONE_ROW_PER_ADDRESSED_RECORD}) {order}"  # noqa: S608


def misplaced(table: pa.Table) -> list[str]:
    """What ``runs_query`` found not to be the run its place is for, each naming its file."""
    return [
        f"{r['filename']}: holds run {r['run_id']} of sweep {r['sweep_id']!r} "
        f"({r['config_key']} {r['cell_key']} #{r['repetition']}), not the run its place in "
        "the store is for; left out"
        for r in table["misplaced_run"].drop_null().to_pylist()
    ]


def record_keys(table: pa.Table) -> set[tuple[str, str, Any]]:
    """What identifies a stored record: a good run by its address, a failed attempt also by
    when it finished (its file's stamp)."""
    ids = table.column("run_id").to_pylist()
    statuses = table.column("status").to_pylist()
    finished = table.column("finished_at").cast(pa.int64()).to_pylist()
    return {
        (i, s, None if s == "ok" else f) for i, s, f in zip(ids, statuses, finished, strict=True)
    }


@functools.lru_cache(maxsize=8192)
def _part_keys(path: str, inode: int, mtime_ns: int) -> frozenset[tuple[str, str, Any]]:
    # Parts are immutable: keyed on the inode and mtime as well, a part's index is read once.
    del inode, mtime_ns
    return frozenset(record_keys(pq.read_table(path, columns=["run_id", "status", "finished_at"])))


def keys_of_part(path: Path) -> frozenset[tuple[str, str, Any]]:
    st = path.stat()
    return _part_keys(str(path), st.st_ino, st.st_mtime_ns)


def is_run(row: dict[str, Any], run_id: str) -> bool:
    """Whether a stored row is run ``run_id``: its id, and the hash of its address."""
    address = RunAddress(row["sweep_id"], row["config_key"], row["cell_key"], row["repetition"])
    return row["run_id"] == run_id == address.run_id


def unreadable_files(files: list[Path]) -> dict[Path, str]:
    """The files of ``files`` that are not readable Parquet, each with why."""
    bad = {}
    for f in files:
        try:
            pq.read_metadata(f)
        except FileNotFoundError:
            continue
        except (OSError, pa.ArrowException) as exc:
            bad[f] = f"damaged, not a whole Parquet file ({str(exc).splitlines()[0][:120]})"
    return bad


def has_schema(path: Path, schema: pa.Schema) -> bool:
    """Whether the Parquet file at ``path`` has exactly ``schema``'s columns (False when it
    cannot be read, e.g. compacted away meanwhile: the careful read handles that)."""
    try:
        return pq.read_schema(path).names == schema.names
    except (OSError, pa.ArrowException):
        return False


RESTORE = "; restore it from a copy, or remove the sweep's folder to start it anew"


def reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def sweep_record(path: Path, text: str) -> dict[str, Any]:
    """The record of ``<root>/<sweep>/sweep.json``: JSON, a mapping, naming the sweep of the
    folder it lies in; anything else is a StoreError naming the file (a crafted record must
    not send a report, or anything else, outside the store)."""
    try:
        record = json.loads(text)
    except json.JSONDecodeError as exc:
        raise StoreError(
            f"{path}: damaged (not JSON: {exc.msg}, line {exc.lineno}){RESTORE}"
        ) from None
    if not isinstance(record, dict):
        raise StoreError(f"{path}: damaged (not a sweep's record){RESTORE}")
    folder = path.parent.name
    if record.get("sweep_id") != folder or not is_name(folder):
        raise StoreError(
            f"{path}: names sweep {record.get('sweep_id')!r} but lies in the folder "
            f"{folder!r}; it is not used{RESTORE}"
        )
    problem = _spec_problem(record.get("spec"))
    if problem is not None:
        raise StoreError(f"{path}: damaged ({problem}){RESTORE}")
    return record


def _spec_problem(spec: Any) -> str | None:
    """Why a record holds no spec to read back, or None. What is in it is the spec's own to
    judge (``sweeper.spec``), where a command reads it."""
    return None if isinstance(spec, dict) else "no spec"
