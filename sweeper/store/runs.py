"""One run stored under its address, and whether its good run is stored: the good run in its
address's place, once (a second write finds the place taken and does nothing), each failed
attempt beside it under the time it finished."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from sweeper.errors import StoreError
from sweeper.store.files import atomic_write_bytes, table_bytes
from sweeper.store.layout import parts, run_path
from sweeper.store.records import RUN_SCHEMA, RunAddress, config_folder
from sweeper.store.wholeness import RUN_LAYOUT, keys_of_part, note_written, stored_keys


def put_run(root: Path, row: dict[str, Any]) -> bool:
    """Store the run ``row`` under the store at ``root``; False (and nothing written) when a
    good run is already at its address."""
    address = RunAddress(row["sweep_id"], row["config_key"], row["cell_key"], row["repetition"])
    row = dict(row, run_id=address.run_id)
    path = run_path(root, address)
    replace = False
    if row["status"] == "ok":
        if has_run(root, address):
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
            f"{path}: a folder where run {address.run_id}'s file goes; remove it to store the run"
        ) from None
    if written:
        note_written(path, RUN_SCHEMA)
    return written


def has_run(root: Path, address: RunAddress) -> bool:
    """Whether readers read a good run at ``address``."""
    # The run file first, the parts second: a compaction writes the part before it
    # removes the file, so a run is found at every moment. A file in the run's place
    # counts only if readers read the run from it (not damaged, nor a FIFO, nor another
    # run's), or a run they leave out would never be measured again.
    key = (address.run_id, "ok", None)
    path = run_path(root, address)
    # judged once, as readers judge it (what reads as a run reads as its keys too)
    with contextlib.suppress(FileNotFoundError, StoreError):
        if key in stored_keys(path, RUN_LAYOUT):
            return True
    folder = config_folder(address.sweep_id, address.config_key)
    for part in parts(root, address.sweep_id, folder):
        # a damaged part holds no run readers read
        with contextlib.suppress(FileNotFoundError, StoreError):
            if key in keys_of_part(part):
                return True
    return False
