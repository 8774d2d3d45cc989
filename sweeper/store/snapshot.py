"""A finished sweep's runs in one file, for readers that want them all.

Reading 100,000 runs from their parts costs DuckDB two seconds (opening some 800 files,
checking each run against its address, keeping one row per record), and 1,080 runs in files
of their own more than one; the same rows read from one file take a tenth of that. A sweep
that has finished (and ``compact`` of a whole sweep) writes ``<sweep>/snapshot.parquet``: the
checked read of every attempt, with what the read left out as damaged, under a fingerprint
of the files it was read from (their names, inodes, sizes and change times). A reader
uses the snapshot only while the store holds exactly those files, so it always returns what
the careful read of the parts would; a run stored, compacted, swapped or damaged since
changes the fingerprint and the reader reads the parts. The snapshot is replaced whole,
never edited: a reader sees one snapshot or another.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from sweeper.store.files import atomic_write_bytes, parquet_bytes
from sweeper.store.records import RUN_SCHEMA
from sweeper.store.wholeness import RUN_LAYOUT, schema_problem
from sweeper.untrusted import control_problem, text_control_problem

SNAPSHOT = "snapshot.parquet"
_FINGERPRINT = b"raidsweep.fingerprint"
_DAMAGED = b"raidsweep.damaged"


def fingerprint(root: Path, files: Sequence[Path]) -> str | None:
    """What a read of ``files`` depends on: each file's place, inode, size, and modification
    and change times (a write changes the change time, which no one can set back), and the
    runs table's schema; None when a file went away meanwhile."""
    digest = hashlib.sha256(str(RUN_SCHEMA).encode())
    for f in files:
        try:
            st = os.stat(f)
        except OSError:  # gone meanwhile, or a file no read takes (a link loop)
            return None
        digest.update(
            f"{f.relative_to(root)}\0{st.st_ino}\0{st.st_size}\0{st.st_mtime_ns}\0"
            f"{st.st_ctime_ns}\n".encode()
        )
    return digest.hexdigest()


def write_snapshot(path: Path, table: pa.Table, print_: str, damaged: list[str]) -> None:
    """Replace the snapshot at ``path`` with ``table`` (every checked attempt), read from the
    files of fingerprint ``print_``, and the damaged files that read left out."""
    meta = {_FINGERPRINT: print_.encode(), _DAMAGED: json.dumps(damaged).encode()}
    stamped = table.replace_schema_metadata({**(table.schema.metadata or {}), **meta})
    atomic_write_bytes(path, parquet_bytes(stamped), replace=True)


def _regular(path: Path) -> bool:
    """Whether ``path`` is a regular file: Arrow opens whatever it is given, and a FIFO in
    the snapshot's place would hang the reader (the parts are read instead)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def read_snapshot(
    path: Path, print_: str | None, columns: list[str], *, include_failed: bool
) -> tuple[pa.Table, list[str]] | None:
    """The runs of the snapshot at ``path`` (their ``columns``, the good ones only unless
    ``include_failed``) and the damaged files it left out, if it was read from the files of
    fingerprint ``print_`` and its columns are what raidsweep writes; otherwise None."""
    if print_ is None or not _regular(path):
        return None
    try:
        snapshot = pq.ParquetFile(path)  # one open: its fingerprint and rows go together
    except (OSError, pa.ArrowException):
        return None
    with snapshot:
        meta = snapshot.schema_arrow.metadata or {}
        if meta.get(_FINGERPRINT) != print_.encode():
            return None
        if schema_problem(snapshot.schema_arrow, RUN_LAYOUT) is not None:
            return None  # written from a damaged part by an older raidsweep: read the parts
        damaged = _damaged(meta.get(_DAMAGED, b"[]"))
        if damaged is None:
            return None  # not what raidsweep writes there: read the parts
        table = snapshot.read(columns=list(dict.fromkeys([*columns, "status"])))
    if not include_failed:
        table = table.filter(pc.equal(table["status"], "ok"))
    return table.select(columns).replace_schema_metadata(None), damaged


def _damaged(kept: bytes) -> list[str] | None:
    """The damaged files a snapshot's read left out, as it keeps them (a JSON list of lines,
    each printed as a warning: no control character), or None when it is not that."""
    try:
        lines = json.loads(kept)
    except (ValueError, RecursionError):
        return None
    if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
        return None
    if any(text_control_problem(line) or control_problem(line) for line in lines):
        return None
    return lines
