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

import os
import sys
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from sweeper.cli.common import DEFAULT_STORE, StoreOpt, console, err, fail
from sweeper.cli.interrupts import INTERRUPTED, relayed_to
from sweeper.cli.opening import warn_damaged

if TYPE_CHECKING:
    import duckdb
    import pandas as pd

    from sweeper.store import ResultsStore

Query = Annotated[
    str,
    typer.Argument(help="The SQL query over the views runs and configurations ('-': stdin)."),
]
Format = Annotated[str, typer.Option("--format", help="table, csv or json (one object a row).")]
FORMATS = ("table", "csv", "json")
Timeout = Annotated[
    float | None,
    typer.Option(
        "--timeout",
        callback=lambda value: _positive(value),
        help="Stop the query after this many seconds (exit 2); no limit when not given.",
    ),
]


#: the longest --timeout: a week (a timer's end must be a time the system can hold)
_TIMEOUT_MAX_S = 7 * 86400


def _positive(value: float | None) -> float | None:
    if value is not None and not 0 < value <= _TIMEOUT_MAX_S:
        raise typer.BadParameter(
            f"{value:g} is not a number of seconds above 0 and at most {_TIMEOUT_MAX_S:,} (a week)"
        )
    return value


def store_connection(results: ResultsStore) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB with the views ``runs`` and ``configurations`` over every sweep of
    ``results``, read through the store (both layouts), and no access to any file."""
    import duckdb
    import pandas as pd
    import pyarrow as pa

    from sweeper.store.records import CONFIG_SCHEMA, RUN_SCHEMA

    sweeps = [r["sweep_id"] for r in results.list_sweeps()]
    # Each read says what it left out in ``damaged``, anew: gathered over all of them.
    damaged = list(getattr(results, "damaged", []))
    runs, configs = [], []
    for s in sweeps:
        runs.append(results.runs(s, include_failed=True))
        damaged += getattr(results, "damaged", [])
        configs.append(results.configurations(s))
        damaged += getattr(results, "damaged", [])
    if hasattr(results, "damaged"):
        results.damaged = list(dict.fromkeys(damaged))
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
    timeout: Timeout = None,
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
    if not text.strip():
        fail(ValueError("the query is empty"))
    con: duckdb.DuckDBPyConnection | None = None
    timer: threading.Timer | None = None
    cut = _CUT if output != "table" else ""
    try:
        results = open_store(store)
        con = store_connection(results)
        warn_damaged(results)
        if INTERRUPTED.is_set():  # a Ctrl-C that a reader of the store took on the way
            raise KeyboardInterrupt
        timer = threading.Timer(timeout, con.interrupt) if timeout else None
        if timer is not None:
            timer.start()
        with relayed_to(con.interrupt):  # a Ctrl-C stops the query however deep in DuckDB
            _write(_chunks(con, text), output)
    except duckdb.InterruptException:
        if INTERRUPTED.is_set():
            _interrupted(cut)
        fail(TimeoutError(f"the query ran past --timeout {timeout:g} s and was stopped{cut}"))
    except duckdb.Error as exc:
        if INTERRUPTED.is_set():  # Ctrl-C inside a DuckDB callback into Python
            _interrupted(cut)
        fail(ValueError(f"the query: {exc}{cut}"))
    except (KeyboardInterrupt, RuntimeError) as exc:
        # Ctrl-C inside DuckDB comes back as RuntimeError("Query interrupted").
        if isinstance(exc, RuntimeError) and not INTERRUPTED.is_set():
            raise
        _interrupted(cut)
    finally:
        if timer is not None:
            timer.cancel()
        if con is not None:
            con.close()


def _interrupted(cut: str) -> NoReturn:
    err.print(f"interrupted{cut}", highlight=False)
    raise typer.Exit(130)


#: said when a query stops part way: csv and json rows go out as they come
_CUT = " (rows already written are only the start of the result)"

#: the rows a table shows: more is a file's work (``--format csv``), not a terminal's
TABLE_ROWS = 10_000

#: DuckDB vectors (2,048 rows each) fetched at a time: the result never sits whole in memory
_VECTORS = 50


def _chunks(con: duckdb.DuckDBPyConnection, text: str) -> Iterator[pd.DataFrame]:
    """The result of the query's last statement, a frame of at most ``_VECTORS`` vectors at a
    time; the first always comes (with the columns, even when there are no rows)."""
    result = con.execute(text)
    chunk = result.fetch_df_chunk(_VECTORS)
    yield chunk
    while len(chunk):
        chunk = result.fetch_df_chunk(_VECTORS)
        if len(chunk):
            yield chunk


def _nulls_as_sql(frame: pd.DataFrame) -> pd.DataFrame:
    """SQL's NULL printed as NULL in every column (pandas prints None, NaN or <NA> by type;
    float columns take ``na_rep``, the others are replaced here)."""
    out = frame.copy()
    for col in out.columns:
        values = out[col]
        if values.dtype.kind != "f" and values.isna().any():
            out[col] = values.astype(object).where(values.notna(), "NULL")
    return out


def _write(chunks: Iterator[pd.DataFrame], output: str) -> None:
    """csv and json stream chunk by chunk; a table gathers at most ``TABLE_ROWS`` rows."""
    if output == "csv":
        for i, chunk in enumerate(chunks):
            sys.stdout.write(chunk.to_csv(index=False, header=i == 0))
        return
    if output == "json":
        for chunk in chunks:
            if len(chunk):
                sys.stdout.write(chunk.to_json(orient="records", lines=True, date_format="iso"))
        return
    import pandas as pd

    frames: list[pd.DataFrame] = []
    shown, more = 0, False
    for chunk in chunks:
        room = TABLE_ROWS - shown
        frames.append(chunk.iloc[:room])
        shown += len(frames[-1])
        if len(chunk) > room:
            more = True
            break
    frame = _nulls_as_sql(pd.concat(frames, ignore_index=True))
    text = (
        frame.to_string(
            index=False,
            na_rep="NULL",
            # on a terminal (or with COLUMNS set) columns past its width continue below;
            # piped, lines stay whole
            line_width=console.width if console.is_terminal or "COLUMNS" in os.environ else None,
        )
        if len(frame)
        else "\n".join([*frame.columns, "(no rows)"])
    )
    console.print(text, highlight=False, markup=False, soft_wrap=True)
    if more:
        err.print(
            f"the first {TABLE_ROWS:,} rows shown: --format csv or json writes every row, "
            "or add LIMIT to the query",
            highlight=False,
        )
