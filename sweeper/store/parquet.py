"""Results store as immutable Parquet parts queried through DuckDB.

Each run is one Parquet file written to a temporary name, flushed, then hard-linked to its
final name: a reader sees a run whole or not at all, a writer never holds a lock across a
sweep, and a second write of the same address finds the name taken and does nothing.

Compaction: opening a file costs DuckDB a millisecond or two, so 100,000 single-run files
take minutes to read. ``compact`` merges a configuration's run files into one Parquet part
under ``<sweep>/compacted/`` (written the same atomic way), and only then removes the run
files. Parts are never removed or rewritten; runs stored into a configuration after its
compaction go to a further part at its next compaction. A reader therefore lists the run
files first and the parts second (a run file it missed was removed, so its part existed
before that listing began), retries when a file it listed vanished before it opened it, and
keeps one row per run, which covers the moment, or a crash, between writing a part and
removing the files it holds.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from sweeper.errors import StoreError
from sweeper.locking import exclusive_lock
from sweeper.processes import pid_alive
from sweeper.store.base import ATTEMPT_FIELDS, LeftOut, ResultsStore, StoredRuns
from sweeper.store.files import (
    RecordProblem,
    atomic_write_bytes,
    fsync_dir,
    parquet_bytes,
    parquet_names,
    read_checked,
    subfolders,
    table_bytes,
)
from sweeper.store.progress import (
    ended_worker_files,
    merged,
    progress_file,
    read_records,
    records_version,
    refuse_foreign_records,
)
from sweeper.store.reading import query_files
from sweeper.store.records import (
    CONFIG_SCHEMA,
    RUN_SCHEMA,
    RunAddress,
    config_folder,
    run_columns,
)
from sweeper.store.snapshot import SNAPSHOT, fingerprint, read_snapshot, write_snapshot
from sweeper.store.trust import (
    COMPACTED,
    CONFIG_LAYOUT,
    IDENTITY,
    RESTORE,
    RUN_LAYOUT,
    damaged_parts,
    is_run,
    keys_of_part,
    misplaced,
    note_written,
    part_problem,
    reason,
    runs_query,
    stored_keys,
    sweep_record,
    unreadable_files,
)
from sweeper.untrusted import is_name
from sweeper.vocabulary import RUN_ID_RE

# A sweep compacts on its own (``compact(..., only_if_large=True)``) once it holds this many
# run files: below it a read takes a second or two, and every run stays a file of its own.
COMPACT_AFTER_RUNS = 1500
# How many times a read starts again when a file it listed was compacted away meanwhile;
# each retry lists afresh (the compaction that removed the file has written its part), after
# a pause that grows, so that a reader outlasts a burst of compactions (a sweep compacts once
# per configuration; an operator's ``compact`` runs through the configurations in a row).
READ_ATTEMPTS = 40
RETRY_PAUSE_S = (0.002, 0.25)  # first and longest
_RUN_FILE = re.compile(rf"{RUN_ID_RE.pattern}(\.failed-[0-9T]+)?\.parquet")
#: the largest sweep record read: it holds the spec (a spec file is at most 1 MiB of YAML,
#: which JSON with its classes' paths may spell longer); one is some 3 KiB
MAX_SWEEP_RECORD_BYTES = 16 * 1024 * 1024


def _may_hold(part: Path, run_id: str) -> bool:
    """Whether the compacted ``part`` holds run ``run_id`` (True when it cannot tell)."""
    try:
        return any(k[0] == run_id for k in keys_of_part(part))
    except StoreError:
        return True


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


def _attempt_order(row: dict[str, Any]) -> tuple[bool, Any]:
    """Failed attempts by when they finished, the good run last (at most one per run)."""
    return (row["status"] == "ok", row["finished_at"])


def _attempt_key(row: dict[str, Any]) -> tuple[str, Any]:
    """What tells one attempt from another: a run's good record is one, its failed attempts
    are told apart by when they finished (as ``put_run`` names their files)."""
    return (row["status"], None if row["status"] == "ok" else row["finished_at"])


def _left_out(path: Path, problem: str) -> LeftOut:
    """A file a read of runs left out, with whose place it is: a compacted part of a
    configuration (``<sweep>/compacted/<folder>.<ns>.parquet``), or a file of its folder
    (``<sweep>/runs/<folder>/<run id>[.failed-<stamp>].parquet``)."""
    if path.parent.name == COMPACTED:
        return LeftOut(path, problem, path.name.split(".", 1)[0], part=True)
    named = _RUN_FILE.fullmatch(path.name)
    run_id = path.name.split(".", 1)[0] if named and named.group(1) is None else None
    return LeftOut(path, problem, path.parent.name, run_id)


def _write_record(path: Path, record: dict[str, Any], *, replace: bool) -> None:
    """A sweep's record as ``sweep.json``, written whole or not at all."""
    data = json.dumps(record, indent=2, sort_keys=True, default=str).encode()
    atomic_write_bytes(path, data, replace=replace)


class ParquetStore(ResultsStore):
    """``<root>/<sweep>/runs/*.parquet``, ``configurations/*.parquet``, ``sweep.json``."""

    def __init__(self, root: Path | str, *, compact_after_runs: int = COMPACT_AFTER_RUNS):
        # Absolute, because playbooks and subprocesses run from other working directories.
        self.root = Path(root).absolute()
        self.compact_after_runs = compact_after_runs
        self._damaged: list[str] = []
        #: each sweep's damaged progress records, as its last read of them found them
        self._damaged_progress: dict[str, list[str]] = {}

    @property
    def damaged(self) -> list[str]:
        """What the last reads found damaged and left out, each naming its file; and the
        damaged progress records of the sweeps whose progress was read. Those stay said until
        the next read of their sweep's progress: a command reads the progress and the runs in
        either order, and a read of runs starts its list anew."""
        progress = [line for lines in self._damaged_progress.values() for line in lines]
        return [*self._damaged, *progress]

    @damaged.setter
    def damaged(self, lines: list[str]) -> None:
        self._damaged = list(lines)

    # sweeps -------------------------------------------------------------
    def create_sweep(self, sweep_id: str, record: dict[str, Any]) -> dict[str, Any]:
        path = self._sweep_folder(sweep_id) / "sweep.json"
        # What a sweeper is about to write first: refused before anything changes.
        refuse_foreign_records(path.parent)
        existing = self.get_sweep(sweep_id)
        if existing is not None:
            if existing.get("fingerprint") != record.get("fingerprint"):
                raise StoreError(
                    f"sweep {sweep_id!r} already exists in {self.root} with a different spec "
                    f"(fingerprint {existing.get('fingerprint')} vs {record.get('fingerprint')}); "
                    "give the new spec another name, or remove the old sweep's folder"
                )
            return self._restated(path, existing, record)
        _write_record(path, record, replace=False)
        return self.get_sweep(sweep_id) or record

    def _restated(
        self, path: Path, existing: dict[str, Any], record: dict[str, Any]
    ) -> dict[str, Any]:
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

    def _sweep_folder(self, sweep_id: str) -> Path:
        """The sweep's folder; a name that is not a sweep name (``../x``, a newline) never
        becomes a path."""
        if not is_name(sweep_id):
            raise StoreError(
                f"{sweep_id!r} is not a sweep name (letters, digits, '.', '_', '-'; at most 64)"
            )
        return self.root / sweep_id

    def get_sweep(self, sweep_id: str) -> dict[str, Any] | None:
        """The sweep's record, None where it has none; StoreError naming the file when it is
        damaged (``trust.sweep_record``) or of another kind (``files.read_record``)."""
        return self._read_sweep(self._sweep_folder(sweep_id) / "sweep.json")

    @staticmethod
    def _read_sweep(path: Path) -> dict[str, Any] | None:
        try:
            return read_checked(
                path,
                max_bytes=MAX_SWEEP_RECORD_BYTES,
                kind="sweep record",
                check=functools.partial(sweep_record, path),
            )
        except RecordProblem as exc:
            raise StoreError(f"{exc}{RESTORE}") from None

    def list_sweeps(self) -> list[dict[str, Any]]:
        """The sweeps whose records are whole; each damaged one, and each entry of the store
        that cannot be looked at, is said in ``damaged``."""
        self._damaged = []
        if not self.root.is_dir():
            return []
        out = []
        for folder in sorted(subfolders(self.root, self._damaged)):
            try:
                record = self._read_sweep(self.root / folder / "sweep.json")
            except StoreError as exc:
                self._damaged.append(str(exc))
                continue
            if record is not None:
                out.append(record)
        return sorted(out, key=_created, reverse=True)

    # runs ---------------------------------------------------------------
    def _config_dir(self, sweep_id: str, config_key: str) -> Path:
        # One folder per configuration: reading one configuration's runs opens only its parts.
        return self.root / sweep_id / "runs" / self._config_dir_name(sweep_id, config_key)

    @staticmethod
    def _config_dir_name(sweep_id: str, config_key: str) -> str:
        return config_folder(sweep_id, config_key)

    def _run_path(self, address: RunAddress) -> Path:
        return self._config_dir(address.sweep_id, address.config_key) / f"{address.run_id}.parquet"

    def _parts(
        self, sweep_id: str, config_dir: str | None = None, skipped: list[str] | None = None
    ) -> list[Path]:
        """The compacted parts of a sweep, or of one configuration folder (what keeps them
        from being listed said in ``skipped``)."""
        folder = self.root / sweep_id / COMPACTED
        return [
            folder / n
            for n in sorted(parquet_names(folder, skipped))
            if config_dir is None or n.startswith(f"{config_dir}.")
        ]

    def _run_files(self, sweep_id: str, config_key: str | None = None) -> list[Path]:
        """Every run file, then every part, in that order (see the module's docstring)."""
        runs = self.root / sweep_id / "runs"
        if config_key:
            name: str | None = self._config_dir_name(sweep_id, config_key)
            folders = [runs / name]
        else:
            name = None
            found = subfolders(runs, self._damaged, only_folders=True)
            folders = [runs / d for d in sorted(found)]
        files = [f / n for f in folders for n in sorted(parquet_names(f, self._damaged))]
        return files + self._parts(sweep_id, name, self._damaged)

    def put_run(self, row: dict[str, Any]) -> bool:
        address = RunAddress(row["sweep_id"], row["config_key"], row["cell_key"], row["repetition"])
        row = dict(row, run_id=address.run_id)
        path = self._run_path(address)
        replace = False
        if row["status"] == "ok":
            if self.has_run(address):
                return False
            # What is in the run's place is not the run (a damaged file, a FIFO, a link):
            # readers leave it out and warn, so the good run takes its place.
            replace = os.path.lexists(path)
        else:
            # Failed attempts are kept beside the address, never in its place.
            stamp = row["finished_at"].strftime("%Y%m%dT%H%M%S%f")
            path = path.with_name(f"{address.run_id}.failed-{stamp}.parquet")
        try:
            written = atomic_write_bytes(path, table_bytes(row, RUN_SCHEMA), replace=replace)
        except IsADirectoryError:
            raise StoreError(
                f"{path}: a folder where run {address.run_id}'s file goes; remove it to store "
                "the run"
            ) from None
        if written:
            note_written(path, RUN_SCHEMA)
        return written

    def has_run(self, address: RunAddress) -> bool:
        # The run file first, the parts second: a compaction writes the part before it
        # removes the file, so a run is found at every moment. A file in the run's place
        # counts only if readers read the run from it (not damaged, nor a FIFO, nor another
        # run's), or a run they leave out would never be measured again.
        key = (address.run_id, "ok", None)
        path = self._run_path(address)
        # judged once, as readers judge it (what reads as a run reads as its keys too)
        with contextlib.suppress(FileNotFoundError, StoreError):
            if key in stored_keys(path, RUN_LAYOUT):
                return True
        folder = self._config_dir_name(address.sweep_id, address.config_key)
        for part in self._parts(address.sweep_id, folder):
            # a damaged part holds no run readers read
            with contextlib.suppress(FileNotFoundError, StoreError):
                if key in keys_of_part(part):
                    return True
        return False

    def done_addresses(self, sweep_id: str) -> set[RunAddress]:
        return self.stored_runs(sweep_id).done

    def stored_runs(self, sweep_id: str) -> StoredRuns:
        """The sweep's good runs as readers read them (each the run its place is for), and
        the files they leave out, each said in ``damaged``."""
        self._damaged = []
        columns = ["config_key", "cell_key", "repetition"]
        table, _, left_out = self._checked_runs(sweep_id, columns, False, None)
        done = {
            RunAddress(sweep_id, key, cell, int(rep))
            for key, cell, rep in zip(*(table[c].to_pylist() for c in columns), strict=True)
        }
        return StoredRuns(done, [_left_out(path, why) for path, why in left_out.items()])

    def _files(self, sweep_id: str, table: str, config_key: str | None = None) -> list[Path]:
        if table == "runs":
            return self._run_files(sweep_id, config_key)
        folder = self.root / sweep_id / table
        return [folder / n for n in sorted(parquet_names(folder, self._damaged))]

    def _query(self, sweep_id: str, table: str, sql: str) -> pd.DataFrame:
        """The query over the whole table, as a frame."""
        return self._query_table(sweep_id, table, sql)[0].to_pandas()

    def _query_table(
        self,
        sweep_id: str,
        table: str,
        sql: str,
        params: list[Any] | None = None,
        config_key: str | None = None,
    ) -> tuple[pa.Table, list[Path], dict[Path, str]]:
        """The query's result, the files listed for it (the damaged ones included), and the
        files left out, each with why. A file that is not whole Parquet (truncated, garbage),
        or whose columns are not what raidsweep writes (``trust.Layout``), is left out and
        said in ``damaged``."""
        layout = RUN_LAYOUT if table == "runs" else CONFIG_LAYOUT
        left_out: dict[Path, str] = {}
        for attempt in range(READ_ATTEMPTS):
            listed = self._files(sweep_id, table, config_key)
            damaged, exact = damaged_parts([f for f in listed if f not in left_out], layout)
            self._leave_out(left_out, damaged)
            files = [f for f in listed if f not in left_out]
            try:
                result = query_files(files, layout.schema, sql, params, exact=exact)
                return result, listed, left_out
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
                self._leave_out(left_out, bad)
        raise AssertionError("unreachable")  # pragma: no cover

    def _leave_out(self, left_out: dict[Path, str], damaged: dict[Path, str]) -> None:
        """Add the ``damaged`` files to those a read leaves out, each said in ``damaged``."""
        left_out |= damaged
        self._damaged += [f"{f}: {why}; left out" for f, why in damaged.items()]

    def _read_runs(
        self, sweep_id: str, wanted: list[str], include_failed: bool, config_key: str | None
    ) -> pd.DataFrame:
        """The sweep's runs, one row per record. A run whose content does not match its
        address (a file swapped for another run's, or edited), or whose file cannot be read
        (truncated, not Parquet), is left out and said in ``damaged``, naming its file.
        DuckDB reads the ``wanted`` columns alone. The whole sweep is read from its snapshot
        while that was read from the files there are now."""
        self._damaged = []
        path = self.root / sweep_id / SNAPSHOT
        if config_key is None and path.exists():
            print_ = fingerprint(self.root, self._run_files(sweep_id))
            found = read_snapshot(path, print_, wanted, include_failed=include_failed)
            if found is not None:
                # what the listing found besides (entries that cannot be looked at)
                self._damaged = [*found[1], *self._damaged]
                return found[0].to_pandas()
        return self._checked_runs(sweep_id, wanted, include_failed, config_key)[0].to_pandas()

    def _checked_runs(
        self, sweep_id: str, wanted: list[str], include_failed: bool, config_key: str | None
    ) -> tuple[pa.Table, list[Path], dict[Path, str]]:
        """The runs that are what their place says, the others said in ``damaged``; the
        files listed for the read; and the files left out (damaged, or holding a run that is
        not what their place says), each with why."""
        sql = runs_query(wanted, include_failed)
        table, listed, left_out = self._query_table(sweep_id, "runs", sql, [sweep_id], config_key)
        for path, why in misplaced(table):
            left_out.setdefault(Path(path), why)
            self._damaged.append(f"{path}: {why}; left out")
        good = table.filter(table["misplaced_run"].is_null())
        return good.drop_columns(["misplaced_run"]), listed, left_out

    def snapshot(self, sweep_id: str) -> int:
        """Write the sweep's snapshot (see ``snapshot.py``); returns how many runs it holds."""
        self._damaged = []
        before = fingerprint(self.root, self._run_files(sweep_id))
        table, listed, _ = self._checked_runs(sweep_id, run_columns(), True, None)
        print_ = fingerprint(self.root, listed)
        if print_ is None or print_ != before:  # changed meanwhile: readers read the parts
            return 0
        write_snapshot(self.root / sweep_id / SNAPSHOT, table, print_, self._damaged)
        return table.num_rows

    def run_detail(self, run_id: str, attempt: int | None = None) -> dict[str, Any] | None:
        """The run's record; StoreError naming the file when the run has no good record to
        show but a file that may hold it is damaged (not Parquet, or its columns). With
        ``attempt``, that one of ``run_attempts`` (1 is the first)."""
        if attempt is not None:
            return self._attempt(run_id, attempt)
        if not RUN_ID_RE.fullmatch(run_id):
            return None
        # The run's own files first, then the parts (a file compacted away meanwhile is in
        # a part by then); its good run if any, else its latest failed attempt.
        damaged: list[str] = []
        rows = self._loose_records(run_id, damaged)
        if not any(r["status"] == "ok" for r in rows):
            rows += self._compacted_records(run_id, damaged)
            if damaged:
                raise StoreError(f"run {run_id} cannot be shown: {'; '.join(damaged)}{RESTORE}")
        if not rows:
            return None
        return max(rows, key=_attempt_order)

    def run_attempts(self, run_id: str) -> list[dict[str, Any]]:
        """Each attempt at the run: its failed ones in the order made, then its good run if
        any, each as ``ATTEMPT_FIELDS``. A damaged file that may hold one is left out and
        said in ``damaged``."""
        return [{k: r.get(k) for k in ATTEMPT_FIELDS} for r in self._attempts(run_id)]

    def _attempt(self, run_id: str, attempt: int) -> dict[str, Any] | None:
        """The record of ``run_attempts``' ``attempt`` (1-based); None when there is no run
        ``run_id``, ValueError naming the range when the run has no such attempt."""
        attempts = self._attempts(run_id)
        if not attempts:
            return None
        if not 1 <= attempt <= len(attempts):
            raise ValueError(f"attempt {attempt}: run {run_id} has attempts 1 to {len(attempts)}")
        return attempts[attempt - 1]

    def _attempts(self, run_id: str) -> list[dict[str, Any]]:
        """Every record of the run once, in ``_attempt_order``; damaged files said."""
        self._damaged = []
        if not RUN_ID_RE.fullmatch(run_id):
            return []
        # Every place, not the run files alone: a configuration compacted between a failed
        # attempt and the good run holds the attempt in a part and the good run in a file.
        damaged: list[str] = []
        rows = self._loose_records(run_id, damaged) + self._compacted_records(run_id, damaged)
        self._damaged = [f"{line}; left out" for line in damaged]
        # A compaction killed between writing its part and removing the run files leaves a
        # record in both: one attempt, kept once.
        unique = {_attempt_key(r): r for r in rows}
        return sorted(unique.values(), key=_attempt_order)

    def _loose_records(self, run_id: str, damaged: list[str]) -> list[dict[str, Any]]:
        """The run's records in run files of its own: its good run and its failed attempts."""
        rows: list[dict[str, Any]] = []
        for pattern in (f"*/runs/*/{run_id}.parquet", f"*/runs/*/{run_id}.failed-*.parquet"):
            for path in self.root.glob(pattern):
                with contextlib.suppress(FileNotFoundError):
                    rows += self._rows_of_run(path, run_id, damaged)
        return rows

    def _compacted_records(self, run_id: str, damaged: list[str]) -> list[dict[str, Any]]:
        """The run's records in compacted parts."""
        rows: list[dict[str, Any]] = []
        for part in self.root.glob(f"*/{COMPACTED}/*.parquet"):
            with contextlib.suppress(FileNotFoundError):
                rows += self._rows_of_run(part, run_id, damaged, part=True)
        return rows

    @staticmethod
    def _rows_of_run(
        path: Path, run_id: str, damaged: list[str], *, part: bool = False
    ) -> list[dict[str, Any]]:
        """The records of run ``run_id`` in the file at ``path`` (a run file, or a compacted
        ``part``); a damaged file that holds it, or may, is added to ``damaged``."""
        if part and not _may_hold(path, run_id):
            return []
        problem = part_problem(path, RUN_LAYOUT)
        if problem is not None:
            damaged.append(f"{path}: {problem}")
            return []
        try:
            if part:
                return pq.read_table(path, filters=[("run_id", "=", run_id)]).to_pylist()
            table = pq.read_table(path)
        except FileNotFoundError:
            raise
        except (OSError, pa.ArrowException) as exc:  # its footer whole, its pages not
            damaged.append(f"{path}: damaged, not a whole Parquet file ({reason(exc)[:120]})")
            return []
        # only what is the run its name says (a swapped file is not)
        return [r for r in table.to_pylist() if is_run(r, run_id)]

    # compaction ---------------------------------------------------------
    def compact(
        self, sweep_id: str, config_key: str | None = None, *, only_if_large: bool = False
    ) -> int:
        """Merge the run files of a configuration (of every configuration without
        ``config_key``) into one part, then remove them; returns how many files it merged.

        With ``only_if_large``, what a sweep calls after each configuration: nothing until
        the sweep holds ``compact_after_runs`` run files, then all of them, and from then on
        each configuration as it finishes; whenever the files not yet in a part reach
        ``compact_after_runs`` again (a sweep killed during a compaction left them), all of
        them.
        """
        runs = self.root / sweep_id / "runs"
        if only_if_large:
            loose = sum(len(parquet_names(runs / d)) for d in subfolders(runs))
            if loose >= self.compact_after_runs:
                config_key = None
            elif not self._parts(sweep_id):
                return 0
        if config_key:
            names = [self._config_dir_name(sweep_id, config_key)]
        else:
            names = sorted(subfolders(runs))
        merged = sum(self._compact_folder(sweep_id, name) for name in names)
        if config_key is None and not only_if_large:
            self.snapshot(sweep_id)  # the whole sweep compacted: its readers' one file
        return merged

    def _compact_folder(self, sweep_id: str, name: str) -> int:
        folder = self.root / sweep_id / "runs" / name
        # One compaction of a configuration at a time (a second one waits, then finds its
        # work done); readers and run writers never take it.
        with exclusive_lock(self.root / sweep_id / COMPACTED / f".{name}.lock"):
            files = [folder / n for n in sorted(parquet_names(folder)) if _RUN_FILE.fullmatch(n)]
            # A damaged run file stays as it is, out of the part: readers name it, and a
            # resumed sweep measures its run again (were it merged, its run would be lost
            # without a word). So does a file that holds another run than its name says.
            files = [f for f in files if f not in damaged_parts(files, RUN_LAYOUT)[0]]
            tables = {f: t for f in files if (t := _own_run(f)) is not None}
            files = list(tables)
            if not files:
                return 0
            held: set[tuple[str, str, Any]] = set()
            for part in self._parts(sweep_id, name):
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
                part = self._new_part(sweep_id, name, data)
                note_written(part, table.schema)
            # Only now, with every run in a part on disk, the run files go.
            for f in files:
                with contextlib.suppress(FileNotFoundError):
                    f.unlink()
            fsync_dir(folder)
            return len(files)

    def _new_part(self, sweep_id: str, name: str, data: bytes) -> Path:
        """Write ``data`` as a new part of the configuration folder ``name``; its path."""
        while True:
            part = self.root / sweep_id / COMPACTED / f"{name}.{time.time_ns()}.parquet"
            if atomic_write_bytes(part, data, replace=False):
                return part

    def version(self, sweep_id: str) -> tuple[int, int, int, int]:
        """Changes whenever a run or a configuration record is stored or compacted: the count
        of run files, a sum over their names (a compaction removes files that later writes
        could bring back to the same count) and the count of parts and configurations."""
        base = self.root / sweep_id
        runs = base / "runs"
        names = [n for d in subfolders(runs) for n in parquet_names(runs / d)]
        return (
            len(names),
            sum(map(hash, names)) & 0xFFFFFFFFFFFF,
            len(self._parts(sweep_id)),
            len(parquet_names(base / "configurations")),
        )

    # configurations -----------------------------------------------------
    def put_configuration(self, row: dict[str, Any]) -> bool:
        name = f"{RunAddress(row['sweep_id'], row['config_key'], '', 0).run_id}-{row['attempt']}"
        path = self.root / row["sweep_id"] / "configurations" / f"{name}.parquet"
        return atomic_write_bytes(path, table_bytes(row, CONFIG_SCHEMA), replace=False)

    def configurations(self, sweep_id: str) -> pd.DataFrame:
        return self._query(
            sweep_id,
            "configurations",
            "SELECT * EXCLUDE (filename) FROM parts ORDER BY started_at, attempt",
        )

    def remove_stale_temporaries(self, sweep_id: str) -> int:
        """Delete temporary files of writers that no longer run (killed mid-write)."""
        removed = 0
        for tmp in (self.root / sweep_id).rglob(".*.tmp"):
            pid_text = tmp.name[1:].split("-", 1)[0]
            if pid_text.isdigit() and not pid_alive(int(pid_text)):
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
                    removed += 1
        return removed

    # progress -----------------------------------------------------------
    def write_progress(
        self, sweep_id: str, progress: dict[str, Any], worker: str | None = None
    ) -> None:
        data = json.dumps(progress, indent=1, default=str).encode()
        atomic_write_bytes(progress_file(self.root / sweep_id, worker), data, replace=True)
        if progress.get("state") == "finished" and (
            (self.read_progress(sweep_id) or {}).get("state") == "finished"
        ):
            # One file for the readers of the finished sweep (1,080 run files take DuckDB
            # 1.5 s to read). Only a help to them: without it, they read the parts.
            with contextlib.suppress(OSError, duckdb.Error, pa.ArrowException):
                self.snapshot(sweep_id)

    def read_progress(self, sweep_id: str) -> dict[str, Any] | None:
        """The sweep's progress (``progress.merged``) from its sweepers' records that are
        whole; each damaged one is said in ``damaged`` (the sweep then reads as what its
        other records and its runs tell)."""
        damaged: list[str] = []
        records = read_records(self._sweep_folder(sweep_id), damaged)
        self._damaged_progress[sweep_id] = damaged
        return merged(records)

    def progress_version(self, sweep_id: str) -> tuple[int, ...]:
        """Changes whenever a progress record of the sweep is written."""
        return records_version(self.root / sweep_id)

    def forget_ended_workers(self, sweep_id: str) -> None:
        for path in ended_worker_files(self.root / sweep_id):
            path.unlink(missing_ok=True)


def _created(record: dict[str, Any]) -> str:
    """When a sweep was created, as its record's ISO 8601 time sorts; a record that holds
    anything else there (a damaged or foreign one) sorts as the oldest, never fails the list."""
    created = record.get("created_at")
    return created if isinstance(created, str) else ""
