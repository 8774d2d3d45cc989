"""The capture file: JSON lines, UTF-8.

Line 1 is the header (``Header``): ``format`` ``raidsweep.capture/1``, the host, its kernel,
when the capture started, the sampling interval, the devices, the sources (``diskstats``,
and ``blk-trace`` when the kernel's block tracer was used, else ``trace_note`` says why not)
and the names of the diskstats counters (``diskstats.FIELDS``: 17 since Linux 5.5, the first
15 or 11 on older kernels). Then one line per sample::

    {"tick": 7, "t": 1764055800.25, "diskstats": {"sda": [17 counters]}}

``tick`` counts the samples from 0 (the baseline), ``t`` is seconds since the epoch and
``diskstats`` each device's cumulative counters. With blk-trace, a line per tick (written a
few ticks late, so that every event is in)::

    {"tick": 7, "trace": {"sda": {"groups": [["R", 8192, false, 812, 0.41], …],
                                  "latency": {"R": {"38": 700, …}, "W": {…}}}}}

holds the requests queued in the interval ending at that tick's sample (a reader far behind
may write a tick twice: the lines add up), grouped by
direction, size in bytes and sequential or not, with their count and summed service seconds,
and the service-time histogram (``trace.latency_bucket``). The last line is
``{"end": {…}}``: samples written, the capture's own CPU seconds, why it stopped and its
notes (a device that went away, a tracing setting that could not be put back).

What ``read_capture`` accepts (anything else is an InputError naming the line, the field and
the problem; at most ten problems are listed):

- JSON as ``json`` reads it, without ``NaN`` or ``Infinity`` (nor a number too large for a
  float), nested no deeper than Python's recursion limit allows. Every line is an object
  of the keys shown above (others are refused); numbers are numbers (``true`` is no count,
  ``2.0`` no tick). Only the last line may be cut short (a capture killed while writing it):
  it is left out.
- Header: ``interval_s`` over 0 and at most 3600, ``duration_s`` over 0; ``devices`` one or
  more distinct device names; ``sources`` distinct, with ``diskstats``; ``diskstats_fields``
  exactly ``diskstats.FIELDS`` or its first 15 or 11 (the counters are read by position);
  ``sector_bytes`` 512 (``/proc/diskstats`` counts 512-byte sectors whatever the device's
  own sector size); ``host`` and ``kernel`` at most 64 characters (the kernel's own limit),
  no control characters; ``started`` an ISO 8601 time.
- A device name (header, samples, trace) is the kernel's name of a block device as
  ``/proc/diskstats`` lists it (``diskstats.DEVICE_NAME``): a letter or digit, then letters,
  digits and ``- _ . : !``, at most 64 characters, no ``..``; those of samples and trace
  lines are among the header's.
- Samples: ``tick`` 0 for the first, then each one more than the last; ``t`` from 0 to
  before the year 10000 (a wall clock set back is no error); each device's counters, as
  many as the header's ``diskstats_fields``, whole numbers from 0 to below 2**64 (the
  request and sector counts are unsigned longs; the milliseconds, ``diskstats.WRAPPING``,
  are 32-bit and wrap at 2**32, which ``seconds`` allows for). At least two samples.
- Trace lines (only when the header's sources name ``blk-trace``): ``tick`` at least 1
  and at most one past the last sample's (a capture stopped between samples writes the
  trace of the interval it was in); per device ``groups`` and ``latency``. A group is
  ``[direction, bytes, sequential, count, seconds]``: ``"R"`` or ``"W"``; a whole number of
  512-byte sectors (the tracer's unit) from 512 to 2**32 - 512 (a request's size is the
  kernel's 32-bit byte count); ``true`` or ``false``; a count from 0 to below 2**64; service
  seconds 0 or from 0.000001 (written to the microsecond) to below 2**64. ``latency`` maps
  ``"R"``/``"W"`` to buckets: keys the decimal bucket numbers from 0 to
  ``latency_bucket(trace.STALE_S)`` (the longest service time the tracer matches), values
  counts from 0 to below 2**64.
- End: ``samples``, ``wall_s`` and ``cpu_s`` from 0, ``stopped`` ``duration`` or
  ``interrupted``, ``trace_lines`` and ``trace_lost`` counts or null, ``notes`` (optional)
  at most ``MAX_NOTES`` texts of at most ``NOTE_CHARS`` characters, no control characters;
  the last line read.
"""

from __future__ import annotations

import datetime
import json
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, ValidationError, field_validator, model_validator

from sweeper.capture.diskstats import FIELDS, WIDTHS, is_device_name
from sweeper.capture.trace import STALE_S, latency_bucket
from sweeper.errors import InputError
from sweeper.models import StrictModel
from sweeper.yamlsource import read_text

FORMAT = "raidsweep.capture/1"
SOURCES = ("diskstats", "blk-trace")
#: the problems an InputError lists at most
MAX_PROBLEMS = 10
#: the end record's notes (a device that went away, a tracing setting not put back): at most
#: this many, each at most this long
MAX_NOTES = 20
NOTE_CHARS = 400
#: a counter of the kernel's (an unsigned long, or a 32-bit millisecond count) is below this
COUNTER_LIMIT = 2**64
#: the tracer counts 512-byte sectors; a request's size is a 32-bit byte count in the kernel
TRACE_SECTOR = 512
MAX_REQUEST_BYTES = 2**32 - TRACE_SECTOR
#: the trace's service seconds are written to the microsecond
SECONDS_RESOLUTION = 1e-6
#: the highest latency bucket: the longest service time the tracer matches
MAX_BUCKET = latency_bucket(STALE_S)
_BUCKETS = frozenset(str(b) for b in range(MAX_BUCKET + 1))
#: ``t`` is before the year 10000
MAX_EPOCH_S = 253402300800.0


def _device_name(name: str) -> str:
    if not is_device_name(name):
        raise ValueError(
            "not a block device name as the kernel gives it (a letter or digit, then "
            "letters, digits, - _ . : !; at most 64 characters, no '..')"
        )
    return name


def _bucket(key: str) -> str:
    if key not in _BUCKETS:
        raise ValueError(f"not a latency bucket (a whole number from 0 to {MAX_BUCKET})")
    return key


def _text(text: str) -> str:
    if any(not c.isprintable() for c in text):
        raise ValueError("holds a control character")
    return text


def _iso_time(text: str) -> str:
    try:
        datetime.datetime.fromisoformat(text)
    except ValueError:
        raise ValueError("not an ISO 8601 time (e.g. 2026-11-25T07:48:30+00:00)") from None
    return text


def _seconds(value: float) -> float:
    if 0 < value < SECONDS_RESOLUTION:
        raise ValueError("service seconds are 0 or at least 0.000001 (written to the µs)")
    return value


DeviceName = Annotated[str, AfterValidator(_device_name)]
Count = Annotated[int, Field(ge=0, lt=COUNTER_LIMIT)]
Counters = Annotated[list[Count], Field(min_length=min(WIDTHS), max_length=len(FIELDS))]
Direction = Literal["R", "W"]


class Header(StrictModel):
    format: Literal["raidsweep.capture/1"] = FORMAT
    host: Annotated[str, Field(max_length=64), AfterValidator(_text)]
    kernel: Annotated[str, Field(max_length=64), AfterValidator(_text)]
    started: Annotated[str, Field(max_length=64), AfterValidator(_iso_time)]
    interval_s: float = Field(gt=0, le=3600)
    duration_s: float = Field(gt=0)
    devices: list[DeviceName] = Field(min_length=1)
    sources: list[Literal[SOURCES]] = Field(min_length=1)  # type: ignore[valid-type]
    trace_note: str | None = None
    diskstats_fields: list[str] = Field(default_factory=lambda: list(FIELDS))
    #: /proc/diskstats counts 512-byte sectors whatever the device's own sector size
    sector_bytes: Literal[512] = 512

    @field_validator("devices")
    @classmethod
    def _distinct_devices(cls, devices: list[str]) -> list[str]:
        if len(set(devices)) != len(devices):
            raise ValueError("a device is named twice")
        return devices

    @field_validator("sources")
    @classmethod
    def _known_sources(cls, sources: list[str]) -> list[str]:
        if len(set(sources)) != len(sources) or "diskstats" not in sources:
            raise ValueError("the sources are diskstats and, with the tracer, blk-trace, once each")
        return sources

    @field_validator("diskstats_fields")
    @classmethod
    def _known_fields(cls, fields: list[str]) -> list[str]:
        if fields not in [list(FIELDS[:w]) for w in WIDTHS]:
            raise ValueError(
                f"the counters are read in this order: {', '.join(FIELDS)} (the first "
                f"{' or '.join(str(w) for w in WIDTHS[:-1])} on older kernels)"
            )
        return fields


class Sample(StrictModel):
    """A sample line: its tick, its time and each device's diskstats counters."""

    tick: int = Field(ge=0)
    t: float = Field(ge=0, lt=MAX_EPOCH_S)
    diskstats: dict[DeviceName, Counters]


class TraceGroup(StrictModel):
    """A trace group, written as the list ``[direction, size, sequential, count, seconds]``."""

    direction: Direction
    size: int = Field(ge=TRACE_SECTOR, le=MAX_REQUEST_BYTES, multiple_of=TRACE_SECTOR)
    sequential: bool
    count: Count
    seconds: Annotated[float, Field(ge=0, lt=COUNTER_LIMIT), AfterValidator(_seconds)]

    @model_validator(mode="before")
    @classmethod
    def _from_list(cls, value: Any) -> Any:
        if not isinstance(value, list) or len(value) != len(cls.model_fields):
            raise ValueError("a group is [direction, bytes, sequential, count, seconds]")
        return dict(zip(cls.model_fields, value, strict=True))


class DeviceTrace(StrictModel):
    groups: list[TraceGroup]
    latency: dict[Direction, dict[Annotated[str, AfterValidator(_bucket)], Count]]


class TraceLine(StrictModel):
    tick: int = Field(ge=1)
    trace: dict[DeviceName, DeviceTrace]


class End(StrictModel):
    samples: Count
    stopped: Literal["duration", "interrupted"]
    wall_s: float = Field(ge=0)
    cpu_s: float = Field(ge=0)
    trace_lines: Count | None
    trace_lost: Count | None
    notes: list[Annotated[str, Field(max_length=NOTE_CHARS), AfterValidator(_text)]] = Field(
        default_factory=list, max_length=MAX_NOTES
    )


class EndLine(StrictModel):
    end: End


class Capture(StrictModel):
    """A capture read back: its header, its samples and its end record (None: cut short)."""

    header: Header
    samples: list[dict[str, Any]]
    #: the traced requests per tick (the interval ending at the sample of that tick)
    trace: dict[int, list[dict[str, Any]]] = Field(default_factory=dict)
    end: dict[str, Any] | None = None


def dumps(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"), sort_keys=True) + "\n"


class _Constant:
    """``NaN``, ``Infinity`` or ``-Infinity`` where JSON allows none: no model takes it."""

    def __init__(self, token: str):
        self.token = token


class _Unreadable(Exception):
    """A line that is not JSON; ``cut``: it may be a last line cut short."""

    def __init__(self, why: str, cut: bool):
        super().__init__(why)
        self.why, self.cut = why, cut


def _loads(line: str) -> Any:
    try:
        return json.loads(line, parse_constant=_Constant)
    except json.JSONDecodeError as exc:
        raise _Unreadable(f"not JSON ({exc.msg})", cut=True) from None
    except RecursionError:
        raise _Unreadable("not JSON this reader takes (nested too deeply)", cut=False) from None
    except ValueError:  # an integer of more digits than Python converts (4300)
        raise _Unreadable(
            "not JSON this reader takes (a number of thousands of digits)", cut=False
        ) from None


def _place(loc: tuple[Any, ...]) -> str:
    """A pydantic location as ``trace.sda.groups.0.seconds``; a name that is not a plain word
    shown escaped and shortened (it may be anything the file holds)."""
    parts = []
    for part in loc:
        if part == "[key]":
            continue
        text = str(part)
        if not re.fullmatch(r"[A-Za-z0-9_.:!-]{1,64}", text):
            text = ascii(text[:40] + ("…" if len(text) > 40 else ""))
        parts.append(text)
    return ".".join(parts)


def _problems(number: int, exc: ValidationError, whole: str) -> list[str]:
    out = []
    for e in exc.errors():
        msg = e["msg"]
        if isinstance(e.get("input"), _Constant):
            msg = f"{e['input'].token} is not a number JSON allows"
        msg = msg.removeprefix("Value error, ")
        out.append(f"line {number}: {_place(e['loc']) or whole}: {msg}")
    return out


#: the largest capture read: a week of one-second samples of a dozen devices with the block
#: tracer is a few hundred MB
MAX_CAPTURE_BYTES = 2 * 1024**3


def read_capture(path: Path) -> Capture:
    """The capture in ``path``; InputError naming the line, the field and the problem
    otherwise (the rules: this module's docstring)."""
    # A regular file only (a FIFO would wait for ever, /dev/zero fill the memory), of a size a
    # capture of weeks has.
    text = read_text(path, max_bytes=MAX_CAPTURE_BYTES, kind="capture")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise InputError(str(path), ["is empty, not a capture"])
    reader = _Reader(len(lines))
    for number, line in enumerate(lines, 1):
        reader.line(number, line)
        if len(reader.problems) >= MAX_PROBLEMS:
            break
    return reader.capture(str(path))


class _Reader:
    """The lines of a capture, validated one by one, then together."""

    def __init__(self, count: int):
        self.count = count
        self.problems: list[str] = []
        self.header: Header | None = None
        self.samples: list[tuple[int, dict[str, Any]]] = []
        self.trace: list[tuple[int, dict[str, Any]]] = []
        self.end: dict[str, Any] | None = None
        #: the line of the end record
        self.ended: int | None = None
        self.past_end = False

    def line(self, number: int, line: str) -> None:
        try:
            record = _loads(line)
        except _Unreadable as exc:
            # a capture killed mid-line: its last line is cut, and left out
            if not (exc.cut and number == self.count and number > 1):
                self.problems.append(f"line {number}: {exc.why}")
            return
        if self.ended is not None:
            if not self.past_end:  # said once
                self.problems.append(
                    f"line {number}: a record after the end record (line {self.ended}), "
                    "which is the last"
                )
            self.past_end = True
        elif number == 1:
            self._header(record)
        elif self.header is None:
            return  # the header's problems are reported; its lines cannot be judged
        elif not isinstance(record, dict):
            self.problems.append(f"line {number}: a record is a JSON object")
        elif "end" in record:
            self.ended = number
            if (end := self._valid(EndLine, record, number, "end")) is not None:
                self.end = end["end"]
        elif "trace" in record:
            if "blk-trace" not in self.header.sources:
                self.problems.append(
                    f"line {number}: trace: a trace line in a capture whose header names "
                    "no blk-trace"
                )
            elif (found := self._valid(TraceLine, record, number, "trace")) is not None:
                self._devices(number, "trace", found["trace"])
                self.trace.append((number, found))
        elif (sample := self._valid(Sample, record, number, "sample")) is not None:
            self._devices(number, "diskstats", sample["diskstats"])
            self._widths(number, sample["diskstats"])
            self.samples.append((number, sample))

    def _header(self, record: Any) -> None:
        try:
            self.header = Header.model_validate(record)
        except ValidationError as exc:
            self.problems += _problems(1, exc, "header")

    def _valid(self, model: type[StrictModel], record: Any, number: int, what: str) -> Any:
        try:
            model.model_validate(record)
        except ValidationError as exc:
            self.problems += _problems(number, exc, what)
            return None
        return record

    def _devices(self, number: int, field: str, per_device: dict[str, Any]) -> None:
        assert self.header is not None
        for name in per_device:
            if name not in self.header.devices:
                self.problems.append(
                    f"line {number}: {_place((field, name))}: not one of the header's devices"
                )

    def _widths(self, number: int, per_device: dict[str, list[int]]) -> None:
        assert self.header is not None
        want = len(self.header.diskstats_fields)
        for name, counters in per_device.items():
            if len(counters) != want:
                self.problems.append(
                    f"line {number}: {_place(('diskstats', name))}: {len(counters)} counters "
                    f"where the header's diskstats_fields name {want}"
                )

    def _order(self) -> None:
        """Sample ticks 0, 1, 2, … and trace ticks within the samples'. (``t`` is the wall
        clock, which a time step may set back: the interval it ends is left out, not refused.)"""
        previous: dict[str, Any] | None = None
        for number, sample in self.samples:
            due = 0 if previous is None else previous["tick"] + 1
            if sample["tick"] != due:
                self.problems.append(
                    f"line {number}: tick: {sample['tick']} where {due} is due (a sample's "
                    "tick is one more than the last sample's, from 0)"
                )
            previous = sample
        last = previous["tick"] if previous is not None else 0
        for number, line in self.trace:
            if line["tick"] > last + 1:
                self.problems.append(
                    f"line {number}: tick: {line['tick']} is past the samples (the last is "
                    f"tick {last}; a trace tick is at most one past it)"
                )

    def capture(self, source: str) -> Capture:
        if not self.problems:
            self._order()
        if self.problems:
            raise InputError(source, self.problems[:MAX_PROBLEMS])
        assert self.header is not None
        if len(self.samples) < 2:
            raise InputError(
                source, [f"has {len(self.samples)} sample(s); at least two are needed"]
            )
        trace: dict[int, list[dict[str, Any]]] = {}
        for _, line in self.trace:
            trace.setdefault(line["tick"], []).append(line["trace"])
        return Capture(
            header=self.header,
            samples=[s for _, s in self.samples],
            trace=trace,
            end=self.end,
        )
