"""A phase's requests as workload cells (pure): grouped by direction, block-size bin and
access, random reads and writes of one bin joined into one ``randrwNN`` cell, each cell's
concurrency from its requests in flight (Little's law: summed service time over the phase's
busy time)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from sweeper.capture.bins import concurrency_jobs, inferred_sequential, size_bin
from sweeper.capture.seconds import Group, Second
from sweeper.units import format_size

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
    """The phase's request groups, from the trace where every interval has one, else one
    per direction from the counters (sizes as means; sequential access inferred, ``bins``);
    with the notes saying how."""
    if all(s.groups is not None for s in phase):
        traced = [g for s in phase for g in s.groups or []]
        service = sum(g.service_s for g in traced)
        queued_s = sum(s.weighted_ms for s in phase) / 1000
        scale = queued_s / service if service > 0 else 0.0
        return [
            Group(g.direction, g.size, g.sequential, g.requests, g.service_s * scale)
            for g in traced
        ], [
            "requests seen one by one by the kernel's block tracer as they were queued "
            "(before the block layer splits them): size, direction, sequential when a "
            "request starts where a recent one ended",
            "each cell's requests in flight: the block layer's mean queue (diskstats) shared "
            "by the cells' traced service times; the application may keep more outstanding",
        ]
    groups, notes = [], []
    for direction, label in (("R", "reads"), ("W", "writes")):
        done = sum(s.reads if direction == "R" else s.writes for s in phase)
        merges = sum(s.read_merges if direction == "R" else s.write_merges for s in phase)
        nbytes = sum(s.read_bytes if direction == "R" else s.write_bytes for s in phase)
        busy_ms = sum(s.read_ms if direction == "R" else s.write_ms for s in phase)
        submitted = done + merges
        if not submitted:
            continue
        mean = nbytes / submitted
        sequential, why = inferred_sequential(submitted, merges, mean)
        notes.append(
            f"{label} from /proc/diskstats alone: mean size {mean / 1024:.1f} KiB; taken as "
            f"{'sequential' if sequential else 'random'} ({why})"
        )
        groups.append(Group(direction, round(mean), sequential, submitted, busy_ms / 1000))
    return groups, notes


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
        if r and w and min(r[0], w[0]) / (r[0] + w[0]) >= MIXED_MIN_SHARE:
            pct = min(99, max(1, round(100 * r[0] / (r[0] + w[0]))))
            cells.append(_cell(f"randrw{pct}", bin_, r, w, busy_s, "random, mixed"))
        else:
            for name, t in (("randread", r), ("randwrite", w)):
                if t and t[0]:
                    cells.append(
                        _cell(
                            name,
                            bin_,
                            t if name == "randread" else None,
                            t if name == "randwrite" else None,
                            busy_s,
                            "random",
                        )
                    )
        for name, direction in (("read", "R"), ("write", "W")):
            t = tally.get((direction, bin_, True))
            if t and t[0]:
                cells.append(
                    _cell(
                        name,
                        bin_,
                        t if direction == "R" else None,
                        t if direction == "W" else None,
                        busy_s,
                        "sequential",
                    )
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
    return ObservedCell(
        key=f"{pattern}/{format_size(bin_)}/qd1x{jobs}",
        requests=requests,
        bytes=int(sum(t[1] for t in parts)),
        in_flight=in_flight,
        reads=int(reads[0]) if reads else 0,
        how=how,
    )
