"""Whether a Parquet file of the store is whole and of raidsweep's layout, judged once per
file as it is (its verdict kept, a file this process wrote judged unread); and the records
a run file or part holds, read only once it is judged so."""

from __future__ import annotations

import contextlib
import functools
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from sweeper.errors import StoreError
from sweeper.store.files import kind_of
from sweeper.store.footer import _OWN_SCHEMAS, _recognised
from sweeper.store.one_row import KEYS, RECORD_KEY, record_keys
from sweeper.store.records import CONFIG_SCHEMA, RUN_SCHEMA

RESTORE = "; restore it from a copy, or remove the sweep's folder to start it anew"


def reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


@dataclass(frozen=True, eq=False)  # compared (and cached) by identity: a handful of constants
class Layout:
    """What a table's Parquet files must be to be read: ``schema``'s columns (each of its
    type, or one read as it: ``reads_as``), ``required`` among them present in every file."""

    schema: pa.Schema
    required: tuple[str, ...] = ()


#: run files and compacted parts: what a read of runs needs of each besides its figures
RUN_LAYOUT = Layout(RUN_SCHEMA, KEYS)
#: a part's columns that name its records (``keys_of_part``)
RUN_KEYS = Layout(pa.schema([RUN_SCHEMA.field(n) for n in RECORD_KEY]), RECORD_KEY)
CONFIG_LAYOUT = Layout(CONFIG_SCHEMA)


def reads_as(found: pa.DataType, expected: pa.DataType) -> bool:
    """Whether a column stored as ``found`` reads as ``expected`` with every value and its
    meaning kept: the same type, a column of nulls alone, or the same kind of value held
    another way (an integer or a float of another width, a large or dictionary-encoded
    string, a timestamp of another unit in the same zone)."""
    if found == expected or pa.types.is_null(found):
        return True
    if pa.types.is_dictionary(found):
        return reads_as(found.value_type, expected)
    kinds = (pa.types.is_integer, pa.types.is_floating, _is_text)
    if any(kind(found) and kind(expected) for kind in kinds):
        return True
    return (
        pa.types.is_timestamp(found) and pa.types.is_timestamp(expected) and found.tz == expected.tz
    )


def _is_text(kind: pa.DataType) -> bool:
    return pa.types.is_string(kind) or pa.types.is_large_string(kind)


def schema_problem(found: pa.Schema, layout: Layout) -> str | None:
    """Why a file of columns ``found`` cannot be read as ``layout``, or None. A column the
    layout has not (a newer raidsweep's) is not read; one it has that the file has not (an
    older raidsweep's) reads as null, unless the layout requires it."""
    expected = {f.name: f.type for f in layout.schema}
    wrong = [
        f"column {f.name!r} is {f.type} where raidsweep writes {expected[f.name]}"
        for f in found
        if f.name in expected and not reads_as(f.type, expected[f.name])
    ]
    missing = [f"column {n!r} is missing" for n in layout.required if n not in found.names]
    problems = wrong + missing
    return f"damaged, {', '.join(problems)}" if problems else None


def part_problem(path: Path, layout: Layout) -> str | None:
    """Why the Parquet file at ``path`` cannot be read as ``layout`` (not Parquet, or its
    columns), or None; FileNotFoundError when it is gone (compacted away meanwhile)."""
    return _part_verdict(path, layout)[0]


#: the schemas of files this process wrote, by place and stamp: judged without reading them
_WRITTEN: dict[tuple[str, tuple[int, ...]], pa.Schema] = {}
_WRITTEN_MAX = 65536


def _stamp(path: Path) -> tuple[int, ...]:
    """What changes when a file is written anew: its inode, size, modification and change
    times (the change time no one can set back)."""
    return _stamp_of(path.stat())


def _stamp_of(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def note_written(path: Path, schema: pa.Schema) -> None:
    """Remember that the file at ``path``, as it is now, holds ``schema``: this process has
    just written it whole. A read then judges it without opening it (945 runs' footers take
    0.4 s to read)."""
    with contextlib.suppress(FileNotFoundError):
        _WRITTEN[(str(path), _stamp(path))] = schema
    if len(_WRITTEN) > _WRITTEN_MAX:
        del _WRITTEN[next(iter(_WRITTEN))]


def _part_verdict(path: Path, layout: Layout) -> tuple[str | None, bool]:
    st = _stat(path)
    if isinstance(st, str):
        return st, False
    return _judged(path, st, layout)


def _stat(path: Path) -> os.stat_result | str:
    """The file's ``stat``, or why it cannot be read; FileNotFoundError when it is gone."""
    try:
        return path.stat()
    except FileNotFoundError:
        raise
    except OSError as exc:  # a link loop, a folder of the path that cannot be looked at
        return f"cannot be read ({reason(exc)})"


def _judged(path: Path, st: os.stat_result, layout: Layout) -> tuple[str | None, bool]:
    """``_part_verdict`` of the file at ``path``, whose ``stat`` is ``st``."""
    # Only a regular file is opened: a FIFO would hang the reader (Arrow and DuckDB open
    # what they are given), /dev/zero behind a link would be read without end.
    if not stat.S_ISREG(st.st_mode):
        return f"{kind_of(st.st_mode)}, not a Parquet file (refused unread)", False
    return _verdict(str(path), _stamp_of(st), layout)


@functools.lru_cache(maxsize=65536)
def _verdict(path: str, stamp: tuple[int, ...], layout: Layout) -> tuple[str | None, bool]:
    # Keyed on the file's stamp: a file written anew is judged anew. Only the verdict is
    # kept, never the schema (100 columns, for each of 100,000 files).
    found = _WRITTEN.get((path, stamp))
    if found is None:
        found = _recognised(path)
    if found is None:
        try:
            found = pq.read_schema(path)
        except FileNotFoundError:
            raise
        except (OSError, pa.ArrowException) as exc:
            return _unreadable(exc), False
    own = next((i for i, s in enumerate(_OWN_SCHEMAS) if s is found), None)
    if own is not None:  # the same answer for every file of it (100 columns weighed each)
        return _own_verdict(own, layout)
    return schema_problem(found, layout), found == layout.schema


@functools.lru_cache(maxsize=16)
def _own_verdict(own: int, layout: Layout) -> tuple[str | None, bool]:
    """``_verdict`` of a file of ``_OWN_SCHEMAS[own]``."""
    found = _OWN_SCHEMAS[own]
    return schema_problem(found, layout), found == layout.schema


def damaged_parts(files: list[Path], layout: Layout) -> tuple[dict[Path, str], bool]:
    """The files of ``files`` that cannot be read as ``layout``, each with why; and whether
    every other one has exactly its schema (DuckDB may then take the first file's columns
    for all, sparing the reading of each file's by name). A file gone meanwhile is neither:
    the read that lists again finds what took its place."""
    damaged: dict[Path, str] = {}
    exact = True
    for f in files:
        try:
            problem, same = _part_verdict(f, layout)
        except FileNotFoundError:
            continue
        if problem is not None:
            damaged[f] = problem
        exact = exact and (same or problem is not None)
    return damaged, exact


def _unreadable(exc: BaseException) -> str:
    return f"damaged, not a whole Parquet file ({str(exc).splitlines()[0][:120]})"


def unreadable_files(files: list[Path]) -> dict[Path, str]:
    """The files of ``files`` that are not readable Parquet, each with why."""
    bad = {}
    for f in files:
        try:
            pq.read_metadata(f)
        except FileNotFoundError:
            continue
        except (OSError, pa.ArrowException) as exc:
            bad[f] = _unreadable(exc)
    return bad


@functools.lru_cache(maxsize=8192)
def _part_keys(path: str, inode: int, mtime_ns: int) -> frozenset[tuple[str, str, Any]]:
    # Parts are immutable: keyed on the inode and mtime as well, a part's index is read once.
    del inode, mtime_ns
    return frozenset(record_keys(pq.read_table(path, columns=list(RECORD_KEY))))


def keys_of_part(path: Path) -> frozenset[tuple[str, str, Any]]:
    """The records a compacted part holds; StoreError naming the part when its columns that
    name them cannot be read as raidsweep writes them."""
    return stored_keys(path, RUN_KEYS)


def stored_keys(path: Path, layout: Layout) -> frozenset[tuple[str, str, Any]]:
    """The records the run file or part at ``path`` holds, the file judged once as ``layout``
    (one that reads as ``RUN_LAYOUT`` reads as ``RUN_KEYS`` too); StoreError naming the file
    when it cannot be read so, FileNotFoundError when it is gone (compacted away meanwhile)."""
    st = _stat(path)
    problem = st if isinstance(st, str) else _judged(path, st, layout)[0]
    if problem is None:
        assert not isinstance(st, str)
        try:
            return _part_keys(str(path), st.st_ino, st.st_mtime_ns)
        except FileNotFoundError:
            raise
        except (OSError, pa.ArrowException) as exc:  # whole footer, damaged pages
            problem = _unreadable(exc)
    raise StoreError(f"{path}: {problem}{RESTORE}")
