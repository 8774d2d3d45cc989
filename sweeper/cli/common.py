"""What every command shares: the consoles, exit status 2 for bad input, and the options and
arguments several commands take."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, NoReturn

import typer
from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

console = Console()
err = Console(stderr=True)


def fail(exc: Exception) -> NoReturn:
    """Exit status 2, saying what is wrong with the user's input."""
    # The message quotes the user's own text (keys like "pattern/bs/qdNxM[/wsPCT]"): never markup.
    err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


def checked_store(value: Path | None) -> Path | None:
    """A store's folder (``--store``, and a second store such as ``compare --store-b``)
    reaches plays (the simulated array's state lives in it): a path with template syntax or
    control characters is refused (exit 2) before anything runs or reads it."""
    from sweeper.untrusted import path_problem

    if value is None:
        return value
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
        callback=checked_store,
    ),
]
DEFAULT_STORE = Path("raidsweep-data")


def json_flag(schema: str) -> typer.models.OptionInfo:
    """The ``--json`` option of a command whose document has ``schema`` (raidsweep.NAME/1)."""
    return typer.Option("--json", help=f"Print one JSON document (schema raidsweep.{schema}/1).")


def second_store(flag: str, help_text: str) -> typer.models.OptionInfo:
    """An option naming another store (``compare --store-b``), checked like ``--store``."""
    return typer.Option(flag, help=help_text, callback=checked_store)


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


def seconds_option(
    text: str, place: str, problems: list[str], low: float, high: float | None, fallback: float
) -> float:
    """The option ``place``'s duration ``text`` in seconds; where it is not one from ``low`` to
    ``high`` (no bound: None), a problem naming ``place`` joins ``problems`` and ``fallback``
    stands in, so every problem of the command line is found in one pass."""
    from sweeper.units import parse_duration

    try:
        value = parse_duration(text)
    except ValueError as exc:
        problems.append(f"{place}: {exc}")
        return fallback
    if high is None and value < low:
        problems.append(f"{place}: {text!r} is shorter than {low:g} s")
    elif high is not None and not low <= value <= high:
        problems.append(f"{place}: {text!r} is not between {low:g} s and {high:g} s")
    return value


def fitted(table: Table, stacked: list[str]) -> RenderableType:
    """``table`` where the terminal is wide enough for it in full, else ``stacked`` (markup
    lines: each row as a few lines), so nothing is cut or folded mid-word at 80 columns."""
    natural = Measurement.get(console, console.options.update_width(10_000), table).maximum
    if natural <= console.width:
        return table
    return Group(*(Text.from_markup(line) for line in stacked))
