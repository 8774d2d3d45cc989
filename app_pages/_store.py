"""The store the app reads: where it is, the sweeps it holds, and the signature of a sweep's
folder that the app's cached reads are keyed on (``_reads``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sweeper.store import ParquetStore

STORE_ENV = "RAIDSWEEP_STORE"
DEFAULT_STORE = "raidsweep-data"


def store_root() -> Path:
    return Path(os.environ.get(STORE_ENV) or DEFAULT_STORE)


def get_store() -> ParquetStore:
    return ParquetStore(store_root())


def sweep_ids(records: list[dict[str, Any]]) -> list[str]:
    """Sweep ids, newest first."""
    ordered = sorted(records, key=lambda r: str(r.get("created_at", "")), reverse=True)
    return [r["sweep_id"] for r in ordered if r.get("sweep_id")]


def signature(store: ParquetStore, sweep_id: str) -> tuple[int, ...]:
    """Changes whenever a run or a configuration is stored, runs are compacted (fewer files,
    one more part: a count of files alone could come back to an earlier value) or the
    progress record of any of its sweepers is written."""
    return (*store.version(sweep_id), *store.progress_version(sweep_id))
