"""The ``raidsweep`` command: its commands, in the order ``--help`` lists them.

Each command lives in a module of its own and imports what it needs when it runs, so that
``raidsweep --help`` and a mistyped option answer at once."""

from __future__ import annotations

import inspect
import sys
from collections.abc import Callable
from typing import Annotated, Any

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
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        typer.echo(f"raidsweep {version('raidsweep')}")
        raise typer.Exit()


@app.callback()
def _root(
    show_version: Annotated[
        bool,
        typer.Option(
            "--version", callback=_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    """Commission a storage array: sweep configurations × fio workloads, rank per class."""


def _summary(command: Callable[..., Any]) -> str:
    """The docstring's first paragraph on one line: the command list reflows it to the
    terminal (with rich markup, Typer would keep the docstring's own line breaks there)."""
    return " ".join(inspect.cleandoc(command.__doc__ or "").split("\n\n")[0].split())


for command in (run, ready, status, recommend, curves, drift, report, disclose, sql):
    app.command(short_help=_summary(command))(command)
app.command(name="app", short_help=_summary(run_app))(run_app)
for command in (plan, teardown, compare, accept, capture, characterize):
    app.command(short_help=_summary(command))(command)
app.add_typer(lab_app, name="lab")


def main() -> None:
    from sweeper.cli import interrupts, streams

    streams.guard()  # before anything opens a file: a closed stream's descriptor is free
    from rich.markup import escape

    from sweeper.cli.common import err, fail
    from sweeper.errors import StoreError

    interrupts.watch()
    try:
        try:
            try:
                app()
            finally:
                sys.stdout.flush()  # a write that fails only when flushed is named too
        except StoreError as exc:  # a store that cannot be read, found deep inside a command
            if interrupts.INTERRUPTED.is_set():
                raise
            try:
                fail(exc)
            except typer.Exit as done:
                raise SystemExit(done.exit_code) from None
        except streams.OutputError as exc:  # a full disk, a closed standard output
            err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False)
            raise SystemExit(1) from None
    except (Exception, KeyboardInterrupt, SystemExit) as exc:
        # Ctrl-C ends a command with 130, whatever it was doing (sweeper.cli.interrupts);
        # a command that took it and ended well (capture keeps what it has) keeps its status.
        code = exc.code if isinstance(exc, SystemExit) else 1
        if not interrupts.INTERRUPTED.is_set() or code in (0, None):
            raise
        if code == 130 and not _from_keyboard_interrupt(exc):
            raise  # the command said so itself (run: how to resume)
        err.print("interrupted", highlight=False)
        raise SystemExit(130) from None


def _from_keyboard_interrupt(exc: BaseException) -> bool:
    """Whether ``exc`` is Typer's exit for a KeyboardInterrupt no command handled: Typer
    raises ``Exit(130) from`` it, exits with its code and prints nothing. A command's own
    ``typer.Exit(130)``, raised while it handles the interrupt, has it as its context only
    (and has said so itself)."""
    typer_exit = exc.__context__ if isinstance(exc, SystemExit) else exc
    return isinstance(getattr(typer_exit, "__cause__", None), KeyboardInterrupt)
