"""``raidsweep characterize``: a capture file into workload classes, one per phase."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from sweeper.cli.common import console, fail, folder_problem, seconds_option, utf8_problem

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
    series = seconds(data, device or None)
    classes, notes = run(series, Options(class_name, min_phase_s, share, room))
    notes += _trace_losses(data.end or {})
    # what the capture itself noted (a device that went away, a setting not put back): the
    # file's text, so never markup
    notes += [escape(f"the capture noted: {n}") for n in (data.end or {}).get("notes") or []]
    if not classes:
        fail(InputError(str(capture), ["has no busy interval: nothing to characterise"]))
    targets = [folder / f"{c.name}.yaml" for c in classes]
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


def _write_all(folder: Path, texts: dict[Path, str]) -> None:
    """Each class file (never over one that is there), in ``folder``, made if missing: all of
    them or, where one cannot be written (a file system that takes no folder or file, as
    /proc and /sys), none, and no folder made; exit 2 naming the path and the problem."""
    from sweeper.errors import InputError

    made = [p for p in (folder, *folder.parents) if not (p.exists() or p.is_symlink())]
    written: list[Path] = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for target, text in texts.items():
            with open(target, "x", encoding="utf-8") as fh:
                written.append(target)
                fh.write(text)
    except BaseException as exc:
        for path in written:
            with contextlib.suppress(OSError):
                path.unlink()
        for path in made:  # the deepest first
            with contextlib.suppress(OSError):
                path.rmdir()
        if not isinstance(exc, OSError):
            raise
        where = exc.filename or folder
        fail(
            InputError(
                "--output",
                [
                    f"{where}: cannot be written ({exc.strerror}); write the class files "
                    "elsewhere with --output"
                ],
            )
        )


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
