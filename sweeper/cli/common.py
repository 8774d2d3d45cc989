"""What every command shares: the consoles, exit status 2 for bad input, and the options and
arguments several commands take."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from rich.console import Console, Group, RenderableType
from rich.markup import escape
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from sweeper.untrusted import terminal_text

console = Console()
err = Console(stderr=True)


def fail(exc: Exception) -> NoReturn:
    """Exit status 2, saying what is wrong with the user's input."""
    # The message quotes the user's own text (keys like "pattern/bs/qdNxM[/wsPCT]"): never markup.
    text = "\n".join(_cut(terminal_text(line)) for line in str(exc).split("\n"))
    err.print(f"[bold red]error:[/] {escape(text)}", highlight=False, soft_wrap=True)
    raise typer.Exit(2)


#: the longest line of an error message: one that quotes a huge value shows its start
_LONGEST_LINE = 1000


def _cut(line: str) -> str:
    if len(line) <= _LONGEST_LINE:
        return line
    return f"{line[:_LONGEST_LINE]}… ({len(line) - _LONGEST_LINE} characters more)"


def store_path(value: str | Path) -> Path:
    """A store's folder as given: an empty one is refused (``Path("")`` is this folder, and
    ``--store "$UNSET"`` must not make the working folder a store)."""
    if isinstance(value, str) and not value:
        raise typer.BadParameter("is empty: name the store's folder ('.' for this one)")
    return Path(value)


def checked_store(
    ctx: typer.Context, param: typer.CallbackParam, value: Path | None
) -> Path | None:
    """A store's folder (``--store``, and a second store such as ``compare --store-b``)
    reaches plays (the simulated array's state lives in it): a path with template syntax or
    control characters is refused (exit 2) before anything runs or reads it, and so is one
    that cannot be a folder (a file is in its place or on its way, a name too long), and an
    empty ``RAIDSWEEP_STORE`` (click takes it as unset: the default store would be used)."""
    from sweeper.untrusted import path_problem

    if value is None:
        return value
    source = ctx.get_parameter_source(param.name or "")
    if param.envvar and source is not None and source.name == "DEFAULT":
        for name in [param.envvar] if isinstance(param.envvar, str) else param.envvar:
            if os.environ.get(name) == "":
                raise typer.BadParameter(f"{name} is empty: name the store's folder, or unset it")
    problem = path_problem(str(value)) or folder_problem(value)
    if problem is not None:
        raise typer.BadParameter(problem)
    return value


def checked_play_store(
    ctx: typer.Context, param: typer.CallbackParam, value: Path | None
) -> Path | None:
    """``--store`` of ``run``, ``plan`` and ``teardown``, which hand the store's path to
    Ansible (the simulated array's state lives in it): checked as every ``--store`` is
    (:func:`checked_store`), and refused where its name is not UTF-8 text, which Ansible's
    variables cannot carry (the plays would fail on it, the store's folder made). A command
    that only reads the store (``status``, ``recommend``) takes such a name."""
    value = checked_store(ctx, param, value)
    if value is not None and (problem := utf8_problem(value)) is not None:
        raise typer.BadParameter(
            f"{problem}: run, plan and teardown hand the store's path to Ansible, which takes "
            "UTF-8 text only; choose another --store"
        )
    return value


def utf8_problem(path: Path) -> str | None:
    """``'<path>' is not UTF-8 text`` (a byte that is not UTF-8 shown as ``\\xff``) where the
    name of ``path`` is not UTF-8 text, else None."""
    from sweeper.untrusted import shown_text

    shown = shown_text(str(path))
    return None if shown == str(path) else f"'{_cut(shown)}' is not UTF-8 text"


def output_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a file raidsweep writes, or None: template syntax or control
    characters (a line break would split its name in every listing), a name no file system
    takes, a place that cannot be a folder."""
    from sweeper.untrusted import path_problem

    return path_problem(str(path)) or _length_problem(path) or folder_problem(path.parent)


def checked_output(value: str) -> Path:
    """A file to write (``report -o``, ``accept --report``), as the option's parser: no
    template syntax or control characters (a line break would split its name in every
    listing), a name a file can have, in a place that can be a folder, and not ending in a
    slash (a folder meant: ``r.html/`` would write ``r.html`` here). Exit 2 otherwise,
    nothing written."""
    if value.endswith(("/", os.sep)):
        raise typer.BadParameter(
            f"{value!r} ends with '/', so it names a folder: name the file (NAME.html)"
        )
    path = Path(value)
    problem = output_problem(path)
    if problem is not None:
        raise typer.BadParameter(problem)
    return path


def lock_folder_problem(*, make: bool) -> str | None:
    """Why the machine-wide folder of the storage targets' locks (``RAIDSWEEP_LOCK_DIR``,
    else the default) cannot be used, as a line naming the variable (or the default folder),
    the problem and what to do; or None. ``make``: for a command about to take the locks,
    just before it writes anything else (the store's folder): the folder is made where it is
    missing and must be writable. Otherwise it is only looked at (``--check``, ``plan``, and
    every command before its work: nothing is made)."""
    from sweeper.locking import LOCK_DIR_ENV, lock_dir_problem, target_lock_dir

    value = os.environ.get(LOCK_DIR_ENV)
    given = value is not None
    if value is not None and (said := lock_dir_problem(value)) is not None:
        # "RAIDSWEEP_LOCK_DIR is empty: …", "RAIDSWEEP_LOCK_DIR: 'x' is not …"
        return f"{LOCK_DIR_ENV}{' ' if not value else ': '}{said}"
    advice = (
        "set it to a folder every sweep on this machine can use, or unset it"
        if given
        else f"set {LOCK_DIR_ENV} to a folder every sweep on this machine can use"
    )
    folder = target_lock_dir()
    problem = folder_problem(folder)
    if problem is None and make:
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            problem = f"{_cut(str(folder))}: cannot be made a folder ({exc.strerror})"
        else:
            if not os.access(folder, os.W_OK | os.X_OK):
                problem = f"{_cut(str(folder))}: cannot be written (no permission, or read-only)"
    if problem is None:
        return None
    place = LOCK_DIR_ENV if given else "the lock folder"
    return f"{place}: {problem}; {advice}"


def check_lock_folder(*, make: bool) -> None:
    """Exit 2 where the lock folder cannot be used (:func:`lock_folder_problem`)."""
    problem = lock_folder_problem(make=make)
    if problem is not None:
        fail(ValueError(problem))


#: what Linux allows: a file name (NAME_MAX) and a whole path (PATH_MAX, with its NUL)
_NAME_MAX, _PATH_MAX = 255, 4095


def _length_problem(path: Path) -> str | None:
    """Why no file system takes ``path`` (too long, or a part too long), or None."""
    shown = _cut(str(path))
    if len(os.fsencode(str(path))) > _PATH_MAX:
        return f"{shown}: longer than a path can be ({_PATH_MAX} bytes)"
    for part in path.parts:
        if len(os.fsencode(part)) > _NAME_MAX:
            return f"{shown}: {_cut(part)!r} is longer than a file name can be ({_NAME_MAX} bytes)"
    return None


def folder_problem(path: Path) -> str | None:
    """Why ``path`` cannot be (or become) a folder, or None."""
    problem = _length_problem(path)
    if problem is not None:
        return problem
    shown = _cut(str(path))
    for place in (path, *path.parents):
        try:
            st = place.stat()
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            return f"{shown}: {place} cannot be looked at ({exc.strerror})"
        if not stat.S_ISDIR(st.st_mode):
            what = "is" if place == path else f"lies in {place}, which is"
            return f"{shown} {what} not a folder"
        return None
    return None


def _store_option(check: Callable[..., Path]) -> Any:
    """``--store`` (or ``RAIDSWEEP_STORE``), its value checked by ``check``."""
    return typer.Option(
        "--store",
        envvar="RAIDSWEEP_STORE",
        help="Folder of the results store.",
        show_default=True,
        parser=store_path,
        metavar="<path>",
        callback=check,
    )


StoreOpt = Annotated[Path, _store_option(checked_store)]
#: ``--store`` of the commands that hand it to plays (``run``, ``plan``, ``teardown``)
PlayStoreOpt = Annotated[Path, _store_option(checked_play_store)]
DEFAULT_STORE = Path("raidsweep-data")


def json_flag(schema: str) -> typer.models.OptionInfo:
    """The ``--json`` option of a command whose document has ``schema`` (raidsweep.NAME/1)."""
    return typer.Option("--json", help=f"Print one JSON document (schema raidsweep.{schema}/1).")


def second_store(flag: str, help_text: str) -> typer.models.OptionInfo:
    """An option naming another store (``compare --store-b``), checked like ``--store``."""
    return typer.Option(
        flag, help=help_text, parser=store_path, metavar="<path>", callback=checked_store
    )


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
