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


def misplaced(table: pa.Table) -> list[str]:
    """What ``runs_query`` found not to be the run its place is for, each naming its file."""
    return [
        f"{r['filename']}: holds run {r['run_id']} of sweep {r['sweep_id']!r} "
        f"({r['config_key']} {r['cell_key']} #{r['repetition']}), not the run its place in "
        "the store is for; left out"
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
    problem = part_problem(path, RUN_KEYS)
    if problem is not None:
        raise StoreError(f"{path}: {problem}{RESTORE}")
    st = path.stat()
    return _part_keys(str(path), st.st_ino, st.st_mtime_ns)


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
    try:
        st = path.stat()
    except FileNotFoundError:
        raise
    except OSError as exc:  # a link loop, a folder of the path that cannot be looked at
        return f"cannot be read ({reason(exc)})", False
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
        try:
            found = pq.read_schema(path)
        except FileNotFoundError:
            raise
        except (OSError, pa.ArrowException) as exc:
            return _unreadable(exc), False
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
