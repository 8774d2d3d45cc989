"""The kernel's block tracer in text (blkparse's own line format, as tracefs gives it), read
into per-second tallies: pure functions over the lines, no file or process.

A request is counted when it is queued (``Q``: the I/O as the application's file system or
``O_DIRECT`` submitted it, before the block layer splits it to the device's limits): its
direction, size and whether it starts where a recent request of the same direction ended
(sequential: the last ``RECENT_ENDS`` ends per device and direction are remembered, so that
interleaved streams are each seen as sequential). Its time in the block layer and the device,
queued to completed (``C`` of the part that starts where it was queued), is added to its
group and to a latency histogram of quarter-powers of two in microseconds (19% wide)."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

#: how many recent request ends per device and direction a new request may continue
RECENT_ENDS = 64
#: an issue this old matched by a completion is one whose own completion was lost
STALE_S = 30.0
#: latency buckets per doubling
BUCKETS_PER_OCTAVE = 4
_SECTOR = 512
_LINE = re.compile(r"(?<= )(\d++\.\d++): ++(\d++,\d++) ++([QC]) ++([A-Z]++) (\d++) \+ (\d++)")
#: a queue or complete line's parts: seconds (trace clock, after the flags and a space),
#: device "major,minor", action, RWBS, sector, sectors. Lines of other actions (the "queue"
#: mask lets get-request, plug and unplug through too) do not match; one line at most per
#: match, so a block of lines is read in one pass (``finditer``). Possessive: a line that
#: fails is given up at once, not tried again with shorter numbers (twice as fast).


@dataclass(frozen=True)
class Event:
    ts: float
    device: str
    action: str
    direction: str
    sector: int
    sectors: int


def parse_line(line: str) -> Event | None:
    """The event of one trace line; None for comments, other actions, and requests that are
    neither a read nor a write (flush, discard)."""
    events = list(_events(line))
    return Event(*events[0]) if events else None


def _events(text: str) -> Iterator[tuple[float, str, str, str, int, int]]:
    """Each queue or complete event of ``text`` (whole lines), as Event's fields."""
    for m in _LINE.finditer(text):
        ts, dev, action, rwbs, sector, sectors = m.groups()
        if "D" in rwbs:  # a discard
            continue
        direction = "R" if "R" in rwbs else "W" if "W" in rwbs else None
        if direction is None or sectors == "0":
            continue
        yield float(ts), dev, action, direction, int(sector), int(sectors)


def latency_bucket(seconds: float) -> int:
    """The histogram bucket of a service time: ceil(4·log2(µs)), at least 0."""
    us = max(seconds * 1e6, 1.0)
    return max(0, math.ceil(BUCKETS_PER_OCTAVE * math.log2(us) - 1e-9))


def bucket_upper_ms(bucket: int) -> float:
    """The upper bound of a latency bucket in milliseconds."""
    return 2 ** (bucket / BUCKETS_PER_OCTAVE) / 1000


@dataclass
class _Device:
    #: per direction the last RECENT_ENDS request ends, oldest first (a dict: an ordered set)
    ends: dict[str, dict[int, None]] = field(default_factory=lambda: {"R": {}, "W": {}})
    queued: dict[tuple[str, int], tuple[float, tuple[str, int, bool]]] = field(default_factory=dict)

    def continues(self, direction: str, sector: int, sectors: int) -> bool:
        """Whether a request starts where one of the recent ones ended; it is remembered."""
        ends = self.ends[direction]
        sequential = sector in ends
        end = sector + sectors
        ends.pop(end, None)  # the newest again
        ends[end] = None
        if len(ends) > RECENT_ENDS:
            del ends[next(iter(ends))]
        return sequential


@dataclass
class _Tick:
    groups: dict[str, dict[tuple[str, int, bool], list[float]]] = field(default_factory=dict)
    latency: dict[str, dict[str, Counter[int]]] = field(default_factory=dict)


@dataclass
class TraceTally:
    """Tallies of the requests of the traced devices (``names``: "major,minor" → the
    device's name) per sampling interval, by each event's own time: tick ``k`` holds the
    events from ``start + (k-1)·interval`` to ``start + k·interval`` (the tracer's clock);
    ``feed`` each line, ``take`` the ticks that are complete."""

    names: dict[str, str]
    start: float = 0.0
    interval: float = 1.0
    _devices: dict[str, _Device] = field(default_factory=dict)
    _ticks: dict[int, _Tick] = field(default_factory=dict)
    lines: int = 0

    def feed(self, text: str) -> None:
        """Tally the events of ``text``: one trace line, or a block of whole lines."""
        for ts, device, action, direction, sector, sectors in _events(text):
            name = self.names.get(device)
            if name is None:
                continue
            self.lines += 1
            dev = self._devices.get(name) or self._devices.setdefault(name, _Device())
            k = max(0, math.floor((ts - self.start) / self.interval) + 1)
            tick = self._ticks.get(k) or self._ticks.setdefault(k, _Tick())
            key = (direction, sector)
            if action == "Q":
                group = (direction, sectors * _SECTOR, dev.continues(direction, sector, sectors))
                self._group(tick, name, group)[0] += 1
                dev.queued[key] = (ts, group)
                _bound(dev.queued)
                continue
            start = dev.queued.pop(key, None)
            if start is None or ts - start[0] > STALE_S:  # its queueing was not seen
                continue
            service = max(0.0, ts - start[0])
            self._group(tick, name, start[1])[1] += service
            per_dir = tick.latency.get(name)
            if per_dir is None:
                per_dir = tick.latency[name] = {"R": Counter(), "W": Counter()}
            per_dir[direction][latency_bucket(service)] += 1

    def _group(self, tick: _Tick, name: str, group: tuple[str, int, bool]) -> list[float]:
        return tick.groups.setdefault(name, {}).setdefault(group, [0, 0.0])

    def take(self, upto: int | None = None) -> dict[int, dict[str, dict[str, object]]]:
        """The ticks up to ``upto`` (all: None), each per device: its groups ``[direction,
        bytes, sequential, requests, service seconds]`` and latency histograms
        ``{direction: {bucket: count}}``. A tick taken is forgotten."""
        ready = sorted(k for k in self._ticks if upto is None or k <= upto)
        return {k: self._records(self._ticks.pop(k)) for k in ready}

    def _records(self, tick: _Tick) -> dict[str, dict[str, object]]:
        out: dict[str, dict[str, object]] = {}
        for name in self.names.values():
            groups = tick.groups.get(name, {})
            latency = tick.latency.get(name, {})
            out[name] = {
                "groups": [
                    [d, size, seq, int(v[0]), round(v[1], 6)]
                    for (d, size, seq), v in sorted(groups.items())
                ],
                "latency": {
                    d: {str(b): n for b, n in sorted(c.items())} for d, c in latency.items()
                },
            }
        return out


def _bound(pending: dict) -> None:
    """Forgets the oldest entry of a map whose other half was lost (at most 100,000 kept)."""
    if len(pending) > 100_000:
        pending.pop(next(iter(pending)))
