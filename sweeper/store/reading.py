"""DuckDB's read of a list of the store's Parquet files: the SQL runs over a view ``parts``
of them, each row with its file's name; the paths are given through DuckDB's API and never
become part of a query."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa


def query_files(
    files: list[Path],
    schema: pa.Schema,
    sql: str,
    params: list[Any] | None,
    *,
    exact: bool = True,
) -> pa.Table:
    """``sql`` over the view ``parts`` of ``files`` (each row with its ``filename``), read
    with ``schema``'s columns. ``exact``: every file has exactly ``schema`` (checked by the
    caller, ``wholeness.damaged_parts``)."""
    # Parts this raidsweep wrote all have the current schema: DuckDB can then take the
    # first file's columns for all, which spares reading every footer a second time. Parts
    # written by an older raidsweep (fewer columns) or a newer one (more), or holding a
    # column in another width, are read by name instead.
    if not files:
        try:
            return _over_no_files(schema, sql, tuple(params or ()))
        except TypeError:  # a parameter that cannot be a cache key (a list): read, uncached
            return _read_files([], schema, sql, params, by_name=False)
    return _read_files(files, schema, sql, params, by_name=not exact)


@functools.lru_cache(maxsize=64)
def _over_no_files(schema: pa.Schema, sql: str, params: tuple[Any, ...]) -> pa.Table:
    """``sql`` over no files: the same answer every time (an empty table, or an aggregate's
    one row), kept after the first ask. A sweep asks it for every configuration it starts
    (its runs so far: none), and a DuckDB connection costs 30–80 ms."""
    return _read_files([], schema, sql, list(params), by_name=False)


def _read_files(
    files: list[Path], schema: pa.Schema, sql: str, params: list[Any] | None, *, by_name: bool
) -> pa.Table:
    con = duckdb.connect()
    try:
        if not files:
            con.register("empty", schema.empty_table())
            con.sql("CREATE VIEW parts AS SELECT *, NULL::VARCHAR AS filename FROM empty")
        else:
            # Read through the API, not SQL text: the path never becomes part of a query.
            # Unioned with the current schema's empty table, so that parts written by an
            # older raidsweep (without newer columns) read as nulls there.
            # DuckDB globs every name it is given: each is read as exactly that file
            names = [literal_name(f) for f in files]
            parts = con.read_parquet(names, union_by_name=by_name, filename=True)
            con.register("current", schema.empty_table())
            parts.create_view("files")
            con.sql(
                "CREATE VIEW parts AS SELECT * FROM files UNION ALL BY NAME SELECT * FROM current"
            )
        return con.sql(sql, params=params or None).to_arrow_table()
    finally:
        con.close()


#: the characters DuckDB's file names glob by, each as a class matching just itself
_GLOB_LITERAL = str.maketrans({"[": "[[]", "*": "[*]", "?": "[?]"})


def literal_name(path: Path) -> str:
    """``path`` as a pattern DuckDB's glob matches to that one file alone: a store under
    ``runs[1]`` (or ``a*``, ``b?``) would otherwise read the runs of ``runs1`` (``a1``, ``bx``)
    beside it."""
    return str(path).translate(_GLOB_LITERAL)
