"""The ``raidsweep`` command: its commands, in the order ``--help`` lists them.

Each command lives in a module of its own and imports what it needs when it runs, so that
``raidsweep --help`` and a mistyped option answer at once."""

from __future__ import annotations

import typer

from sweeper.cli.accept import accept
from sweeper.cli.browser import run_app
from sweeper.cli.capture import capture
from sweeper.cli.characterize import characterize
from sweeper.cli.compare import compare
from sweeper.cli.curves import curves
from sweeper.cli.disclose import disclose
from sweeper.cli.drift import drift
from sweeper.cli.lab import lab_app
from sweeper.cli.ready import ready
from sweeper.cli.recommend import recommend
from sweeper.cli.report import report
from sweeper.cli.run import run
from sweeper.cli.sql import sql
from sweeper.cli.status import status
from sweeper.cli.storage import plan, teardown

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,  # locals may hold secrets
    help="Commission a storage array: sweep configurations × fio workloads, rank per class.",
)
for command in (run, ready, status, recommend, curves, drift, report, disclose, sql):
    app.command()(command)
app.command(name="app")(run_app)
for command in (plan, teardown):
    app.command()(command)
for command in (compare, accept):
    app.command()(command)
for command in (capture, characterize):
    app.command()(command)
app.add_typer(lab_app, name="lab")


def main() -> None:
    app()
