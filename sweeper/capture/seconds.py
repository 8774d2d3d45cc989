"""A capture read as one record per sampling interval, over the chosen devices together
(pure): diskstats deltas as rates, and the traced requests where the capture has them.

Flushes, as the kernel counts them (measured on 6.18 by ``tests/fixtures/capture/flushes``:
2000 strictly serial operations of each program on a loop device, a write-back cache without
FUA): a flush with no data (fsync of a block device with nothing new, and the one that ends
each fsync, fdatasync or ``O_DSYNC`` write) is a write of 0 sectors *and* a flush (empty
fsyncs: writes +2000, write_sectors +0, flushes +2000); a 4k write then fsync or fdatasync,
or a buffered ``O_DSYNC`` 4k write, writes +4000 and flushes +2000, and so on ext4 (also
with ``O_DIRECT`` + ``O_DSYNC`` there); ``O_DIRECT`` + ``O_DSYNC`` on the block device
itself writes +4000 and flushes +4000 (the write's own flush after its data, then the empty
one). A device without a write cache (zram) counts neither. So an interval that wrote no
sector wrote no data (all its writes were flushes); one with fewer flushes than writes had a
write of no data for each flush; one with as many had one for every write of data (half its
writes). Exact for every program measured; a file system's journal commit (a write of data
with flushes of its own) is taken as a write of no data too. The empty writes' time (about
their flushes', which they wait for) is taken out of ``write_ms``, and ``weighted_ms`` (the
sum of every request's time, discards' and flushes' included) loses the discards' and
flushes' time.

``read_ms``, ``write_ms``, ``io_ms``, ``weighted_ms``, ``discard_ms`` and ``flush_ms`` are
32-bit in the kernel (``diskstats.WRAPPING``): their deltas are taken modulo 2**32."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from sweeper.capture.diskstats import FIELDS, WRAP, WRAPPING
from sweeper.capture.format import Capture

#: the positions of the counters that wrap at 2**32, and of those that only grow (requests,
#: merges, sectors: unsigned longs) unless the device was re-created
_WRAPS = frozenset(i for i, name in enumerate(FIELDS) if name in WRAPPING)
_GROWS = frozenset(
    i for i, name in enumerate(FIELDS) if name not in WRAPPING and name != "in_flight"
)
_AT = {name: i for i, name in enumerate(FIELDS)}


@dataclass(frozen=True)
class Group:
    """Requests of one direction (``R``/``W``), size in bytes and access (sequential or not),
    with their summed service seconds."""

    direction: str
    size: int
    sequential: bool
    requests: int
    service_s: float


@dataclass
class Second:
    """One interval: its end ``t`` and length ``dt``, the counters' deltas, and the traced
    groups and service-time histograms per direction (None: no trace)."""

    t: float
    dt: float
    reads: int = 0
    writes: int = 0
    read_bytes: int = 0
    write_bytes: int = 0
    read_merges: int = 0
    write_merges: int = 0
    read_ms: int = 0
    write_ms: int = 0
    weighted_ms: int = 0
    #: flushes completed, and the writes of no data (flush-only) taken out of ``writes``
    flushes: int = 0
    empty_writes: int = 0
    discards: int = 0
    groups: list[Group] | None = None
    latency: dict[str, Counter[int]] | None = None
    devices: list[str] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return self.reads + self.writes

    @property
    def iops(self) -> float:
        return self.requests / self.dt

    @property
    def queue(self) -> float:
        """Requests in flight on average (iostat's aqu-sz)."""
        return self.weighted_ms / (self.dt * 1000)


def seconds(capture: Capture, devices: list[str] | None = None) -> list[Second]:
    """One record per interval between consecutive samples, summed over ``devices`` (all the
    capture's by default). A device missing from either sample adds nothing to the interval,
    nor does one whose request or sector counts went backwards (re-created)."""
    chosen = devices or capture.header.devices
    sector = capture.header.sector_bytes
    out: list[Second] = []
    for before, after in zip(capture.samples[:-1], capture.samples[1:], strict=True):
        dt = after["t"] - before["t"]
        if dt <= 0:
            continue
        s = Second(t=after["t"], dt=dt, devices=list(chosen))
        for name in chosen:
            a, b = before["diskstats"].get(name), after["diskstats"].get(name)
            d = deltas(a, b) if a is not None and b is not None else None
            if d is not None:
                _add(s, d, sector)
        if "blk-trace" in capture.header.sources:
            s.groups, s.latency = _traced(capture.trace.get(after["tick"], []), chosen)
        out.append(s)
    return out


def deltas(before: list[int], after: list[int]) -> list[int] | None:
    """A device's counter deltas between two samples: the 32-bit milliseconds modulo 2**32
    (a wrap is no reset), the in-flight count as it is after; None when a request or sector
    count went backwards, or a millisecond counter went back from below 2**31 (the device
    was re-created: the interval is not its). A counter wraps only from high up: one that
    restarted from zero has not run 4.29e9 ms in an interval."""
    out = []
    for i, (x, y) in enumerate(zip(before, after, strict=True)):
        if i in _WRAPS:
            if y < x and x < WRAP // 2:
                return None
            out.append((y - x) % WRAP)
        elif i in _GROWS and y < x:
            return None
        else:
            out.append(y if i == _AT["in_flight"] else y - x)
    return out


def empty_writes(writes: int, write_sectors: int, flushes: int) -> int:
    """How many of an interval's writes were flushes with no data (the module's docstring):
    all of them when no sector was written, else one per flush while there are fewer flushes
    than writes, else half the writes."""
    if not write_sectors:
        return writes
    return flushes if flushes < writes else writes // 2


def _add(s: Second, d: list[int], sector: int) -> None:
    def get(name: str) -> int:
        i = _AT[name]
        return d[i] if i < len(d) else 0

    flushes, flush_ms = get("flushes"), get("flush_ms")
    empty = empty_writes(get("writes"), get("write_sectors"), flushes)
    s.reads += get("reads")
    s.read_merges += get("reads_merged")
    s.read_bytes += get("read_sectors") * sector
    s.read_ms += get("read_ms")
    s.writes += get("writes") - empty
    s.write_merges += get("writes_merged")
    s.write_bytes += get("write_sectors") * sector
    # the empty writes' time: about their flushes' (each waits for one)
    s.write_ms += max(0, get("write_ms") - round(flush_ms * min(1.0, empty / max(flushes, 1))))
    s.weighted_ms += max(0, get("weighted_ms") - get("discard_ms") - flush_ms)
    s.flushes += flushes
    s.empty_writes += empty
    s.discards += get("discards")


def _traced(lines: list[dict], chosen: list[str]) -> tuple[list[Group], dict[str, Counter[int]]]:
    groups: list[Group] = []
    latency: dict[str, Counter[int]] = {"R": Counter(), "W": Counter()}
    for name, trace in ((n, t) for t in lines for n in chosen):
        record = trace.get(name) or {}
        for direction, size, sequential, requests, service in record.get("groups", []):
            groups.append(Group(direction, int(size), bool(sequential), int(requests), service))
        for direction, histogram in (record.get("latency") or {}).items():
            for bucket, count in histogram.items():
                latency.setdefault(direction, Counter())[int(bucket)] += int(count)
    return groups, latency
