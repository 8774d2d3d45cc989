"""Which stored row is which record: what names a stored run and a record, and the queries
of runs that keep one row per record and find a run that is not the run its place is for."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from sweeper.store.address_check import CHECKED
from sweeper.store.records import RunAddress

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
#: what a read of runs needs of every stored run besides: its name, status and end (the one
#: row per record, and the order, are of these)
KEYS = (*IDENTITY, "status", "finished_at")


def runs_query(columns: list[str], include_failed: bool) -> str:
    """The read of ``columns`` of the runs (the view ``parts``, the sweep the parameter $1):
    one row per record, in the order of their addresses, a column ``misplaced_run``
    holding, only for a run that is not what its place says, its file and address, and the
    columns ``address_check.CHECKED`` (every run's file and the parts of its address that
    readers parse, checked by ``address_check.badly_addressed``)."""
    cols = ", ".join(f'"{n}"' for n in columns)
    # What the address check, the one row per record and the order need besides.
    needed = [n for n in KEYS if n not in columns]
    where = "" if include_failed else "WHERE status = 'ok'"
    # Column names and clauses are ours; the sweep is a parameter.
    inner = (
        f"SELECT {', '.join([cols, *needed])}, filename, "  # noqa: S608
        f"{ADDRESSED} AS addressed FROM parts {where}"
    )
    fields = ", ".join(f"'{n}': {n}" for n in ("filename", *IDENTITY))
    checked = ", ".join(f'"{source}" AS "{name}"' for name, source in CHECKED.items())
    outer = f"SELECT {cols}, {checked}, CASE WHEN addressed THEN NULL ELSE {{{fields}}} END"
    order = "ORDER BY config_key, cell_key, repetition, finished_at"
    return f"{outer} AS misplaced_run FROM ({inner} {ONE_ROW_PER_ADDRESSED_RECORD}) {order}"  # noqa: S608


def misplaced(table: pa.Table) -> list[tuple[str, str]]:
    """What ``runs_query`` found not to be the run its place is for: each one's file, and
    what it holds instead."""
    return [
        (
            r["filename"],
            f"holds run {r['run_id']} of sweep {r['sweep_id']!r} ({r['config_key']} "
            f"{r['cell_key']} #{r['repetition']}), not the run its place in the store is for",
        )
        for r in table["misplaced_run"].drop_null().to_pylist()
    ]


#: what identifies a stored record (``record_keys``)
RECORD_KEY = ("run_id", "status", "finished_at")


def record_keys(table: pa.Table) -> set[tuple[str, str, Any]]:
    """What identifies a stored record: a good run by its address, a failed attempt also by
    when it finished (its file's stamp)."""
    ids = table.column("run_id").to_pylist()
    statuses = table.column("status").to_pylist()
    finished = table.column("finished_at").cast(pa.int64()).to_pylist()
    return {
        (i, s, None if s == "ok" else f) for i, s, f in zip(ids, statuses, finished, strict=True)
    }


def is_run(row: dict[str, Any], run_id: str) -> bool:
    """Whether a stored row is run ``run_id``: its id, and the hash of its address."""
    address = RunAddress(row["sweep_id"], row["config_key"], row["cell_key"], row["repetition"])
    return row["run_id"] == run_id == address.run_id
