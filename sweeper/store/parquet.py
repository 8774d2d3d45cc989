"""Results store as immutable Parquet parts queried through DuckDB: ``ParquetStore``, the
results store's face, which gives each call to the module that does its work and keeps what
the last reads found damaged.

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

Where each concern lives: ``sweeps`` (the sweep records), ``layout`` (where the files lie,
their listing), ``runs`` (storing a run), ``queries`` (a read that outlasts compactions and
leaves damaged files out), ``attempts`` (a run's records wherever they are), ``compaction``,
``configurations``, ``snapshot``, ``progress``; ``files`` (writing whole, and removing what a
killed writer left).
"""

from __future__ import annotations

import contextlib
import functools
import json
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa

from sweeper.store import attempts, compaction, layout, queries, runs, sweeps
from sweeper.store.base import ATTEMPT_FIELDS, ResultsStore, StoredRuns
from sweeper.store.compaction import COMPACT_AFTER_RUNS
from sweeper.store.configurations import CONFIGURATIONS_SQL, put_configuration
from sweeper.store.files import atomic_write_bytes, remove_stale_temporaries
from sweeper.store.progress import (
    ended_worker_files,
    merged,
    progress_file,
    read_records,
    records_version,
)
from sweeper.store.queries import READ_ATTEMPTS, RETRY_PAUSE_S, Listing
from sweeper.store.records import RunAddress, config_folder, run_columns
from sweeper.store.snapshot import SNAPSHOT, fingerprint, read_snapshot, write_snapshot
from sweeper.store.sweeps import MAX_SWEEP_RECORD_BYTES
from sweeper.store.wholeness import CONFIG_LAYOUT

__all__ = [
    "COMPACT_AFTER_RUNS",
    "MAX_SWEEP_RECORD_BYTES",
    "READ_ATTEMPTS",
    "RETRY_PAUSE_S",
    "ParquetStore",
    "atomic_write_bytes",
]


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
        return sweeps.create_sweep(self.root, sweep_id, record)

    def get_sweep(self, sweep_id: str) -> dict[str, Any] | None:
        """The sweep's record, None where it has none; StoreError naming the file when it is
        damaged (``sweep_record_check.sweep_record``) or of another kind (``files.read_record``)."""
        return sweeps.get_sweep(self.root, sweep_id)

    def list_sweeps(self) -> list[dict[str, Any]]:
        """The sweeps whose records are whole; each damaged one, and each entry of the store
        that cannot be looked at, is said in ``damaged``."""
        self._damaged = []
        return sweeps.list_sweeps(self.root, self._damaged)

    def _sweep_folder(self, sweep_id: str) -> Path:
        return sweeps.sweep_folder(self.root, sweep_id)

    # runs ---------------------------------------------------------------
    @staticmethod
    def _config_dir_name(sweep_id: str, config_key: str) -> str:
        return config_folder(sweep_id, config_key)

    def _run_files(self, sweep_id: str, config_key: str | None = None) -> list[Path]:
        """Every run file, then every part, in that order (see the module's docstring)."""
        return layout.run_files(self.root, sweep_id, config_key, self._damaged)

    def _files(self, sweep_id: str, table: str, config_key: str | None = None) -> list[Path]:
        if table == layout.RUNS:
            return self._run_files(sweep_id, config_key)
        return layout.table_files(self.root, sweep_id, table, self._damaged)

    def _listing(self, sweep_id: str, table: str, config_key: str | None = None) -> Listing:
        """The files of a read, listed afresh at each of its attempts."""
        return functools.partial(self._files, sweep_id, table, config_key)

    def put_run(self, row: dict[str, Any]) -> bool:
        return runs.put_run(self.root, row)

    def has_run(self, address: RunAddress) -> bool:
        return runs.has_run(self.root, address)

    def done_addresses(self, sweep_id: str) -> set[RunAddress]:
        return self.stored_runs(sweep_id).done

    def stored_runs(self, sweep_id: str) -> StoredRuns:
        """The sweep's good runs as readers read them (each the run its place is for), and
        the files they leave out, each said in ``damaged``."""
        self._damaged = []
        return queries.stored_runs(self._listing(sweep_id, layout.RUNS), sweep_id, self._damaged)

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
        """``queries.checked_runs`` of the sweep (of one configuration with ``config_key``)."""
        listing = self._listing(sweep_id, layout.RUNS, config_key)
        return queries.checked_runs(listing, sweep_id, wanted, include_failed, self._damaged)

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
            return attempts.nth_attempt(self._attempts(run_id), run_id, attempt)
        return attempts.run_record(self.root, run_id)

    def run_attempts(self, run_id: str) -> list[dict[str, Any]]:
        """Each attempt at the run: its failed ones in the order made, then its good run if
        any, each as ``ATTEMPT_FIELDS``. A damaged file that may hold one is left out and
        said in ``damaged``."""
        return [{k: r.get(k) for k in ATTEMPT_FIELDS} for r in self._attempts(run_id)]

    def _attempts(self, run_id: str) -> list[dict[str, Any]]:
        """Every record of the run once (``attempts.attempts``); damaged files said."""
        self._damaged = []
        return attempts.attempts(self.root, run_id, self._damaged)

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
        names = compaction.folders_to_compact(
            self.root,
            sweep_id,
            config_key,
            only_if_large=only_if_large,
            compact_after_runs=self.compact_after_runs,
        )
        done = sum(compaction.compact_folder(self.root, sweep_id, name) for name in names)
        if config_key is None and not only_if_large:
            self.snapshot(sweep_id)  # the whole sweep compacted: its readers' one file
        return done

    def version(self, sweep_id: str) -> tuple[int, int, int, int]:
        """Changes whenever a run or a configuration record is stored or compacted
        (``layout.version``)."""
        return layout.version(self.root, sweep_id)

    # configurations -----------------------------------------------------
    def put_configuration(self, row: dict[str, Any]) -> bool:
        return put_configuration(self.root, row)

    def configurations(self, sweep_id: str) -> pd.DataFrame:
        listing = self._listing(sweep_id, layout.CONFIGURATIONS)
        found = queries.query_table(listing, CONFIG_LAYOUT, CONFIGURATIONS_SQL, None, self._damaged)
        return found[0].to_pandas()

    def remove_stale_temporaries(self, sweep_id: str) -> int:
        """Delete temporary files of writers that no longer run (killed mid-write)."""
        return remove_stale_temporaries(self.root / sweep_id)

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
