r"""``raidsweep sql``: SQL over the store, through DuckDB, with every run in view.

A sweep keeps its runs as one Parquet file each and merges them into ``compacted/`` parts as it
goes, so a glob over one layout misses the other's runs. This command reads each sweep through
the store itself (both layouts, one row per run, damaged files left out and named) and gives
DuckDB two views over all sweeps: ``runs`` (every attempt, ``status = 'ok'`` for the good ones;
without the bulky job file, fio JSON and disclosure, which ``raidsweep disclose`` prints) and
``configurations`` (every configuration attempt and its facts).

The query is the user's own and runs in an in-memory database that can reach no file: DuckDB's
external access is off and locked before the query runs (no ``read_csv``, ``COPY … TO``,
``ATTACH`` or extensions).

Every value is written as DuckDB itself writes it, whatever its type, converted inside DuckDB
(pandas' own conversion lost or refused some types: a UUID, a BLOB, a BIT, a HUGEINT):

- table and csv: DuckDB's text form (``CAST … AS VARCHAR``): a UUID as its text, a BLOB with
  each byte outside printable ASCII as ``\xHH`` (``'\xFF'::BLOB`` reads it back), a BIT as its
  bits, an interval as ``1 year 2 months 3 days 04:05:06``, nested types as ``[1, 2]``,
  ``{'a': 1}`` and ``{k=v}``, decimals and huge integers in every digit, ``nan``, ``inf``. A
  table lays out floating point numbers as pandas does and shows SQL's NULL as NULL; csv
  writes NULL as an empty field and the empty string as ``""`` (as DuckDB's and PostgreSQL's
  CSV do), booleans as ``true``/``false``.
- json: one object a row, each value as DuckDB's ``to_json`` writes it: numbers (huge integers
  and decimals in every digit), lists and structs as arrays and objects, the other types as
  the strings above; NaN and ±infinity, which JSON cannot hold, as the strings ``"NaN"``,
  ``"Infinity"`` and ``"-Infinity"``, so that ``null`` is NULL alone.

A SELECT streams out as DuckDB produces it; a last statement of another kind (``CALL``,
``EXECUTE``, ``… RETURNING``) has run whole before its rows are written.
"""

from __future__ import annotations

import os
import re
import sys
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.markup import escape

from sweeper.cli.common import DEFAULT_STORE, StoreOpt, console, err, fail
from sweeper.cli.interrupts import INTERRUPTED, relayed_to
from sweeper.cli.opening import warn_damaged
from sweeper.cli.streams import OutputError
from sweeper.untrusted import shown_text

if TYPE_CHECKING:
    import duckdb
    import pandas as pd
    import pyarrow as pa

    from sweeper.store import ResultsStore

Query = Annotated[
    str,
    typer.Argument(help="The SQL query over the views runs and configurations ('-': stdin)."),
]
Format = Annotated[
    str,
    typer.Option(
        "--format",
        help="table, csv or json (one object a row); every value as DuckDB writes it "
        '(a BLOB as its \\xHH text, NaN in json as the string "NaN").',
    ),
]
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
    # No temporary folder: DuckDB's default (``.tmp`` in the current folder) would stay
    # reachable by the query after external access is turned off.
    con = duckdb.connect(config={"temp_directory": ""})
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


#: the longest query read from standard input, in characters (a spec's limit: 1 MiB)
STDIN_LIMIT = 1024 * 1024


def _standard_input() -> str:
    """The query on standard input, at most ``STDIN_LIMIT`` characters (exit 2 beyond)."""
    text = sys.stdin.read(STDIN_LIMIT + 1)
    if len(text) > STDIN_LIMIT:
        fail(ValueError(f"the query on standard input is longer than {STDIN_LIMIT:,} characters"))
    return text


class _Deadline:
    """``--timeout``: once it has passed, the query is interrupted, and again every 50 ms
    until it ends (an interrupt DuckDB takes before the query starts is lost)."""

    def __init__(self, seconds: float, interrupt: Callable[[], None]) -> None:
        self._ended = threading.Event()
        self._thread = threading.Thread(target=self._watch, args=(seconds, interrupt), daemon=True)

    def _watch(self, seconds: float, interrupt: Callable[[], None]) -> None:
        if self._ended.wait(seconds):
            return
        while not self._ended.is_set():
            interrupt()
            self._ended.wait(0.05)

    def start(self) -> None:
        self._thread.start()

    def cancel(self) -> None:
        self._ended.set()
        self._thread.join()


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
    text = _without_trailing(_standard_input() if query == "-" else query)
    if not store.is_dir():
        fail(FileNotFoundError(f"{store}: no results store there"))
    if not text.strip():
        fail(ValueError("the query is empty"))
    if (problem := _not_utf8(text)) is not None:
        fail(ValueError(f"the query {problem}"))
    con: duckdb.DuckDBPyConnection | None = None
    timer: _Deadline | None = None
    written = _Written()

    def cut() -> str:
        return _CUT if written.rows else ""

    try:
        results = open_store(store)
        con = store_connection(results)
        warn_damaged(results)
        if INTERRUPTED.is_set():  # a Ctrl-C that a reader of the store took on the way
            raise KeyboardInterrupt
        timer = _Deadline(timeout, con.interrupt) if timeout else None
        if timer is not None:
            timer.start()
        with relayed_to(con.interrupt):  # a Ctrl-C stops the query however deep in DuckDB
            _write(*_result(con, text, output), output, written)
    except duckdb.InterruptException:
        if INTERRUPTED.is_set():
            _interrupted(cut())
        fail(TimeoutError(f"the query ran past --timeout {timeout:g} s and was stopped{cut()}"))
    except (duckdb.Error, _StreamError) as exc:
        if INTERRUPTED.is_set():  # Ctrl-C inside a DuckDB callback into Python
            _interrupted(cut())
        if isinstance(exc, _StreamError) and exc.interrupted:  # stopped by the timer
            fail(TimeoutError(f"the query ran past --timeout {timeout:g} s and was stopped{cut()}"))
        fail(ValueError(f"the query: {exc}{cut()}"))
    except _WriteError as exc:  # not the query's fault: exit 1, as for any failure
        err.print(f"[bold red]error:[/] {escape(str(exc))}{cut()}", highlight=False)
        raise typer.Exit(1) from None
    except (KeyboardInterrupt, RuntimeError) as exc:
        # Ctrl-C inside DuckDB comes back as RuntimeError("Query interrupted").
        if isinstance(exc, RuntimeError) and not INTERRUPTED.is_set():
            raise
        _interrupted(cut())
    finally:
        if timer is not None:
            timer.cancel()
        if con is not None:
            con.close()


def _without_trailing(text: str) -> str:
    """The query without the semicolons and comments after its last statement
    (``SELECT …; -- note``), which DuckDB's relation of that statement does not take."""
    import duckdb

    try:
        tokens = duckdb.tokenize(text)
    except (duckdb.Error, RuntimeError, TypeError):  # DuckDB names it when the query runs
        return text
    if not tokens:
        return text
    ends = [start for start, _ in tokens[1:]] + [len(text)]
    cut = len(text)
    for (start, kind), end in reversed(list(zip(tokens, ends, strict=True))):
        piece = text[start:end].rstrip()
        whole_comment = kind == duckdb.token_type.comment and (
            piece.startswith("--") or (piece.startswith("/*") and piece.endswith("*/"))
        )
        if not (whole_comment or (kind == duckdb.token_type.operator and piece == ";")):
            break
        cut = start
    return text[:cut]


def _interrupted(cut: str) -> NoReturn:
    err.print(f"interrupted{cut}", highlight=False)
    raise typer.Exit(130)


def _not_utf8(text: str) -> str | None:
    """Where ``text`` (an argument or stdin, whose bytes Python keeps as surrogate escapes
    where they are not UTF-8) is not UTF-8 text, or None."""
    for i, char in enumerate(text):
        if "\udc80" <= char <= "\udcff":
            return (
                f"is not UTF-8 text: byte {shown_text(char)} at character {i + 1}; "
                "write it in UTF-8"
            )
    return None


#: said when a query stops part way after csv or json rows went out (they go out as they come)
_CUT = " (rows already written are only the start of the result)"

#: the rows a table shows: more is a file's work (``--format csv``), not a terminal's
TABLE_ROWS = 10_000

#: DuckDB vectors (2,048 rows each) fetched at a time: the result never sits whole in memory
_VECTORS = 50
_BATCH_ROWS = _VECTORS * 2048


class _Written:
    """Whether any row of the result has gone out (a header alone is no row)."""

    rows = False


def _literal(text: str) -> str:
    """``text`` as an SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def _distinct(names: list[str]) -> list[str]:
    """The result's column names, a repeated one numbered as DuckDB numbers it (``a``, ``a_1``)."""
    out: list[str] = []
    for name in names:
        given, n = name, 0
        while given in out:
            n += 1
            given = f"{name}_{n}"
        out.append(given)
    return out


def _csv_field(value: str) -> str:
    """One csv field (RFC 4180): quoted when it is empty (an empty string, not NULL) or holds
    a comma, a quote or a line break."""
    return (
        f"CASE WHEN {value} = '' OR regexp_matches({value}, '[,\"\\r\\n]') "
        f"THEN '\"' || replace({value}, '\"', '\"\"') || '\"' ELSE {value} END"
    )


def _projection(types: list[duckdb.DuckDBPyType], names: list[str], output: str) -> str:
    """The SELECT list that turns the result into text by DuckDB's own rules, in DuckDB.

    table: every value in DuckDB's text form (``CAST … AS VARCHAR``), floating point numbers
    left as numbers for pandas to lay out (NaN and NULL kept apart by Arrow). csv: one line a
    row, each value in DuckDB's text form, NULL an empty field, the empty string ``""``. json:
    one object a row, each value as DuckDB's ``to_json`` writes it (numbers exact, nested types
    as arrays and objects, the rest as text)."""
    refs = [f"#{i}" for i in range(1, len(types) + 1)]
    if output == "json":
        pairs = ", ".join(f"{_literal(n)}, {r}" for n, r in zip(names, refs, strict=True))
        return f"CAST(json_object({pairs}) AS VARCHAR) AS line"
    if output == "csv":
        fields = [
            f"CASE WHEN {r} IS NULL THEN '' ELSE ({_csv_field(f'CAST({r} AS VARCHAR)')}) END"
            for r in refs
        ]
        return "concat(" + ", ',', ".join(fields) + ") AS line"
    return ", ".join(
        f"{r} AS c{i}"
        if t.id in ("float", "double", "varchar")
        else f"CAST({r} AS VARCHAR) AS c{i}"
        for i, (r, t) in enumerate(zip(refs, types, strict=True))
    )


def _result(
    con: duckdb.DuckDBPyConnection, text: str, output: str
) -> tuple[list[str], Iterator[pa.RecordBatch]]:
    """The names of the columns of the query's last statement and its rows as text, in Arrow
    batches of at most ``_BATCH_ROWS`` rows; a query (SELECT) runs once, as they are read."""
    relation = con.sql(text)
    if relation is None:  # no statement returned rows
        return [], iter(())
    names = _distinct(list(relation.columns))
    projected = relation.project(_projection(list(relation.types), names, output))
    return names, _read(projected.to_arrow_reader(_BATCH_ROWS))


class _StreamError(Exception):
    """DuckDB's error while its result streams out, which Arrow's reader passes on as its
    own (an ``OSError``); ``interrupted`` when the query was stopped (Ctrl-C or --timeout)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.interrupted = message.startswith("INTERRUPT Error")


def _read(reader: pa.RecordBatchReader) -> Iterator[pa.RecordBatch]:
    import pyarrow as pa

    try:
        yield from reader
    except (OSError, pa.ArrowException) as exc:
        raise _StreamError(str(exc)) from None


#: a JSON string (passed over whole) or a number JSON has no words for, as DuckDB writes it
_NON_FINITE = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)')


def _json_text(lines: str) -> str:
    """DuckDB writes NaN and ±Infinity bare, which is no JSON: they become the strings
    "NaN", "Infinity" and "-Infinity" (null is SQL's NULL alone)."""
    if "NaN" not in lines and "Infinity" not in lines:
        return lines
    return _NON_FINITE.sub(lambda m: f'"{m.group(1)}"' if m.group(1) else m.group(0), lines)


def _csv_header(names: list[str]) -> str:
    quoted = (
        '"' + n.replace('"', '""') + '"' if n == "" or any(c in n for c in ',"\r\n') else n
        for n in names
    )
    return ",".join(quoted) + "\n"


class _WriteError(Exception):
    """Standard output cannot take the result (a full disk, a device error)."""


def _out(text: str) -> None:
    try:
        sys.stdout.write(text)
    except BrokenPipeError:  # the reader left (``| head``): the command's own way out
        raise
    except OSError as exc:
        raise _WriteError(f"cannot write the result to standard output: {exc}") from None
    except OutputError as exc:  # sweeper.cli.streams: full, failing or closed
        raise _WriteError(f"cannot write the result to standard output: {exc.reason}") from None


def _write(
    names: list[str], batches: Iterator[pa.RecordBatch], output: str, written: _Written
) -> None:
    """csv and json stream batch by batch; a table gathers at most ``TABLE_ROWS`` rows."""
    if output in ("csv", "json"):
        if output == "csv" and names:
            _out(_csv_header(names))
        for batch in batches:
            if not batch.num_rows:
                continue
            lines = "\n".join(batch.column(0).to_pylist()) + "\n"
            _out(_json_text(lines) if output == "json" else lines)
            written.rows = True
        return
    gathered: list[pa.RecordBatch] = []
    shown, more = 0, False
    for batch in batches:
        room = TABLE_ROWS - shown
        gathered.append(batch.slice(0, room))
        shown += gathered[-1].num_rows
        if batch.num_rows > room:
            more = True
            break
    names = [_cell_text(n) for n in names]
    frame = _table_frame(names, gathered)
    text = (
        frame.to_string(
            index=False,
            # on a terminal (or with COLUMNS set) columns past its width continue below;
            # piped, lines stay whole
            line_width=console.width if console.is_terminal or "COLUMNS" in os.environ else None,
        )
        if len(frame)
        else "\n".join([*names, "(no rows)"])
    )
    console.print(text, highlight=False, markup=False, soft_wrap=True)
    if more:
        err.print(
            f"the first {TABLE_ROWS:,} rows shown: --format csv or json writes every row, "
            "or add LIMIT to the query",
            highlight=False,
        )


def _table_frame(names: list[str], batches: list[pa.RecordBatch]) -> pd.DataFrame:
    """The rows a table shows, every column text: SQL's NULL as NULL, a floating point
    column laid out by pandas with its NaN as nan."""
    import pandas as pd
    import pyarrow as pa

    if not batches:
        return pd.DataFrame(columns=names)
    table = pa.Table.from_batches(batches)
    frame = table.to_pandas()
    frame.columns = names
    for i, name in enumerate(names):
        column = table.column(i)
        nulls = column.is_null().to_numpy(zero_copy_only=False)
        if pa.types.is_floating(column.type):
            laid_out = frame[name].to_string(index=False, na_rep="nan").splitlines()
            values = pd.Series([s.strip() for s in laid_out], dtype=object)
        else:
            values = frame[name].astype(object).map(_cell_text)
        frame[name] = values.where(~nulls, "NULL")
    return frame


#: what a table cannot show as itself: control characters (ESC colours the terminal or makes
#: an OSC 8 link, a line break splits a row), the 8-bit C1 controls (CSI ``\x9b``) and the
#: bidirectional controls (text shown in another order than written)
_UNSHOWN = re.compile(r"[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _cell_text(value: object) -> object:
    """A value (or a column's name) as a table shows it: text with each character the
    terminal would act on written as its escape (``\\x1b``, ``\\n``); csv and json carry
    the characters themselves (json escaped), as data."""
    if not isinstance(value, str):
        return value
    return _UNSHOWN.sub(lambda m: repr(m.group())[1:-1], value)
