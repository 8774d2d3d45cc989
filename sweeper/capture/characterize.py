"""A capture's busy intervals as workload classes, one per phase, each with its explanation
(pure: the figures in, the class documents and their explanation out)."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from sweeper.capture.bins import SEQUENTIAL_MIN_SIZE
from sweeper.capture.cells import ObservedCell, groups_of, observed_cells
from sweeper.capture.phases import busy, phases
from sweeper.capture.seconds import Second
from sweeper.capture.trace import bucket_upper_ms
from sweeper.workload import WorkloadCell

#: the latency percentile a class's limits are set from
PERCENTILE = 99


@dataclass(frozen=True)
class Options:
    name: str
    min_phase_s: float = 30.0
    #: a cell carrying less than this share of a phase's requests (bytes, for MB/s) is noise
    min_share: float = 0.05
    #: a limit is the observed percentile times (1 + headroom)
    headroom: float = 0.5


@dataclass
class PhaseClass:
    """One phase: its times, its class document, its cells (kept and dropped as noise) and
    the lines that explain it."""

    name: str
    t_start: float
    t_end: float
    intervals: int
    document: dict[str, Any]
    kept: list[tuple[ObservedCell, float]]
    dropped: list[tuple[ObservedCell, float]]
    read_share: float
    explanation: list[str] = field(default_factory=list)


def characterize(series: list[Second], options: Options) -> tuple[list[PhaseClass], list[str]]:
    """The classes of ``series`` and the notes on the whole capture (idle time dropped)."""
    series, notes = _trace_kept(series)
    notes += _flushes(series)
    active, idle = busy(series)
    notes.append(
        f"{len(series)} intervals captured, {len(idle)} idle ones dropped as noise "
        f"(fewer requests a second than the idle floor: 5, or 1% of the 95th percentile)"
    )
    found = phases(active, options.min_phase_s)
    if len(found) > 1:
        notes.append(
            f"{len(found)} phases: the workload changes (read share, request size or rate) "
            "for at least the minimum phase length"
        )
    out = []
    for i, phase in enumerate(found, 1):
        name = options.name if len(found) == 1 else f"{options.name}_phase{i}"
        out.append(_phase_class(name, i, len(found), active[phase.start : phase.stop], options))
    return out, notes


def _trace_kept(series: list[Second]) -> tuple[list[Second], list[str]]:
    """The series, its trace set aside when it holds no request at all while diskstats
    counted some (a line format the reader does not know, or every event lost): the figures
    then come from the counters alone, as the note says."""
    traced = [s for s in series if s.groups is not None]
    seen = sum(g.requests for s in traced for g in s.groups or [])
    counted = sum(s.requests for s in traced)
    if not traced or seen or not counted:
        return series, []
    note = (
        f"the block tracer's record holds no request while diskstats counted {counted:,}: "
        "it is set aside (its lines were not read, or all were lost), and every figure below "
        "comes from /proc/diskstats alone"
    )
    return [replace(s, groups=None, latency=None) for s in series], [note]


def _flushes(series: list[Second]) -> list[str]:
    """What the counters' flushes and writes of no data were taken as."""
    flushes = sum(s.flushes for s in series)
    empty = sum(s.empty_writes for s in series)
    if not empty and not flushes:
        return []
    return [
        f"{flushes:,} flushes (fsync, O_DSYNC) and {empty:,} writes of no data (the kernel "
        "counts a flush with no data as a write of 0 bytes): not requests of any cell, and "
        "their time is not counted as requests in flight"
    ]


def _phase_class(
    name: str, index: int, count: int, part: list[Second], options: Options
) -> PhaseClass:
    busy_s = sum(s.dt for s in part)
    groups, how = groups_of(part)
    cells = observed_cells(groups, busy_s)
    total_requests = sum(c.requests for c in cells) or 1
    total_bytes = sum(c.bytes for c in cells) or 1
    large = sum(c.bytes for c in cells if _block_size(c) >= SEQUENTIAL_MIN_SIZE)
    metric = "mbps" if large / total_bytes >= 0.5 else "iops"

    def share(c: ObservedCell) -> float:
        return c.bytes / total_bytes if metric == "mbps" else c.requests / total_requests

    kept = [(c, share(c)) for c in cells if share(c) >= options.min_share]
    dropped = [(c, share(c)) for c in cells if share(c) < options.min_share]
    if not kept:  # nothing carries the minimum share: the largest cell stands for the phase
        kept, dropped = [(cells[0], share(cells[0]))], [(c, share(c)) for c in cells[1:]]
    left = sum(s for _, s in kept)
    weights = _percentages([s / left for _, s in kept])
    reads = sum(s.reads for s in part)
    read_share = reads / max(1, sum(s.requests for s in part))
    directions = {d for c, _ in kept for d in _directions(c)}
    limits, limit_notes = _limits(part, directions, options.headroom)
    t0, t1 = part[0].t - part[0].dt, part[-1].t
    basis = "bytes" if metric == "mbps" else "requests"
    lines = [
        f"phase {index} of {count}: {_clock(t0)} to {_clock(t1)} UTC "
        f"({len(part)} busy intervals, {busy_s:.0f} s), "
        f"{sum(s.iops for s in part) / len(part):,.0f} requests/s, {read_share:.0%} reads",
        *how,
        f"weights are each cell's share of the phase's {basis} (metric {metric})",
    ]
    for (c, _), w in zip(kept, weights, strict=True):
        lines.append(
            f"  {c.key}: weight {w:g} — {c.requests / total_requests:.1%} of requests, "
            f"{c.bytes / total_bytes:.1%} of bytes; {c.how}, {c.in_flight:.1f} in flight"
        )
    for c, s in dropped:
        floor = f"{100 * options.min_share:g}%"
        lines.append(f"  dropped as noise: {c.key} ({s:.1%} of {basis} < {floor})")
    lines += limit_notes
    document: dict[str, Any] = {
        "name": name,
        "description": _description(kept, weights, index, count, read_share),
        "metric": metric,
        "cells": [{"cell": c.key, "weight": w} for (c, _), w in zip(kept, weights, strict=True)],
    }
    if limits:
        document["limits"] = limits
    return PhaseClass(name, t0, t1, len(part), document, kept, dropped, read_share, lines)


def _percentages(shares: list[float]) -> list[float]:
    """Shares as percentages with one decimal, summing to 100 (the largest takes the rest)."""
    # a share under 0.1% keeps two significant digits: a weight of 0 is no weight
    out = [round(100 * s, 1) if s >= 0.001 else float(f"{100 * s:.2g}") for s in shares]
    big = max(range(len(out)), key=out.__getitem__)
    out[big] = round(100 - sum(o for i, o in enumerate(out) if i != big), 1)
    return out


def _directions(c: ObservedCell) -> set[str]:
    pattern = WorkloadCell.parse(c.key).pattern
    return {d for d, on in (("read", pattern.reads), ("write", pattern.writes)) if on}


def _limits(
    part: list[Second], directions: set[str], headroom: float
) -> tuple[list[dict[str, str]], list[str]]:
    limits, notes = [], []
    traced = all(s.latency is not None for s in part)
    for direction in sorted(directions):
        key = direction[0].upper()
        if traced:
            histogram: Counter[int] = Counter()
            for s in part:
                histogram.update((s.latency or {}).get(key, {}))
            observed = _histogram_percentile(histogram, PERCENTILE)
            source = "of every request's time queued to completed (block tracer)"
        else:
            waits = [
                (
                    s.read_ms / s.reads if key == "R" else s.write_ms / s.writes,
                    s.reads if key == "R" else s.writes,
                )
                for s in part
                if (s.reads if key == "R" else s.writes)
            ]
            observed = _exponential_percentile(waits, PERCENTILE) if waits else None
            source = (
                "estimated from each interval's mean wait (diskstats' await): its requests' "
                "waits taken as a queue's, exponential about that mean (the p99 of one "
                "interval is 4.6 × its mean), over the intervals weighted by requests; the "
                "counters see no single request, the block tracer (--trace) does"
            )
        if observed is None:
            continue
        limit = observed * (1 + headroom)
        text = _latency_text(limit)
        limits.append({"metric": f"{direction}_lat_p{PERCENTILE}", "max": text})
        notes.append(
            f"limit {direction}_lat_p{PERCENTILE} ≤ {text}: observed p{PERCENTILE} "
            f"{observed:.3g} ms {source}, plus {headroom:.0%} headroom"
        )
    return limits, notes


def _histogram_percentile(histogram: Counter[int], pct: float) -> float | None:
    total = sum(histogram.values())
    if not total:
        return None
    seen = 0
    for bucket in sorted(histogram):
        seen += histogram[bucket]
        if seen >= total * pct / 100:
            return bucket_upper_ms(bucket)
    return bucket_upper_ms(max(histogram))


def _exponential_percentile(waits: list[tuple[float, int]], pct: float) -> float | None:
    """The ``pct`` percentile of the requests' waits where each interval's ``(mean wait,
    requests)`` is all that is known: the waits of an interval spread as a queue's response
    times do, exponentially about their mean, so the whole is the mixture
    ``F(q) = Σ wᵢ (1 − e^(−q / mᵢ)) / Σ wᵢ``, solved for ``F(q) = pct / 100`` by bisection.
    The p99 of a steady interval is ``ln 100 ≈ 4.6`` times its mean wait (the p99 of the
    per-interval means was the mean itself: limits the measured workload broke 2–7 times)."""
    means = np.array([m for m, w in waits if w > 0 and m > 0], dtype=float)
    weights = np.array([w for m, w in waits if w > 0 and m > 0], dtype=float)
    if not len(means):
        return None
    target = pct / 100
    lo, hi = 0.0, float(means.max()) * math.log(1 / (1 - target)) * 2
    for _ in range(100):
        mid = (lo + hi) / 2
        share = float(np.sum(weights * (1 - np.exp(-mid / means))) / weights.sum())
        lo, hi = (mid, hi) if share < target else (lo, mid)
    return hi


def _latency_text(ms: float) -> str:
    """Two significant digits, in µs below a millisecond: ``850us``, ``1.3ms``, ``27ms``."""
    if ms < 1:
        return f"{max(1.0, _two_digits(ms * 1000)):g}us"
    return f"{_two_digits(ms):g}ms"


def _two_digits(x: float) -> float:
    return round(x, -int(math.floor(math.log10(max(x, 1e-9)))) + 1)


def _block_size(c: ObservedCell) -> int:
    return WorkloadCell.parse(c.key).block_size


def _description(
    kept: list[tuple[ObservedCell, float]], weights: list[float], i: int, n: int, reads: float
) -> str:
    what = ", ".join(f"{c.key} {w:g}%" for (c, _), w in zip(kept, weights, strict=True))
    phase = f"phase {i} of {n}, " if n > 1 else ""
    return f"Captured workload ({phase}{reads:.0%} reads): {what}"


def _clock(t: float) -> str:
    return np.datetime_as_string(np.datetime64(int(t), "s")).replace("T", " ")
