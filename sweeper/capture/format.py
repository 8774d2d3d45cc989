"""The capture file: JSON lines, UTF-8.

Line 1 is the header (``Header``): ``format`` ``raidsweep.capture/1``, the host, its kernel,
when the capture started, the sampling interval, the devices, the sources (``diskstats``,
and ``blk-trace`` when the kernel's block tracer was used, else ``trace_note`` says why not)
and the names of the diskstats counters. Then one line per sample::

    {"tick": 7, "t": 1764055800.25, "diskstats": {"sda": [11 counters]}}

``tick`` counts the samples from 0 (the baseline), ``t`` is seconds since the epoch and
``diskstats`` each device's cumulative counters. With blk-trace, a line per tick (written a
few ticks late, so that every event is in)::

    {"tick": 7, "trace": {"sda": {"groups": [["R", 8192, false, 812, 0.41], …],
                                  "latency": {"R": {"38": 700, …}, "W": {…}}}}}

holds the requests queued in the interval ending at that tick's sample (a reader far behind
may write a tick twice: the lines add up), grouped by
direction, size in bytes and sequential or not, with their count and summed service seconds,
and the service-time histogram (``trace.latency_bucket``). The last line is
``{"end": {…}}``: samples written, the capture's own CPU seconds and why it stopped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError

from sweeper.capture.diskstats import FIELDS
from sweeper.errors import InputError
from sweeper.models import StrictModel

FORMAT = "raidsweep.capture/1"
SOURCES = ("diskstats", "blk-trace")


class Header(StrictModel):
    format: Literal["raidsweep.capture/1"] = FORMAT
    host: str
    kernel: str
    started: str
    interval_s: float = Field(gt=0, le=3600)
    duration_s: float = Field(gt=0)
    devices: list[str] = Field(min_length=1)
    sources: list[Literal[SOURCES]] = Field(min_length=1)  # type: ignore[valid-type]
    trace_note: str | None = None
    diskstats_fields: list[str] = Field(default_factory=lambda: list(FIELDS))
    sector_bytes: int = 512


class Capture(StrictModel):
    """A capture read back: its header, its samples and its end record (None: cut short)."""

    header: Header
    samples: list[dict[str, Any]]
    #: the traced requests per tick (the interval ending at the sample of that tick)
    trace: dict[int, list[dict[str, Any]]] = Field(default_factory=dict)
    end: dict[str, Any] | None = None


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"), sort_keys=True) + "\n"


def read_capture(path: Path) -> Capture:
    """The capture in ``path``; InputError naming the line and the problem otherwise."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(str(path), [f"cannot be read: {exc}"]) from None
    lines = text.splitlines()
    if not lines:
        raise InputError(str(path), ["is empty, not a capture"])
    problems: list[str] = []
    records: list[Any] = []
    for number, line in enumerate(lines, 1):
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as exc:
            if number == len(lines):  # a capture killed mid-line: its last line is cut
                break
            problems.append(f"line {number}: not JSON ({exc.msg})")
    if problems:
        raise InputError(str(path), problems[:10])
    try:
        header = Header.model_validate(records[0])
    except ValidationError as exc:
        errors = exc.errors()
        raise InputError(
            str(path),
            [f"line 1: {'.'.join(map(str, e['loc'])) or 'header'}: {e['msg']}" for e in errors],
        ) from None
    end = records[-1].get("end") if isinstance(records[-1], dict) else None
    body = records[1:-1] if end is not None else records[1:]
    samples, trace = [], {}
    for number, record in enumerate(body, 2):
        if isinstance(record, dict) and "trace" in record:
            problem = _trace_problem(record, header)
            if problem is None:
                trace.setdefault(record["tick"], []).append(record["trace"])
        else:
            problem = _sample_problem(record, header)
            samples.append(record)
        if problem:
            problems.append(f"line {number}: {problem}")
    if problems:
        raise InputError(str(path), problems[:10])
    if len(samples) < 2:
        raise InputError(str(path), [f"has {len(samples)} sample(s); at least two are needed"])
    return Capture(header=header, samples=samples, trace=trace, end=end)


def _trace_problem(record: dict[str, Any], header: Header) -> str | None:
    if "blk-trace" not in header.sources:
        return "a trace line in a capture whose header names no blk-trace"
    if not isinstance(record.get("tick"), int) or not isinstance(record["trace"], dict):
        return "a trace line needs its tick and its devices' tallies"
    for name, tally in record["trace"].items():
        if name not in header.devices or not isinstance(tally, dict):
            return f"trace of {name!r}, which is not one of the header's devices"
        if not isinstance(tally.get("groups", []), list):
            return f"{name}: trace groups must be a list"
    return None


def _sample_problem(record: Any, header: Header) -> str | None:
    if not isinstance(record, dict) or not isinstance(record.get("t"), int | float):
        return "a sample needs a time t"
    if not isinstance(record.get("tick"), int):
        return "a sample needs its tick"
    stats = record.get("diskstats")
    if not isinstance(stats, dict):
        return "a sample needs its diskstats"
    for name, counters in stats.items():
        if name not in header.devices:
            return f"device {name!r} is not one of the header's"
        if (
            not isinstance(counters, list)
            or len(counters) != len(FIELDS)
            or not all(isinstance(c, int) and c >= 0 for c in counters)
        ):
            return f"{name}: diskstats must be {len(FIELDS)} counters"
    return None
