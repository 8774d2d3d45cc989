"""``raidsweep report``: the self-contained HTML report of a sweep, with its Markdown and CSV."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from sweeper.cli.common import (
    DEFAULT_STORE,
    ClassOpt,
    StoreOpt,
    SweepArg,
    checked_output,
    console,
    fail,
)
from sweeper.cli.opening import open_sweep, warn_damaged
from sweeper.errors import InputError, StoreError


def report(
    sweep: SweepArg = None,
    store: StoreOpt = DEFAULT_STORE,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="HTML file.", parser=checked_output, metavar="<path>"),
    ] = None,
    classes: ClassOpt = None,
) -> None:
    """Write the self-contained HTML report of a sweep, and beside it the same in Markdown
    (NAME.md for NAME.html) and its tables as CSV (NAME-rankings.csv, -evidence, -features,
    -decisions): all of them or none. Two writers of one report take turns: the second
    waits for the first, then writes its own set whole."""
    from recommender.report import write_report

    results, record = open_sweep(store, sweep, classes, ranked=True)
    target = output or (Path(store) / record["sweep_id"] / "report.html")
    if target.suffix.lower() not in (".html", ".htm"):
        fail(ValueError(f"--output {target}: the report is HTML; name it *.html"))
    try:
        html_path, *others = write_report(results, record, target)
    except InputError as exc:  # a class of the sweep's that no longer loads, or another
        fail(exc)  # writer of this report holding it past LOCK_WAIT_S: nothing written
    except OSError as exc:  # a read-only or full filesystem, a folder or the user's file there
        advice = "write the report elsewhere with --output"
        where = exc.filename or target
        fail(StoreError(f"{where}: cannot be written ({exc.strerror}); {advice}"))
    warn_damaged(results)
    console.print(f"report written: {escape(str(html_path))}", highlight=False)
    for extra in others:
        console.print(f"  and {escape(str(extra))}", highlight=False)
