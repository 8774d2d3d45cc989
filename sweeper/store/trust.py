"""What the store trusts of what it reads, gathered under one name: the modules that judge it
are ``one_row`` (which stored row is which record), ``wholeness`` (whether a Parquet file is
whole and of raidsweep's layout), ``footer`` (recognising raidsweep's own files) and
``sweep_record_check`` (whether a sweep's record names the sweep of its folder) and
``address_check`` (whether a stored run's address reads as raidsweep writes it)."""

from sweeper.store.address_check import address_problem
from sweeper.store.one_row import (
    ADDRESSED,
    COMPACTED,
    IDENTITY,
    KEYS,
    ONE_ROW_PER_ADDRESSED_RECORD,
    ONE_ROW_PER_RECORD,
    RECORD_KEY,
    is_run,
    misplaced,
    record_keys,
    runs_query,
)
from sweeper.store.sweep_record_check import NAME_RULE, name_problem, sweep_record
from sweeper.store.wholeness import (
    CONFIG_LAYOUT,
    RESTORE,
    RUN_KEYS,
    RUN_LAYOUT,
    Layout,
    damaged_parts,
    keys_of_part,
    note_written,
    part_problem,
    reads_as,
    reason,
    schema_problem,
    stored_keys,
    unreadable_files,
)

__all__ = [
    "ADDRESSED",
    "COMPACTED",
    "CONFIG_LAYOUT",
    "IDENTITY",
    "KEYS",
    "NAME_RULE",
    "ONE_ROW_PER_ADDRESSED_RECORD",
    "ONE_ROW_PER_RECORD",
    "RECORD_KEY",
    "RESTORE",
    "RUN_KEYS",
    "RUN_LAYOUT",
    "Layout",
    "address_problem",
    "damaged_parts",
    "is_run",
    "keys_of_part",
    "misplaced",
    "name_problem",
    "note_written",
    "part_problem",
    "reads_as",
    "reason",
    "record_keys",
    "runs_query",
    "schema_problem",
    "stored_keys",
    "sweep_record",
    "unreadable_files",
]
