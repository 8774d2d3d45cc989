"""Files written whole: a temporary file flushed, then linked or renamed to its name, so a
reader sees all of it or nothing; and the listing of the Parquet files a folder holds."""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from sweeper.errors import StoreError

#: a single-row file's texts longer than this many characters are compressed
_COMPRESS_FROM = 512


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_aside(folder: Path, data: bytes, prefix: str) -> Path:
    """``data`` in a new file of ``folder`` (made if need be), named ``<prefix>….tmp``,
    readable by all and on disk (fsync) when this returns: a write that is then put in place
    by a rename is whole or absent. A failed write leaves nothing behind."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=prefix, suffix=".tmp")
    try:
        os.fchmod(fd, 0o644)  # mkstemp's 0600 would hide results from other readers
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return Path(tmp)


def atomic_write_bytes(path: Path, data: bytes, *, replace: bool) -> bool:
    """Write ``data`` to ``path`` whole; with ``replace=False`` an existing file wins."""
    # The writer's pid in the name lets a later writer remove what a killed one left behind.
    tmp = write_aside(path.parent, data, f".{os.getpid()}-")
    try:
        if replace:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                return False
        fsync_dir(path.parent)
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def table_bytes(row: dict[str, Any], schema: pa.Schema) -> bytes:
    unknown = set(row) - set(schema.names)
    if unknown:
        raise ValueError(f"unknown columns for the store: {sorted(unknown)}")
    # One row: compressing a column pays a codec's set-up per column, worth it only for the
    # long texts (fio's JSON, the job file, the disclosure); a dictionary of one value is
    # pure overhead. Both cost more than the rest of the write (3.6 ms against 1.6 ms a run).
    # Nor do a row's statistics help a reader (its minimum and maximum are the row, the long
    # texts copied uncompressed): without them a run's file is 16 KB instead of 38.
    codecs = {
        name: "zstd" if isinstance(value, str | bytes) and len(value) > _COMPRESS_FROM else "none"
        for name, value in row.items()
    }
    table = pa.Table.from_pylist([row], schema=schema)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression=codecs, use_dictionary=False, write_statistics=False)
    return sink.getvalue().to_pybytes()


def parquet_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


def parquet_names(folder: Path) -> list[str]:
    """The visible Parquet files of ``folder`` (temporaries start with a dot)."""
    try:
        with os.scandir(folder) as entries:
            names = [e.name for e in entries]
    except (FileNotFoundError, NotADirectoryError):
        return []
    return [n for n in names if n.endswith(".parquet") and not n.startswith(".")]


def subfolders(folder: Path) -> list[str]:
    """The folders in ``folder`` (none where it is missing or a file); StoreError naming the
    folder when it cannot be read."""
    try:
        with os.scandir(folder) as entries:
            return [e.name for e in entries if e.is_dir() and not e.name.startswith(".")]
    except (FileNotFoundError, NotADirectoryError):
        return []
    except OSError as exc:
        raise StoreError(f"{folder}: cannot be read ({exc.strerror})") from None
