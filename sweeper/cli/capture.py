"""``raidsweep capture``: record this host's block I/O into a capture file."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from sweeper.cli.common import (
    console,
    err,
    fail,
    lock_folder_problem,
    output_problem,
    seconds_option,
)
from sweeper.untrusted import terminal_text


class TraceMode(StrEnum):
    auto = "auto"
    on = "on"
    off = "off"


DurationOpt = Annotated[str, typer.Option(help="How long to capture (90s, 30m, 24h).")]
IntervalOpt = Annotated[str, typer.Option(help="Seconds between samples (0.1s to 60s).")]


def capture(
    device: Annotated[
        list[str],
        typer.Option(
            "--device", "-d", help="A block device to observe (sda, /dev/disk/by-id/…); repeat."
        ),
    ],
    output: Annotated[
        Path, typer.Option("--output", "-o", help="The capture file to create (JSON lines).")
    ],
    duration: DurationOpt = "1h",
    interval: IntervalOpt = "1s",
    trace: Annotated[
        TraceMode,
        typer.Option(
            "--trace",
            help="The kernel's block tracer (every request's size, direction, place and "
            "latency; about 12% of a core per 10,000 requests/s, up to about 70,000): on "
            "requires it, auto uses it where it can be, off (the default, < 1% of a core) never.",
        ),
    ] = TraceMode.off,
) -> None:
    """Record the block I/O of DEVICEs: /proc/diskstats every interval and, where the kernel's
    block tracer can be used, every request summed per interval. Reads counters only: nothing
    is written to the observed devices. Ctrl-C ends the capture early and keeps it."""
    from sweeper.capture import diskstats, placement, tracefs
    from sweeper.capture.sampler import header_for, record
    from sweeper.errors import InputError
    from sweeper.locking import LockHeld, hold, lock_record

    problems: list[str] = []
    duration_s = seconds_option(duration, "--duration", problems, 2, None, 0.0)
    interval_s = seconds_option(interval, "--interval", problems, 0.1, 60, 1.0)
    if duration_s and interval_s and duration_s < interval_s:
        problems.append(
            f"--duration: {duration} is shorter than --interval {interval}: a capture needs "
            "two samples an interval apart (one interval at least)"
        )
    with open(diskstats.DISKSTATS) as fh:
        known = diskstats.known_devices(fh.read())
    names: list[str] = []
    for given in device:
        try:
            name = diskstats.device_name(given, known)
        except ValueError as exc:
            problems.append(f"--device: {exc}")
            continue
        if name not in names:
            names.append(name)
    for outer, inner in placement.overlapping(names):
        problems.append(
            f"--device: {outer} and {inner} are both chosen, and {outer} holds {inner} (a "
            f"disk and its partition, or a device stacked on another): {inner}'s I/O would "
            "be counted twice; observe one of them"
        )
    # as report -o: no template syntax or control characters, a name a file system takes,
    # in a place that can be a folder
    if (problem := output_problem(output)) is not None:
        problems.append(f"--output: {problem}")
    elif output.exists() or output.is_symlink():
        problems.append(f"--output: {output} exists (a capture is never overwritten)")
    elif not output.parent.is_dir():
        problems.append(f"--output: the folder {output.parent} does not exist")
    else:
        try:
            beneath = placement.devices_beneath(str(output.parent)) & set(names)
        except placement.Unresolved as exc:
            problems.append(
                f"--output: cannot tell which block devices {output} would be written to "
                f"({exc}); write the capture to a file system on a block device, or in memory"
            )
        else:
            if beneath:
                problems.append(
                    f"--output: {output} would be written to {', '.join(sorted(beneath))}, "
                    "an observed device; write the capture elsewhere"
                )
    note = None
    use_trace = False
    # the tracer's lock lives in the machine-wide lock folder (RAIDSWEEP_LOCK_DIR)
    locks_problem = lock_folder_problem(make=False) if trace is not TraceMode.off else None
    if locks_problem is not None:
        problems.append(locks_problem)
    elif names and trace is not TraceMode.off:
        note = _tracer_held() or tracefs.unavailable(names)
        if note is not None and trace is TraceMode.on:
            problems.append(f"--trace on: {note}")
        use_trace = note is None
    elif trace is TraceMode.off:
        note = "off (--trace off)"
    if not problems and use_trace:  # made (if missing) before the capture file is
        locks_problem = lock_folder_problem(make=True)
        if locks_problem is not None:
            problems.append(locks_problem)
    if problems:
        fail(InputError("raidsweep capture", problems))
    header = header_for(names, duration_s, interval_s, use_trace, note)
    sources = ", ".join(header.sources) + ("" if use_trace else f" (block tracer: {note})")
    console.print(
        f"capturing {', '.join(names)} every {interval_s:g} s for {duration_s:g} s into "
        f"{output}; sources: {sources}; Ctrl-C ends it early",
        highlight=False,
    )
    # The tracer is one per machine: held for the whole capture (a second capture is refused
    # before it touches the first's buffer).
    locks = tracefs.tracer_lock() if use_trace else {}
    try:
        with hold(locks, lock_record(f"raidsweep capture --device {' --device '.join(names)}")):
            with _ended_by_signals():
                end = record(output, header)
    except LockHeld as exc:  # another capture took the tracer since it was looked at
        fail(exc)
    except OSError as exc:
        if output.exists():  # made and written to: the file system failed mid-capture
            err.print(
                f"[bold red]error:[/] the capture stopped: {escape(terminal_text(str(exc)))}; "
                f"what it wrote until then is kept in {escape(terminal_text(str(output)))} "
                "(characterize reads it)",
                highlight=False,
                soft_wrap=True,
            )
            raise typer.Exit(1) from None
        # the kernel refused the tracer, or the file could not be made
        fail(InputError("raidsweep capture", [f"could not start: {exc}"]))
    for note in end["notes"]:
        console.print(f"note: {note}", highlight=False, markup=False)
    share = 100 * end["cpu_s"] / end["wall_s"] if end["wall_s"] else 0.0
    console.print(
        f"{end['samples']} samples in {end['wall_s']:.0f} s ({end['stopped']}); the capture "
        f"used {end['cpu_s']:.2f} CPU s, {share:.2f}% of one core",
        highlight=False,
    )


@contextmanager
def _ended_by_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP (a ``kill``, a dropped ssh session) end the capture as Ctrl-C
    does: the samples kept, the end written, the kernel's block tracer put back as it was
    found (it is the machine's: left on, it would refuse the next capture). A second such
    signal while it ends is ignored."""

    def stop(signum: int, frame: object) -> None:
        for sig in watched:
            signal.signal(sig, signal.SIG_IGN)
        raise KeyboardInterrupt

    watched = (signal.SIGTERM, signal.SIGHUP)
    before = {sig: signal.signal(sig, stop) for sig in watched}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def _tracer_held() -> str | None:
    """Who holds the machine's block tracer (another capture), or None."""
    from sweeper.capture import tracefs
    from sweeper.locking import holders

    held = holders(tracefs.tracer_lock())
    return f"{held[0].source} is {held[0].problems[0]}" if held else None
