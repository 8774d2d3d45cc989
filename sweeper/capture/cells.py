"""A phase's requests as workload cells (pure): grouped by direction, block-size bin and
access, random reads and writes of one bin joined into one ``randrwNN`` cell, each cell's
concurrency from its requests in flight (Little's law: summed service time over the phase's
busy time)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import numpy as np
from scipy.optimize import nnls

from sweeper.capture.bins import concurrency_jobs, inferred_sequential, size_bin
from sweeper.capture.seconds import Group, Second
from sweeper.units import format_size
from sweeper.workload import MAX_JOBS

#: an interval's trace is taken as complete when it saw this share of the bytes diskstats
#: counted in that direction
COMPLETE_SHARE = 0.5
#: random reads and writes of one bin make one mixed cell when the smaller side has at least
#: this share of the bin's requests
MIXED_MIN_SHARE = 0.10


@dataclass(frozen=True)
class ObservedCell:
    key: str
    requests: int
    bytes: int
    in_flight: float
    reads: int
    how: str

    @property
    def read_fraction(self) -> float:
        return self.reads / self.requests if self.requests else 0.0


def groups_of(phase: list[Second]) -> tuple[list[Group], list[str]]:
    """The phase's request groups, with the notes saying how they were found: per direction
    from the trace where it kept up, else from the counters alone (``_counted``)."""
    traced = all(s.groups is not None for s in phase)
    groups: list[Group] = []
    notes = (
        [
            "requests seen one by one by the kernel's block tracer as they were queued "
            "(before the block layer splits them): size, direction, sequential when a "
            "request starts where a recent one ended; each direction's totals from diskstats"
        ]
        if traced
        else []
    )
    for direction, label in (("R", "reads"), ("W", "writes")):
        found = _traced(phase, direction, label) if traced else None
        if found is None:
            found = _counted(phase, direction, label)
        groups += found[0]
        notes += found[1]
    if traced:
        service = sum(g.service_s for g in groups)
        queued_s = sum(s.weighted_ms for s in phase) / 1000
        scale = queued_s / service if service > 0 else 0.0
        groups = [
            Group(g.direction, g.size, g.sequential, g.requests, g.service_s * scale)
            for g in groups
        ]
        notes.append(
            "each cell's requests in flight: the block layer's mean queue (diskstats) shared "
            "by the cells' traced times; the application may keep more outstanding"
        )
    return groups, notes


def _bytes_of(s: Second, direction: str) -> int:
    return s.read_bytes if direction == "R" else s.write_bytes


def _traced(
    phase: list[Second], direction: str, label: str
) -> tuple[list[Group], list[str]] | None:
    """The direction's groups from the intervals whose trace saw at least
    ``COMPLETE_SHARE`` of the bytes diskstats counted (a tracer that fell behind lost the
    rest), scaled to the phase's bytes; None when no interval qualifies."""
    total = sum(_bytes_of(s, direction) for s in phase)
    if not total:
        return [], []
    moving = [s for s in phase if _bytes_of(s, direction)]
    tally: dict[tuple[int, bool], list[float]] = defaultdict(lambda: [0.0, 0.0])
    complete = 0
    for s in moving:
        mine = [g for g in s.groups or [] if g.direction == direction]
        seen = sum(g.size * g.requests for g in mine)
        if seen < COMPLETE_SHARE * _bytes_of(s, direction):
            continue
        complete += 1
        for g in mine:
            t = tally[(g.size, g.sequential)]
            t[0] += g.requests
            t[1] += g.service_s
    seen = sum(size * t[0] for (size, _), t in tally.items())
    if not seen:
        return None
    keys = list(tally)
    prior = np.array([tally[k][0] for k in keys]) * total / seen
    counted = sum(
        (s.reads + s.read_merges) if direction == "R" else (s.writes + s.write_merges)
        for s in phase
    )
    counts = _fit(prior, np.array([float(size) for size, _ in keys]), total, counted)
    groups = [
        Group(direction, size, seq, round(n), tally[(size, seq)][1] * n / max(t0, 1e-9))
        for (size, seq), n, t0 in zip(keys, counts, (tally[k][0] for k in keys), strict=True)
        if round(n)
    ]
    note = []
    if complete < len(moving):
        note.append(
            f"{label}: the mix from the {complete} of {len(moving)} intervals whose trace "
            f"saw at least {COMPLETE_SHARE:.0%} of diskstats' bytes (the tracer fell behind "
            "in the others), scaled to diskstats' total"
        )
    return groups, note


def _fit(prior: np.ndarray, sizes: np.ndarray, nbytes: float, requests: int) -> np.ndarray:
    """Request counts per traced group that move diskstats' bytes exactly and, where the
    direction has several sizes, come near diskstats' request count, staying near the
    trace's own mix (``prior``) where those two leave a choice (non-negative least squares).
    The count is weighed less than the bytes: a request the block layer split counts twice
    there."""
    if len(prior) < 2 or requests <= 0:
        return prior
    scale = max(float(prior.sum()), 1.0)
    rows = [sizes / nbytes, 0.5 * np.ones_like(sizes) / requests]
    rows += list(0.2 * np.eye(len(prior)) / scale)
    target = np.array([1.0, 0.5, *(0.2 * prior / scale)])
    solution, _ = nnls(np.array(rows), target)
    return solution


def _counted(phase: list[Second], direction: str, label: str) -> tuple[list[Group], list[str]]:
    """One group from the counters: mean size, sequential access inferred (``bins``)."""
    done = sum(s.reads if direction == "R" else s.writes for s in phase)
    merges = sum(s.read_merges if direction == "R" else s.write_merges for s in phase)
    nbytes = sum(_bytes_of(s, direction) for s in phase)
    busy_ms = sum(s.read_ms if direction == "R" else s.write_ms for s in phase)
    submitted = done + merges
    if not submitted:
        return [], []
    if not nbytes:  # no size is made up from no bytes
        return [], [f"{label}: {submitted:,} requests moved no bytes: no cell is made of them"]
    mean = nbytes / submitted
    sequential, why = inferred_sequential(submitted, merges, mean)
    note = (
        f"{label} from /proc/diskstats alone: mean size {mean / 1024:.1f} KiB; taken as "
        f"{'sequential' if sequential else 'random'} ({why})"
    )
    return [Group(direction, round(mean), sequential, submitted, busy_ms / 1000)], [note]


def observed_cells(groups: list[Group], busy_s: float) -> list[ObservedCell]:
    """The cells the groups make, largest first."""
    tally: dict[tuple[str, int, bool], list[float]] = defaultdict(lambda: [0, 0, 0.0])
    for g in groups:
        t = tally[(g.direction, size_bin(g.size), g.sequential)]
        t[0] += g.requests
        t[1] += g.requests * g.size
        t[2] += g.service_s
    cells: list[ObservedCell] = []
    for bin_ in sorted({b for (_, b, _) in tally}):
        r = tally.get(("R", bin_, False))
        w = tally.get(("W", bin_, False))
        single: list[tuple[str, list[float] | None, str]] = []
        if r and w and min(r[0], w[0]) / (r[0] + w[0]) >= MIXED_MIN_SHARE:
            pct = min(99, max(1, round(100 * r[0] / (r[0] + w[0]))))
            cells.append(_cell(f"randrw{pct}", bin_, r, w, busy_s, "random, mixed"))
        else:
            single += [("randread", r, "random"), ("randwrite", w, "random")]
        single += [
            (name, tally.get((direction, bin_, True)), "sequential")
            for name, direction in (("read", "R"), ("write", "W"))
        ]
        for name, t, kind in single:
            if t and t[0]:
                reads = name.endswith("read")
                cells.append(
                    _cell(name, bin_, t if reads else None, None if reads else t, busy_s, kind)
                )
    return sorted(cells, key=lambda c: -c.requests)


def _cell(
    pattern: str,
    bin_: int,
    reads: list[float] | None,
    writes: list[float] | None,
    busy_s: float,
    how: str,
) -> ObservedCell:
    parts = [t for t in (reads, writes) if t]
    requests = int(sum(t[0] for t in parts))
    in_flight = sum(t[2] for t in parts) / busy_s if busy_s > 0 else 1.0
    jobs = concurrency_jobs(in_flight)
    if in_flight > MAX_JOBS:
        how += f"; {in_flight:,.0f} requests in flight, more than a cell's {MAX_JOBS} jobs"
    return ObservedCell(
        key=f"{pattern}/{format_size(bin_)}/qd1x{jobs}",
        requests=requests,
        bytes=int(sum(t[1] for t in parts)),
        in_flight=in_flight,
        reads=int(reads[0]) if reads else 0,
        how=how,
    )
