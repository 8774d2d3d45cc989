"""A capture read as one record per sampling interval, over the chosen devices together
(pure): diskstats deltas as rates, and the traced requests where the capture has them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from sweeper.capture.format import Capture


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
    capture's by default). A device missing from either sample adds nothing to the interval;
    a counter that went backwards (a device re-created) counts as zero."""
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
            if a is None or b is None:
                continue
            d = [max(0, y - x) for x, y in zip(a, b, strict=True)]
            s.reads += d[0]
            s.read_merges += d[1]
            s.read_bytes += d[2] * sector
            s.read_ms += d[3]
            s.writes += d[4]
            s.write_merges += d[5]
            s.write_bytes += d[6] * sector
            s.write_ms += d[7]
            s.weighted_ms += d[10]
        if "blk-trace" in capture.header.sources:
            s.groups, s.latency = _traced(capture.trace.get(after["tick"], []), chosen)
        out.append(s)
    return out


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
