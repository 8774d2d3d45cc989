"""``raidsweep lab up|status|down``: the throwaway lab VM (``sweeper.lab``) from the command
line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer
from rich.markup import escape

from sweeper.cli.common import console, err, fail, folder_problem
from sweeper.units import format_duration, parse_size

if TYPE_CHECKING:
    from sweeper.lab import LabStatus

lab_app = typer.Typer(
    no_args_is_help=True,
    help="A throwaway Debian VM (QEMU) with real md and LVM, to try the linux_md platform on.",
)


@lab_app.callback()
def _lab_cache() -> None:
    """Before any lab command: ``RAIDSWEEP_CACHE`` must name a folder, or a place where one
    can be made (not a file, nor a path through one), and ``RAIDSWEEP_LAB_MIRROR`` a mirror
    the image can be built from (``mirror_problem``), exit 2 otherwise."""
    import os

    from sweeper.lab.image import CACHE_ENV, cache_dir_problem
    from sweeper.lab.mirror import MIRROR_ENV, mirror_problem

    mirror = os.environ.get(MIRROR_ENV)
    if mirror is not None and (wrong := mirror_problem(mirror)) is not None:
        fail(ValueError(f"{MIRROR_ENV}: {wrong}"))
    given = os.environ.get(CACHE_ENV)
    if given is None:
        return
    problem = cache_dir_problem(given)
    if problem is None:
        # the image and the VM live in its lab/ folder: a file there is as bad as here
        problem = folder_problem(Path(given) / "lab" / "vm")
    if problem is not None:
        fail(ValueError(f"{CACHE_ENV}: {problem}"))


def _lab_dir(value: str | None) -> Path | None:
    """``--dir``: a folder, or a path where one can be made. Empty, not UTF-8, with template
    syntax or control characters (the folder is written into the lab's inventory and
    printed), a name no file system takes, a file or a path through one: exit 2 before
    anything."""
    from sweeper.untrusted import folder_text_problem

    if value is None:
        return None
    if not value:  # an option, not a variable: '.' rather than "unset it"
        raise typer.BadParameter("is empty: name the lab's folder ('.' for this one)")
    folder = Path(value).expanduser()
    problem = folder_text_problem(value, "lab's folder") or folder_problem(folder)
    if problem is not None:
        raise typer.BadParameter(problem)
    return folder


LabDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--dir",
        help="Folder of the lab VM.",
        show_default="~/.cache/raidsweep/lab/vm",
        parser=_lab_dir,
        metavar="<path>",
    ),
]
#: the lab's parameters as ``check_shape`` names them, and the options that set them
SHAPE_OPTIONS = {"disks": "--disks", "disk_mib": "--disk-size", "memory_mib": "--memory"}


@lab_app.command("up")
def lab_up(
    disks: Annotated[int, typer.Option("--disks", help="Number of data disks.")] = 10,
    disk_size: Annotated[str, typer.Option("--disk-size", help="Size of each data disk.")] = "256M",
    memory: Annotated[str, typer.Option("--memory", help="The VM's memory.")] = "1G",
    folder: LabDirOpt = None,
) -> None:
    """Start the lab VM (building its image the first time) and write its Ansible inventory."""
    import time

    from sweeper import lab

    disk_mib, memory_mib = _mib("--disk-size", disk_size), _mib("--memory", memory)
    try:
        lab.check_shape(disks, disk_mib, memory_mib)
    except ValueError as exc:
        _fail_shape(exc)
    vm = lab.Lab(folder)
    started = time.monotonic()
    if not vm.status().running and not (lab.image_dir() / "recipe.json").is_file():
        console.print(
            "building the lab image first (debootstrap: a few minutes; cached in "
            f"{lab.image_dir()})",
            highlight=False,
            soft_wrap=True,
        )
    try:
        st = vm.up(
            disks,
            disk_mib,
            memory_mib,
            progress=lambda msg: console.print(f"  {escape(msg)}", highlight=False),
        )
    except lab.LabConflict as exc:
        fail(exc)
    except ValueError as exc:  # more than this machine can give (lab.check_fits)
        _fail_shape(exc)
    except lab.LabError as exc:
        err.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None
    if st.already_running:
        console.print("already running: left as it is")
    else:
        console.print(f"up in {format_duration(time.monotonic() - started)}")
    _print_lab(st)


@lab_app.command("down")
def lab_down(folder: LabDirOpt = None) -> None:
    """Stop the lab VM and remove its disks."""
    from sweeper.lab import Lab

    vm = Lab(folder)
    if vm.down():
        shown = escape(str(vm.folder))
        console.print(f"lab in {shown} stopped; its disks removed", highlight=False, soft_wrap=True)
    else:
        shown = escape(str(vm.folder))
        console.print(f"no lab running in {shown}", highlight=False, soft_wrap=True)


@lab_app.command("status")
def lab_status(folder: LabDirOpt = None) -> None:
    """Whether the lab VM runs, on which port, with which disks."""
    from sweeper.lab import Lab

    st = Lab(folder).status()
    if st.running:
        _print_lab(st)
    else:
        console.print(f"lab in {escape(str(st.folder))}: stopped", highlight=False, soft_wrap=True)


def _fail_shape(exc: ValueError) -> NoReturn:
    """Exit 2 with the lab's problem named by its option ("disk_mib: ..." → "--disk-size: ...")."""
    name, _, problem = str(exc).partition(": ")
    fail(ValueError(f"{SHAPE_OPTIONS.get(name, name)}: {problem}"))


def _mib(option: str, text: str) -> int:
    """A size option in whole MiB, or exit 2 naming the option."""
    try:
        size = parse_size(text)
    except ValueError as exc:
        fail(ValueError(f"{option}: {exc}"))
    if size % 2**20:
        fail(ValueError(f"{option}: {text!r} is not a whole number of MiB"))
    return size // 2**20


def _print_lab(st: LabStatus) -> None:
    def say(text: str) -> None:  # paths and commands to copy: never wrapped, never coloured
        console.print(text, highlight=False, soft_wrap=True)

    say(f"lab [bold]running[/] in {st.folder} (QEMU pid {st.pid})")
    say(f"  SSH: ssh -i {st.key_path} -p {st.port} root@127.0.0.1")
    say(f"  {len(st.disks)} data disk(s) of {st.disk_mib} MiB:")
    for disk in st.disks:
        say(f"    {disk}")
    say(f"  inventory: {st.inventory_path}")
