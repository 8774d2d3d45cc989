"""Compaction: a configuration's run files merged into one new compacted part, written whole,
and only then removed (see ``parquet``'s docstring for why readers never miss a run); and
which configurations a sweep compacts, and when it is worth it."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from sweeper.errors import StoreError
from sweeper.locking import exclusive_lock
from sweeper.store.files import (
    atomic_write_bytes,
    fsync_dir,
    parquet_bytes,
    parquet_names,
    subfolders,
)
from sweeper.store.layout import RUN_FILE, RUNS, loose_names, parts
from sweeper.store.one_row import COMPACTED, IDENTITY, is_run
from sweeper.store.records import config_folder
from sweeper.store.wholeness import RUN_LAYOUT, damaged_parts, keys_of_part, note_written

# A sweep compacts on its own (``compact(..., only_if_large=True)``) once it holds this many
# run files: below it a read takes a second or two, and every run stays a file of its own.
COMPACT_AFTER_RUNS = 1500


def folders_to_compact(
    root: Path,
    sweep_id: str,
    config_key: str | None,
    *,
    only_if_large: bool,
    compact_after_runs: int,
) -> list[str]:
    """The configuration folders ``compact`` merges: ``config_key``'s, or every one without
    it. With ``only_if_large`` (what a sweep asks after each configuration): none until the
    sweep holds ``compact_after_runs`` run files, then all of them, and from then on
    ``config_key``'s as each finishes; whenever the files not yet in a part reach
    ``compact_after_runs`` again (a sweep killed during a compaction left them), all of them."""
    if only_if_large:
        if len(loose_names(root, sweep_id)) >= compact_after_runs:
            config_key = None
        elif not parts(root, sweep_id):
            return []
    if config_key:
        return [config_folder(sweep_id, config_key)]
    return sorted(subfolders(root / sweep_id / RUNS))


def compact_folder(root: Path, sweep_id: str, name: str) -> int:
    """Merge the run files of the configuration folder ``name`` into a new part, then remove
    them; returns how many files it merged."""
    folder = root / sweep_id / RUNS / name
    # One compaction of a configuration at a time (a second one waits, then finds its
    # work done); readers and run writers never take it.
    with exclusive_lock(root / sweep_id / COMPACTED / f".{name}.lock"):
        files = [folder / n for n in sorted(parquet_names(folder)) if RUN_FILE.fullmatch(n)]
        # A damaged run file stays as it is, out of the part: readers name it, and a
        # resumed sweep measures its run again (were it merged, its run would be lost
        # without a word). So does a file that holds another run than its name says.
        files = [f for f in files if f not in damaged_parts(files, RUN_LAYOUT)[0]]
        tables = {f: t for f in files if (t := _own_run(f)) is not None}
        files = list(tables)
        if not files:
            return 0
        held: set[tuple[str, str, Any]] = set()
        for part in parts(root, sweep_id, name):
            # a damaged part holds nothing readers read: its runs go into the new part
            with contextlib.suppress(StoreError):
                held |= keys_of_part(part)
        merged = pa.concat_tables(list(tables.values()), promote_options="permissive")
        # What a crash after the last part's write left behind is in that part already.
        keys = [
            (i, s, None if s == "ok" else f)
            for i, s, f in zip(
                merged.column("run_id").to_pylist(),
                merged.column("status").to_pylist(),
                merged.column("finished_at").cast(pa.int64()).to_pylist(),
                strict=True,
            )
        ]
        new = [i for i, k in enumerate(keys) if k not in held]
        if new:
            table = merged.take(new).sort_by(
                [("cell_key", "ascending"), ("repetition", "ascending")]
            )
            data = parquet_bytes(table)
            # A fresh name each time: parts are never replaced, so a reader's listing
            # never loses one.
            part = _new_part(root, sweep_id, name, data)
            note_written(part, table.schema)
        # Only now, with every run in a part on disk, the run files go.
        for f in files:
            with contextlib.suppress(FileNotFoundError):
                f.unlink()
        fsync_dir(folder)
        return len(files)


def _own_run(path: Path) -> pa.Table | None:
    """The run file at ``path``, if it can be read and holds the run its name says (its
    good run or a failed attempt); None otherwise (damaged past its footer, gone, swapped)."""
    try:
        table = pq.read_table(path)
    except (OSError, pa.ArrowException):
        return None
    run_id = path.name.split(".", 1)[0]
    rows = table.select(list(IDENTITY)).to_pylist()
    return table if rows and all(is_run(r, run_id) for r in rows) else None


def _new_part(root: Path, sweep_id: str, name: str, data: bytes) -> Path:
    """Write ``data`` as a new part of the configuration folder ``name``; its path."""
    while True:
        part = root / sweep_id / COMPACTED / f"{name}.{time.time_ns()}.parquet"
        if atomic_write_bytes(part, data, replace=False):
            return part
