"""``raidsweep characterize``: a capture file into workload classes, one per phase."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from sweeper.cli.common import console, fail, folder_problem, seconds_option, utf8_problem
from sweeper.processes import other_alive

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,47}")


def _percent(text: str, place: str, problems: list[str], top: float) -> float:
    m = re.fullmatch(r"\s*(\d{1,4}(?:\.\d{1,3})?)\s*%?\s*", text)
    if not m or not 0 <= float(m.group(1)) <= top:
        problems.append(f"{place}: {text!r} is not a percentage from 0 to {top:g} (e.g. 5%)")
        return 0.0
    return float(m.group(1)) / 100


def characterize(
    capture: Annotated[Path, typer.Argument(help="A capture file (raidsweep capture).")],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", help="Folder for the class files (default: CAPTURE-classes)."
        ),
    ] = None,
    name: Annotated[
        str | None,
        typer.Option(
            "--name", help="The class's name (default: the capture's); phases get _phaseN."
        ),
    ] = None,
    device: Annotated[
        list[str] | None,
        typer.Option("--device", "-d", help="Characterise these captured devices only; repeat."),
    ] = None,
    min_phase: Annotated[
        str, typer.Option("--min-phase", help="The shortest phase that makes its own class.")
    ] = "30s",
    min_share: Annotated[
        str, typer.Option("--min-share", help="A cell with a smaller share of the I/O is noise.")
    ] = "5%",
    headroom: Annotated[
        str,
        typer.Option("--headroom", help="Latency limits: the observed p99 plus this much."),
    ] = "50%",
) -> None:
    """Turn a capture into workload classes: weighted cells, latency limits, a class per
    phase, each explained (printed and kept as comments in the class file)."""
    from recommender.classes import WorkloadClass, load_class
    from sweeper.capture.characterize import Options
    from sweeper.capture.characterize import characterize as run
    from sweeper.capture.classfile import render
    from sweeper.capture.format import read_capture
    from sweeper.capture.seconds import seconds
    from sweeper.errors import InputError
    from sweeper.untrusted import path_problem, shown_text

    problems: list[str] = []
    min_phase_s = seconds_option(min_phase, "--min-phase", problems, 2, None, 30.0)
    share = _percent(min_share, "--min-share", problems, 50)
    room = _percent(headroom, "--headroom", problems, 1000)
    class_name = name if name is not None else re.sub(r"[^A-Za-z0-9_.-]", "_", capture.stem)
    if not _NAME.fullmatch(class_name):
        problems.append(
            f"--name: {class_name!r} is not a class name (letters, digits, _ . -; at most 48)"
        )
    folder = output if output is not None else capture.with_name(capture.stem + "-classes")
    # the class files' folder is named in specs, which refuse template syntax and controls;
    # and it must be a folder, or one that can be made (a name a file system takes, in no
    # file, not a symbolic link that leads nowhere)
    if (problem := path_problem(str(folder)) or folder_problem(folder)) is not None:
        problems.append(f"--output: {problem}")
    elif (problem := utf8_problem(folder)) is not None:
        problems.append(f"--output: {problem}: a spec (UTF-8 text) could not name its classes")
    if problems:
        fail(InputError("raidsweep characterize", problems))
    try:
        data = read_capture(capture)
    except InputError as exc:
        fail(exc)
    unknown = [d for d in device or [] if d not in data.header.devices]
    if unknown:
        fail(
            InputError(
                "--device",
                [
                    f"{d!r} is not in the capture (it has {', '.join(data.header.devices)})"
                    for d in unknown
                ],
            )
        )
    series = seconds(data, list(dict.fromkeys(device or [])) or None)  # one named twice: once
    classes, notes = run(series, Options(class_name, min_phase_s, share, room))
    notes += _trace_losses(data.end or {})
    # what the capture itself noted (a device that went away, a setting not put back): the
    # file's text, so never markup
    notes += [escape(f"the capture noted: {n}") for n in (data.end or {}).get("notes") or []]
    if not classes:
        fail(InputError(str(capture), ["has no busy interval: nothing to characterise"]))
    targets = [folder / f"{c.name}.yaml" for c in classes]
    _settle(folder)  # what a run killed part of the way left is no class file
    taken = [str(t) for t in targets if t.exists() or t.is_symlink()]
    if taken:
        fail(
            InputError(
                "--output", [f"{t} exists (a class file is never overwritten)" for t in taken]
            )
        )
    texts = []
    for phase in classes:
        WorkloadClass.model_validate(phase.document)  # a class the loader takes, or a bug here
        # the capture's name as text (bytes of a name that is not UTF-8 shown as \xff)
        texts.append(render(phase, shown_text(capture.name)))
    _write_all(folder, dict(zip(targets, texts, strict=True)))
    for target in targets:
        load_class(target)
    for line in notes:
        console.print(line, highlight=False)
    for phase, target in zip(classes, targets, strict=True):
        console.print(f"\n[bold]{escape(phase.name)}[/] → {escape(str(target))}", highlight=False)
        for line in phase.explanation:
            console.print(line, highlight=False, markup=False)


#: a class file written aside, ``.characterize-<pid>-<run>-<NAME>.yaml.tmp``: the writer's pid
#: tells a dead run's files from a living one's, the run's token its set, NAME its class file
_ASIDE = re.compile(r"\.characterize-(\d+)-([0-9a-f]{8})-(.+)\.tmp")
#: a file written aside this long ago is left over whatever its pid says (a pid used again)
_STALE_S = 3600.0


def _write_all(folder: Path, texts: dict[Path, str]) -> None:
    """Each class file (never over one that is there), in ``folder``, made if missing: all of
    them or, where one cannot be written (a file system that takes no folder or file, as
    /proc and /sys), none, and no folder made; exit 2 naming the path and the problem.

    Each is written aside first (``.characterize-<pid>-<run>-NAME.tmp``, on disk), then
    linked to its name (a link never replaces a file, and what it shows is whole); a link
    that fails unlinks those this run linked. Killed part of the way, a run leaves its files
    aside, and the next run into the folder (:func:`_settle`) undoes it."""
    from sweeper.errors import InputError
    from sweeper.store.files import fsync_dir

    made = [p for p in (folder, *folder.parents) if not (p.exists() or p.is_symlink())]
    run = f"{os.getpid()}-{secrets.token_hex(4)}"
    aside: dict[Path, Path] = {}
    linked: list[Path] = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for target, text in texts.items():
            aside[target] = tmp = folder / f".characterize-{run}-{target.name}.tmp"
            with open(tmp, "x", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                os.fsync(fh.fileno())
        for target, tmp in aside.items():
            os.link(tmp, target)
            linked.append(target)
        fsync_dir(folder)
    except BaseException as exc:
        for path in [*linked, *aside.values()]:
            with contextlib.suppress(OSError):
                path.unlink()
        for path in made:  # the deepest first
            with contextlib.suppress(OSError):
                path.rmdir()
        if not isinstance(exc, OSError):
            raise
        where = exc.filename2 if isinstance(exc, FileExistsError) else exc.filename
        if isinstance(exc, FileExistsError) and where:  # made meanwhile by someone else
            problem = f"{where} exists (a class file is never overwritten)"
        else:
            problem = (
                f"{where or folder}: cannot be written ({exc.strerror}); write the class "
                "files elsewhere with --output"
            )
        fail(InputError("--output", [problem]))
    for tmp in aside.values():
        with contextlib.suppress(OSError):
            tmp.unlink()
    with contextlib.suppress(OSError):
        fsync_dir(folder)


def _settle(folder: Path) -> None:
    """Undo in ``folder`` what runs that are no longer running left part-way: a run killed
    while it linked its class files (some linked, some not) has those it linked unlinked
    (only files that are its own, the same file as the one it wrote aside); a run that had
    linked them all keeps them. Their files aside are removed. A living run is left alone."""
    from sweeper.store.files import fsync_dir

    try:
        names = os.listdir(folder)
    except OSError:
        return
    runs: dict[tuple[str, str], list[tuple[Path, Path]]] = {}
    now = time.time()
    for name in names:
        if not (m := _ASIDE.fullmatch(name)):
            continue
        tmp = folder / name
        try:
            old = now - tmp.lstat().st_mtime > _STALE_S
        except OSError:
            continue
        if other_alive(int(m.group(1))) and not old:
            continue
        runs.setdefault((m.group(1), m.group(2)), []).append((tmp, folder / m.group(3)))
    changed = False
    for files in runs.values():
        shared = [_same(tmp, target) for tmp, target in files]
        if any(shared) and not all(shared):  # killed part of the way: none of its set stays
            for (_, target), mine in zip(files, shared, strict=True):
                if mine:
                    with contextlib.suppress(OSError):
                        target.unlink()
        for tmp, _ in files:
            with contextlib.suppress(OSError):
                tmp.unlink()
        changed = True
    if changed:
        with contextlib.suppress(OSError):
            fsync_dir(folder)


def _same(tmp: Path, target: Path) -> bool:
    """``target`` is the file written aside as ``tmp`` (linked to it)."""
    try:
        a, b = tmp.lstat(), target.lstat()
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _trace_losses(end: dict[str, Any]) -> list[str]:
    """What the capture's end record says the block tracer lost, if it lost any."""
    lost, read = end.get("trace_lost"), end.get("trace_lines")
    if not isinstance(lost, int) or isinstance(lost, bool) or lost <= 0:
        return []
    seen = f" ({read:,} read)" if isinstance(read, int) and not isinstance(read, bool) else ""
    return [
        f"the block tracer fell behind: the kernel dropped {lost:,} of its events{seen}. "
        "Intervals whose trace saw less than half of diskstats' bytes are left out of the mix; "
        "the others may still lean toward the requests it read. Trace a quieter hour, or "
        "capture without --trace (counters alone keep up at any rate)"
    ]
