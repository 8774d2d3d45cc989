"""What every command shares: the consoles, exit status 2 for bad input, and the options and
arguments several commands take."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

console = Console()
err = Console(stderr=True)


def fail(exc: Exception) -> NoReturn:
    """Exit status 2, saying what is wrong with the user's input."""
    # The message quotes the user's own text (keys like "pattern/bs/qdNxM[/wsPCT]"): never markup.
    err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def _checked_store(value: Path) -> Path:
    """The store's folder reaches plays (the simulated array's state lives in it): a path
    with template syntax or control characters is refused (exit 2) before anything runs."""
    from sweeper.untrusted import path_problem

    problem = path_problem(str(value))
    if problem is not None:
        raise typer.BadParameter(problem)
    return value


StoreOpt = Annotated[
    Path,
    typer.Option(
        "--store",
        envvar="RAIDSWEEP_STORE",
        help="Folder of the results store.",
        show_default=True,
        callback=_checked_store,
    ),
]
DEFAULT_STORE = Path("raidsweep-data")
SpecArg = Annotated[Path, typer.Argument(help="Sweep spec (YAML).")]
SweepArg = Annotated[str | None, typer.Argument(help="Sweep name (default: latest).")]
CheckOpt = Annotated[
    bool, typer.Option("--check", help="Show what would be done on the storage; change nothing.")
]
ClassOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--class",
        help="Rank with this workload class (a shipped name or a class file) instead of the "
        "spec's; repeat for several.",
    ),
]
