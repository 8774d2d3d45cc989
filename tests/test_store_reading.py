"""The Parquet store's reads through DuckDB (``sweeper/store/reading.py``)."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pytest

from sweeper.store.reading import query_files


def test_a_query_over_no_files_is_answered_once_and_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    """A sweep asks for a new configuration's runs before it has any: the answer over no
    files (here an aggregate's row and an empty selection) comes from DuckDB the first
    time and from memory after that."""
    schema = pa.schema([("sweep_id", pa.string()), ("iops", pa.float64())])
    counted = "SELECT count(*) AS n, max(iops) AS top FROM parts WHERE sweep_id = ?"
    first = query_files([], schema, counted, ["s"])
    assert first.to_pylist() == [{"n": 0, "top": None}]
    selected = query_files([], schema, "SELECT iops FROM parts", None)
    assert selected.num_rows == 0 and selected.schema.names == ["iops"]

    def no_connection(*_: object, **__: object) -> None:
        raise AssertionError("asked DuckDB again")

    monkeypatch.setattr(duckdb, "connect", no_connection)
    assert query_files([], schema, counted, ["s"]).equals(first)
    assert query_files([], schema, "SELECT iops FROM parts", None).equals(selected)
