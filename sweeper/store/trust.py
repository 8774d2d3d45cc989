"""What the store trusts of what it reads: a stored run is the run its place is for, a
Parquet file is whole, a sweep's record names the sweep of its folder; and the queries that
keep one row per record."""

from __future__ import annotations

import contextlib
import functools
import os
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from sweeper.errors import StoreError
from sweeper.store.files import kind_of
from sweeper.store.records import CONFIG_SCHEMA, RUN_SCHEMA, RunAddress
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
#: what a read of runs needs of every stored run besides: its name, status and end (the one
#: row per record, and the order, are of these)
KEYS = (*IDENTITY, "status", "finished_at")


def runs_query(columns: list[str], include_failed: bool) -> str:
    """The read of ``columns`` of the runs (the view ``parts``, the sweep the parameter $1):
    one row per record, in the order of their addresses, and a column ``misplaced_run``
    holding, only for a run that is not what its place says, its file and address."""
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
    outer = f"SELECT {cols}, CASE WHEN addressed THEN NULL ELSE {{{fields}}} END"
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


def is_run(row: dict[str, Any], run_id: str) -> bool:
    """Whether a stored row is run ``run_id``: its id, and the hash of its address."""
    address = RunAddress(row["sweep_id"], row["config_key"], row["cell_key"], row["repetition"])
    return row["run_id"] == run_id == address.run_id


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


# recognising raidsweep's own files ----------------------------------------------------------
# Arrow takes 0.25 ms to parse a run file's footer (12 KB: 100 columns' metadata and the Arrow
# schema) and as long again to make its schema: 1,500 run files cost 0.7 s before DuckDB
# reads them. A Parquet file's footer is a Thrift struct (``FileMetaData``) that begins with
# its format version and its columns (field 2, ``schema``: every column's name, physical and
# logical type, repetition), serialised the same way by the same writer whatever the rows: a
# footer whose first bytes are those of a file this raidsweep writes holds exactly its
# columns, which is all the check asks of it. Any other footer (another writer, another
# raidsweep's columns, damage) is parsed by Arrow as before. What follows the columns (the row
# groups) is parsed by whoever reads the rows: DuckDB, or Arrow, each of which names a file it
# cannot read (``unreadable_files``).

#: the schemas raidsweep writes its files with, recognised by their footers' first bytes
_OWN_SCHEMAS = (RUN_SCHEMA, CONFIG_SCHEMA)
_MAGIC = b"PAR1"
#: the longest footer read to recognise a file (a run file's is some 12 KB)
_FOOTER_MAX = 1 << 20


def _recognised(path: str) -> pa.Schema | None:
    """The schema of the Parquet file at ``path`` when its footer begins as a file of one of
    ``_OWN_SCHEMAS`` written by this process's Arrow does; None when it does not, or the
    file cannot be read here (Arrow then judges it, and says why)."""
    try:
        footer = _footer(path)
    except OSError:
        return None
    if footer is None:
        return None
    return next((s for s in _OWN_SCHEMAS if footer.startswith(_columns_prefix(s))), None)


def _footer(path: str) -> bytes | None:
    """The footer of the Parquet file at ``path`` (between its length and the closing magic
    bytes), if it is framed as one: the magic bytes at both ends, a length that fits."""
    # Not blocking: a regular file a moment ago may be a FIFO now, which must not hang this.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        st = os.fstat(fd)
        size = st.st_size
        if not stat.S_ISREG(st.st_mode) or size < 12 or os.pread(fd, 4, 0) != _MAGIC:
            return None
        tail = os.pread(fd, 8, size - 8)
        length = int.from_bytes(tail[:4], "little")
        if tail[4:] != _MAGIC or length > min(size - 12, _FOOTER_MAX):
            return None
        footer = os.pread(fd, length, size - 8 - length)
    finally:
        os.close(fd)
    return footer if len(footer) == length else None


@functools.lru_cache(maxsize=8)
def _columns_prefix(schema: pa.Schema) -> bytes:
    """The first bytes of the footer of a file of ``schema`` that this process's Arrow
    writes: its format version and its columns (``FileMetaData`` fields 1 and 2)."""
    sink = pa.BufferOutputStream()
    pq.write_table(schema.empty_table(), sink)
    data = sink.getvalue().to_pybytes()
    footer = data[-8 - int.from_bytes(data[-8:-4], "little") : -8]
    # Field 1 (an i32, the header 0x15) then field 2 (a list, 0x19), as Arrow writes them.
    if footer[:1] != b"\x15":
        return b"\x00"  # another layout than this reading knows: never a prefix (0 is STOP)
    _, pos = _varint(footer, 1)
    if footer[pos : pos + 1] != b"\x19":
        return b"\x00"
    return footer[: _skip(footer, pos + 1, _LIST)]


_LIST, _STRUCT = 9, 12


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return value, pos


def _skip(data: bytes, pos: int, kind: int) -> int:
    """Where the Thrift compact-protocol value of type ``kind`` at ``pos`` ends (only ever of
    a footer this process wrote: ``_columns_prefix``)."""
    if kind in (1, 2):  # a bool: in the field's header
        return pos
    if kind == 3:
        return pos + 1
    if kind in (4, 5, 6):
        return _varint(data, pos)[1]
    if kind == 7:
        return pos + 8
    if kind == 8:
        length, pos = _varint(data, pos)
        return pos + length
    if kind in (_LIST, 10):
        header = data[pos]
        pos += 1
        count, item = header >> 4, header & 0x0F
        if count == 15:
            count, pos = _varint(data, pos)
        for _ in range(count):
            pos = pos + 1 if item in (1, 2) else _skip(data, pos, item)
        return pos
    if kind == 11:
        count, pos = _varint(data, pos)
        if count:
            types = data[pos]
            pos += 1
            for _ in range(count):
                pos = _skip(data, _skip(data, pos, types >> 4), types & 0x0F)
        return pos
    if kind == _STRUCT:
        while (header := data[pos]) != 0:
            pos += 1
            if header >> 4 == 0:  # the field's id in full, not as a delta
                pos = _varint(data, pos)[1]
            pos = _skip(data, pos, header & 0x0F)
        return pos + 1
    raise ValueError(f"not a Thrift compact-protocol type: {kind}")


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


RESTORE = "; restore it from a copy, or remove the sweep's folder to start it anew"


def reason(exc: BaseException) -> str:
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__


def sweep_record(path: Path, record: Any) -> dict[str, Any]:
    """The record of ``<root>/<sweep>/sweep.json`` (its JSON document, ``record``): a
    mapping, naming the sweep of the folder it lies in; anything else is a StoreError naming
    the file (a crafted record must not send a report, or anything else, outside the store)."""
    if not isinstance(record, dict):
        raise StoreError(f"{path}: damaged (not a sweep's record){RESTORE}")
    folder = path.parent.name
    named = record.get("sweep_id")
    if named != folder:
        raise StoreError(
            f"{path}: names sweep {named!r} but lies in the folder {folder!r}"
            f"{_normalisation(named, folder)}; it is not used{RESTORE}"
        )
    if not is_name(folder):
        raise StoreError(
            f"{path}: the folder {folder!r} is not a sweep name: {name_problem(folder)}; it "
            f"is not used; {NAME_RULE} (rename the folder and the record's sweep_id alike)"
        )
    problem = _spec_problem(record.get("spec"))
    if problem is not None:
        raise StoreError(f"{path}: damaged ({problem}){RESTORE}")
    return record


#: what a sweep's name may be (``sweeper.vocabulary.NAME_RE``): it names the sweep's folder
NAME_RULE = (
    "a sweep name is 1 to 64 ASCII letters, digits, '.', '_' and '-', beginning with a "
    "letter or a digit"
)


def name_problem(name: str) -> str:
    """Which rule of ``NAME_RULE`` ``name`` breaks (``is_name`` is false of it)."""
    if not name:
        return "it is empty"
    if len(name) > 64:
        return f"it is {len(name)} characters long, more than 64"
    others = sorted({c for c in name if not (c.isascii() and (c.isalnum() or c in "._-"))})
    if others:
        listed = ", ".join(f"{c!r} (U+{ord(c):04X})" for c in others)
        return f"it holds {listed}, not an ASCII letter, digit, '.', '_' or '-'"
    return f"it begins with {name[0]!r}, not a letter or a digit"


def _normalisation(named: Any, folder: str) -> str:
    """Why a record's name and its folder's that read alike differ: the same letters in
    another Unicode normalisation (é as one code point, NFC, or as e and a combining
    accent, NFD), which the eye cannot tell apart; else nothing."""
    if not isinstance(named, str) or unicodedata.normalize("NFC", named) != (
        unicodedata.normalize("NFC", folder)
    ):
        return ""
    forms = [
        next((f for f in ("NFC", "NFD") if unicodedata.is_normalized(f, n)), "neither NFC nor NFD")
        for n in (named, folder)
    ]
    return (
        f" (they read alike but are written in different Unicode normalisations: the "
        f"record's is {forms[0]}, the folder's {forms[1]})"
    )


def _spec_problem(spec: Any) -> str | None:
    """Why a record holds no spec to read back, or None. What is in it is the spec's own to
    judge (``sweeper.spec``), where a command reads it."""
    return None if isinstance(spec, dict) else "no spec"
