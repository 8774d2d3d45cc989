"""The capture loop: ``/proc/diskstats`` each interval (and the block tracer's tallies where
it is used) appended to the capture file, which is created, never overwritten.

Nothing is written to the observed devices: the loop only reads ``/proc/diskstats`` and, with
the tracer, tracefs. Its own CPU time goes into the end record (``benchmarks/capture_overhead.py``
prints it against the goal)."""

from __future__ import annotations

import datetime
import os
import socket
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sweeper.capture import diskstats
from sweeper.capture.format import MAX_NOTES, NOTE_CHARS, Header, dumps
from sweeper.capture.trace import TraceTally
from sweeper.capture.tracefs import BlockTracer, device_numbers

#: trace ticks are written this many intervals late, so that a reader behind the kernel by
#: a moment still puts every event into its own interval
TRACE_LAG = 3


class _Traced:
    """The tracer and its tally, fed from the reader thread and taken each interval."""

    def __init__(self, devices: list[str], start: float, interval: float):
        self.tally = TraceTally(device_numbers(devices), start, interval)
        self.lock = threading.Lock()
        self.tracer = BlockTracer(devices, self._feed)

    def _feed(self, lines: str) -> None:
        with self.lock:
            self.tally.feed(lines)

    def take(self, upto: int | None) -> dict[int, dict[str, Any]]:
        with self.lock:
            return self.tally.take(upto)


def header_for(
    devices: list[str], duration_s: float, interval_s: float, trace: bool, note: str | None
) -> Header:
    with open(diskstats.DISKSTATS) as stats:
        fields = diskstats.fields(stats.read())
    return Header(
        host=socket.gethostname(),
        kernel=os.uname().release,
        started=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        interval_s=interval_s,
        duration_s=duration_s,
        devices=devices,
        sources=["diskstats", "blk-trace"] if trace else ["diskstats"],
        trace_note=note,
        diskstats_fields=list(fields),
    )


def record(
    output: Path,
    header: Header,
    on_sample: Callable[[int, float], None] | None = None,
) -> dict[str, Any]:
    """Samples ``header.devices`` into ``output`` (created: an existing file is an error) for
    ``header.duration_s``, or until Ctrl-C; returns the end record."""
    devices = header.devices
    cpu0, wall0 = time.process_time(), time.monotonic()
    traced = None
    if "blk-trace" in header.sources:
        traced = _Traced(devices, wall0, header.interval_s)
    samples, stopped, tick = 0, "duration", 0
    notes: list[str] = []
    if traced is not None:
        traced.tracer.start()  # before the file: a tracer the kernel refuses leaves none
    try:
        fh = open(output, "x", encoding="utf-8")
    except OSError:
        if traced is not None:
            traced.tracer.stop()
        raise
    with fh:
        fh.write(dumps(header.model_dump()))
        present = set(devices)
        try:
            ticks = int(round(header.duration_s / header.interval_s))
            for tick in range(ticks + 1):
                delay = wall0 + tick * header.interval_s - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                with open(diskstats.DISKSTATS) as stats:
                    counters = diskstats.parse(stats.read(), devices)
                notes += comings_and_goings(present, set(counters), tick)
                present = set(counters)
                fh.write(dumps({"tick": tick, "t": round(time.time(), 3), "diskstats": counters}))
                if traced is not None:
                    _write_trace(fh, traced.take(tick - TRACE_LAG), tick)
                fh.flush()
                samples += 1
                if on_sample is not None:
                    on_sample(tick, header.duration_s)
        except KeyboardInterrupt:
            stopped = "interrupted"
        finally:
            # whatever ended the loop: the tracer put back, the trace and the end written
            if traced is not None:
                notes += traced.tracer.stop()
                _write_trace(fh, traced.take(None), tick)
            end = {
                "samples": samples,
                "stopped": stopped,
                "wall_s": round(time.monotonic() - wall0, 3),
                "cpu_s": round(time.process_time() - cpu0, 3),
                "trace_lines": traced.tally.lines if traced is not None else None,
                "trace_lost": traced.tracer.lost if traced is not None else None,
                "notes": [note[:NOTE_CHARS] for note in notes[:MAX_NOTES]],
            }
            fh.write(dumps({"end": end}))
    return end


def comings_and_goings(before: set[str], now: set[str], tick: int) -> list[str]:
    """Notes on the observed devices that left ``/proc/diskstats`` at sample ``tick``, or
    came back (counted again from there: ``seconds`` passes over the interval between)."""
    return [
        f"{name} went away at sample {tick} (no longer in /proc/diskstats)"
        for name in sorted(before - now)
    ] + [f"{name} came back at sample {tick}" for name in sorted(now - before)]


def _write_trace(fh: Any, ticks: dict[int, dict[str, Any]], last: int) -> None:
    """The trace's tallies of complete ticks (those of the baseline or after the last
    sample belong to no interval and are left out)."""
    for k, records in ticks.items():
        if 1 <= k <= last:
            fh.write(dumps({"tick": k, "trace": records}))
