"""``raidsweep sql``: SQL over the store, through DuckDB, with every run in view.

A sweep keeps its runs as one Parquet file each and merges them into ``compacted/`` parts as it
goes, so a glob over one layout misses the other's runs. This command reads each sweep through
the store itself (both layouts, one row per run, damaged files left out and named) and gives
DuckDB two views over all sweeps: ``runs`` (every attempt, ``status = 'ok'`` for the good ones;
without the bulky job file, fio JSON and disclosure, which ``raidsweep disclose`` prints) and
``configurations`` (every configuration attempt and its facts).

The query is the user's own and runs in an in-memory database that can reach no file: DuckDB's
external access is off and locked before the query runs (no ``read_csv``, ``COPY … TO``,
``ATTACH`` or extensions).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from sweeper.cli.common import DEFAULT_STORE, StoreOpt, console, fail
from sweeper.cli.opening import warn_damaged

if TYPE_CHECKING:
    import duckdb

    from sweeper.store import ResultsStore

Query = Annotated[
    str,
    typer.Argument(help="The SQL query over the views runs and configurations ('-': stdin)."),
]
Format = Annotated[str, typer.Option("--format", help="table, csv or json (one object a row).")]
FORMATS = ("table", "csv", "json")


def store_connection(results: ResultsStore) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with the views ``runs`` and ``configurations`` over every sweep of
    ``results``, read through the store (both layouts), and no access to any file."""
    import duckdb
    import pandas as pd
    import pyarrow as pa

    from sweeper.store.records import CONFIG_SCHEMA, RUN_SCHEMA

    sweeps = [r["sweep_id"] for r in results.list_sweeps()]
    runs = [results.runs(s, include_failed=True) for s in sweeps]
    configs = [results.configurations(s) for s in sweeps]
    con = duckdb.connect()
    for name, frames, schema in (
        ("runs", runs, RUN_SCHEMA),
        ("configurations", configs, CONFIG_SCHEMA),
    ):
        frames = [f for f in frames if len(f)]
        if frames:
            table = pa.Table.from_pandas(pd.concat(frames, ignore_index=True), preserve_index=False)
        else:
            table = schema.empty_table()
        con.register(f"_{name}", table)
        # The two view names are ours (the loop above), never the user's.
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM _{name}")  # noqa: S608
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


def sql(
    query: Query,
    store: StoreOpt = DEFAULT_STORE,
    output: Format = "table",
) -> None:
    """Run SQL (DuckDB) over the store's views runs and configurations, every sweep and
    every run in them, compacted or not."""
    import duckdb

    from sweeper.store import open_store

    if output not in FORMATS:
        raise typer.BadParameter(
            f"{output!r} is not one of {', '.join(FORMATS)}", param_hint="--format"
        )
    text = sys.stdin.read() if query == "-" else query
    if not store.is_dir():
        fail(FileNotFoundError(f"{store}: no results store there"))
    results = open_store(store)
    con = store_connection(results)
    warn_damaged(results)
    try:
        frame = con.sql(text).df() if text.strip() else None
    except duckdb.Error as exc:
        fail(ValueError(f"the query: {exc}"))
    finally:
        con.close()
    if frame is None:
        fail(ValueError("the query is empty"))
    if output == "csv":
        sys.stdout.write(frame.to_csv(index=False))
    elif output == "json":
        sys.stdout.write(frame.to_json(orient="records", lines=True, date_format="iso"))
    else:
        console.print(frame.to_string(index=False), highlight=False, markup=False, soft_wrap=True)
