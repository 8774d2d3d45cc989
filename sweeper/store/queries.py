"""A query over a sweep's Parquet files that outlasts compactions (a file listed, then
compacted away before DuckDB opened it, makes the read list afresh and start again) and leaves
each damaged file out, saying it; and the read of runs that keeps each run only where its
place says it belongs, with the files it left out."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from sweeper.store.address_check import CHECKED, badly_addressed
from sweeper.store.base import StoredRuns
from sweeper.store.layout import left_out
from sweeper.store.one_row import misplaced, runs_query
from sweeper.store.reading import query_files
from sweeper.store.records import RunAddress
from sweeper.store.wholeness import RUN_LAYOUT, Layout, damaged_parts, unreadable_files

# How many times a read starts again when a file it listed was compacted away meanwhile;
# each retry lists afresh (the compaction that removed the file has written its part), after
# a pause that grows, so that a reader outlasts a burst of compactions (a sweep compacts once
# per configuration; an operator's ``compact`` runs through the configurations in a row).
READ_ATTEMPTS = 40
RETRY_PAUSE_S = (0.002, 0.25)  # first and longest

#: the files a read takes, listed afresh for each attempt (``layout.run_files``)
Listing = Callable[[], list[Path]]


def query_table(
    listing: Listing,
    layout: Layout,
    sql: str,
    params: list[Any] | None,
    damaged: list[str],
) -> tuple[pa.Table, list[Path], dict[Path, str]]:
    """The query's result, the files listed for it (the damaged ones included), and the
    files left out, each with why. A file that is not whole Parquet (truncated, garbage),
    or whose columns are not what raidsweep writes (``wholeness.Layout``), is left out and
    said in ``damaged``."""
    left: dict[Path, str] = {}
    for attempt in range(READ_ATTEMPTS):
        listed = listing()
        found, exact = damaged_parts([f for f in listed if f not in left], layout)
        _leave_out(left, found, damaged)
        files = [f for f in listed if f not in left]
        try:
            result = query_files(files, layout.schema, sql, params, exact=exact)
            return result, listed, left
        except duckdb.InterruptException:
            raise
        except duckdb.Error:
            # A listed file was compacted away before DuckDB opened it: list again (its
            # part is there by now). (Which error DuckDB gives for a file it cannot read
            # depends on where it fails: opening it, its footer, its pages.)
            if not all(f.exists() for f in files):
                if attempt + 1 == READ_ATTEMPTS:
                    raise
                time.sleep(min(RETRY_PAUSE_S[0] * 2**attempt, RETRY_PAUSE_S[1]))
                continue
            # A file that is not whole Parquet past its footer: left out, said.
            bad = unreadable_files(files)
            if not bad:
                raise
            _leave_out(left, bad, damaged)
    raise AssertionError("unreachable")  # pragma: no cover


def _leave_out(left: dict[Path, str], found: dict[Path, str], damaged: list[str]) -> None:
    """Add the ``found`` damaged files to those a read leaves out, each said in
    ``damaged``."""
    left |= found
    damaged += [f"{f}: {why}; left out" for f, why in found.items()]


def checked_runs(
    listing: Listing, sweep_id: str, wanted: list[str], include_failed: bool, damaged: list[str]
) -> tuple[pa.Table, list[Path], dict[Path, str]]:
    """The runs that are what their place says, with addresses that read as raidsweep
    writes them (``address_check``), the others said in ``damaged``; the files listed for
    the read; and the files left out (damaged, or holding a run that is not what their
    place says), each with why."""
    sql = runs_query(wanted, include_failed)
    table, listed, left = query_table(listing, RUN_LAYOUT, sql, [sweep_id], damaged)
    for path, why in misplaced(table):
        left.setdefault(Path(path), why)
        damaged.append(f"{path}: {why}; left out")
    placed = table["misplaced_run"].is_null()
    # A run that is what its place says, but whose address readers would fail to parse (a
    # configuration key that is none): damaged, as a column of another type is.
    unread, said = badly_addressed(table, placed)
    for path, why in said.items():
        left.setdefault(Path(path), why)
        damaged.append(f"{path}: {why}; left out")
    good = table.filter(pc.and_(placed, pc.invert(unread)))
    return good.drop_columns(["misplaced_run", *CHECKED]), listed, left


def stored_runs(listing: Listing, sweep_id: str, damaged: list[str]) -> StoredRuns:
    """The sweep's good runs as readers read them (each the run its place is for), and
    the files they leave out, each said in ``damaged``."""
    columns = ["config_key", "cell_key", "repetition"]
    table, _, left = checked_runs(listing, sweep_id, columns, False, damaged)
    done = {
        RunAddress(sweep_id, key, cell, int(rep))
        for key, cell, rep in zip(*(table[c].to_pylist() for c in columns), strict=True)
    }
    return StoredRuns(done, [left_out(path, why) for path, why in left.items()])
