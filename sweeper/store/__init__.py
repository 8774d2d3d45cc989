"""The results store: every run under its address, readable while a sweep writes."""

from sweeper.store.base import ResultsStore
from sweeper.store.parquet import ParquetStore, atomic_write_bytes
from sweeper.store.records import CONFIG_SCHEMA, RUN_SCHEMA, RunAddress

__all__ = [
    "CONFIG_SCHEMA",
    "RUN_SCHEMA",
    "ParquetStore",
    "ResultsStore",
    "RunAddress",
    "atomic_write_bytes",
    "open_store",
]


def open_store(root) -> ResultsStore:
    return ParquetStore(root)
