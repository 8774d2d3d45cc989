"""The results store's contract: every backend passes ``tests/test_store.py``."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from sweeper.store.records import RunAddress, config_folder, run_columns

#: what ``run_attempts`` says of each attempt: enough to choose one and see why it failed
ATTEMPT_FIELDS = ("status", "started_at", "finished_at", "error")


@dataclass(frozen=True)
class LeftOut:
    """A file of a sweep's runs that readers leave out (damaged, of another kind than a
    file, or holding another run than its place is for): where it is, why, and whose place
    it is: a good run's (``run_id``), or else a failed attempt's or a compacted part's, of
    the configuration of ``folder`` (``records.config_folder``)."""

    path: Path
    problem: str
    folder: str
    run_id: str | None = None
    #: a compacted part (which runs it held cannot be told), not a run's own file
    part: bool = False

    def said(self) -> str:
        return f"{self.path}: {self.problem}; left out"


@dataclass
class StoredRuns:
    """What a sweep has stored, as readers read it: the addresses of its good runs, and the
    files they leave out, by configuration folder."""

    done: set[RunAddress]
    left_out: list[LeftOut] = field(default_factory=list)

    def left_out_of(self, sweep_id: str, config_key: str) -> list[LeftOut]:
        """The files left out that are ``config_key``'s (its run files' places, its parts)."""
        folder = config_folder(sweep_id, config_key)
        return [f for f in self.left_out if f.folder == folder]


class ResultsStore(ABC):
    """Keeps sweeps, configurations and runs; readable while a sweep writes."""

    root: Path

    # sweeps -------------------------------------------------------------
    @abstractmethod
    def create_sweep(self, sweep_id: str, record: dict[str, Any]) -> dict[str, Any]:
        """Register a sweep (or return the existing record if the fingerprint matches, with
        the spec's ``environment`` as ``record`` states it: facts outside the fingerprint)."""

    @abstractmethod
    def get_sweep(self, sweep_id: str) -> dict[str, Any] | None: ...

    @abstractmethod
    def list_sweeps(self) -> list[dict[str, Any]]: ...

    def sweep_dir(self, sweep_id: str) -> Path:
        """A folder of the sweep's own (study journal, simulated array state)."""
        return self.root / sweep_id

    # runs ---------------------------------------------------------------
    @abstractmethod
    def put_run(self, row: dict[str, Any]) -> bool:
        """Store one run; False (and nothing written) if a good run is already at its address."""

    @abstractmethod
    def has_run(self, address: RunAddress) -> bool: ...

    @abstractmethod
    def done_addresses(self, sweep_id: str) -> set[RunAddress]: ...

    def stored_runs(self, sweep_id: str) -> StoredRuns:
        """``done_addresses``, and the files of the sweep's runs that readers leave out (a
        backend that never leaves one out has none), from one read."""
        return StoredRuns(self.done_addresses(sweep_id))

    def runs(
        self,
        sweep_id: str,
        *,
        include_failed: bool = False,
        config_key: str | None = None,
        columns: Sequence[str] | None = None,
    ) -> pd.DataFrame:
        """Runs of a sweep without the bulky raw columns (fio JSON, job file); with
        ``columns``, only those, in that order (``records.run_columns`` checks them, the same
        way for every backend): the same rows as without, for a read of what a reader needs
        alone. Failed attempts only with ``include_failed``; one configuration's alone with
        ``config_key``."""
        return self._read_runs(sweep_id, run_columns(columns), include_failed, config_key)

    @abstractmethod
    def _read_runs(
        self, sweep_id: str, wanted: list[str], include_failed: bool, config_key: str | None
    ) -> pd.DataFrame:
        """The backend's read behind ``runs``: ``wanted`` is checked and in order."""

    @abstractmethod
    def run_detail(self, run_id: str, attempt: int | None = None) -> dict[str, Any] | None:
        """One run with every column, raw fio JSON and job file included: its good run, else
        its latest failed attempt; with ``attempt``, that one of ``run_attempts`` (1-based;
        ValueError naming the range when the run has no such attempt)."""

    @abstractmethod
    def run_attempts(self, run_id: str) -> list[dict[str, Any]]:
        """Each attempt at the run (a cell may fail before it succeeds): the failed ones in
        the order made, then the good run if any, each as ``ATTEMPT_FIELDS``; empty when
        the store holds no run ``run_id``."""

    # configurations -----------------------------------------------------
    @abstractmethod
    def put_configuration(self, row: dict[str, Any]) -> bool: ...

    @abstractmethod
    def configurations(self, sweep_id: str) -> pd.DataFrame: ...

    def compact(
        self, sweep_id: str, config_key: str | None = None, *, only_if_large: bool = False
    ) -> int:
        """Store a configuration's runs (every configuration's without ``config_key``) so
        that they read fast, every run staying readable throughout; returns how many stored
        items were merged (0: nothing to do, as for a backend that needs no compaction).
        ``only_if_large``: what a sweep asks after each configuration, the backend judging
        whether the sweep is large enough to be worth it."""
        return 0

    def remove_stale_temporaries(self, sweep_id: str) -> int:
        """Remove what writers killed mid-write left behind; returns how many."""
        return 0

    # progress -----------------------------------------------------------
    @abstractmethod
    def write_progress(
        self, sweep_id: str, progress: dict[str, Any], worker: str | None = None
    ) -> None:
        """Keep the progress record of the sweep's sweeper (``worker``: one of several)."""

    @abstractmethod
    def read_progress(self, sweep_id: str) -> dict[str, Any] | None:
        """The sweep's progress as one record, read from every sweeper's; None if none ran."""

    @abstractmethod
    def forget_ended_workers(self, sweep_id: str) -> None:
        """Drop the records of workers no longer running: a sweeper without ``--worker``
        takes over their configurations (it recovers every worker's), so their old states
        no longer tell the sweep's."""
