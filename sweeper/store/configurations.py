"""A sweep's configuration records: one Parquet file per attempt at a configuration
(``<sweep>/configurations/<configuration's id>-<attempt>.parquet``), written once, and
the read of them in the order they started."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sweeper.store.files import atomic_write_bytes, table_bytes
from sweeper.store.layout import CONFIGURATIONS
from sweeper.store.records import CONFIG_SCHEMA, RunAddress

#: every configuration record of a sweep, over the view ``parts`` (``reading.query_files``)
CONFIGURATIONS_SQL = "SELECT * EXCLUDE (filename) FROM parts ORDER BY started_at, attempt"


def put_configuration(root: Path, row: dict[str, Any]) -> bool:
    """Store the configuration record ``row``; False (and nothing written) when its attempt
    is already stored."""
    name = f"{RunAddress(row['sweep_id'], row['config_key'], '', 0).run_id}-{row['attempt']}"
    path = root / row["sweep_id"] / CONFIGURATIONS / f"{name}.parquet"
    return atomic_write_bytes(path, table_bytes(row, CONFIG_SCHEMA), replace=False)
