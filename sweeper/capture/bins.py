"""The matrix's words for what was observed (pure): block-size bins, concurrency from the
requests in flight, and how sequential access is inferred where only counters are seen."""

from __future__ import annotations

import math

from sweeper.workload import MAX_JOBS

#: the smallest and largest block-size bins
MIN_BIN = 512
MAX_BIN = 16 * 1024**2
#: counters only: a direction is taken as sequential when at least this share of its requests
#: was merged into a neighbour by the block layer (adjacent requests in flight together) …
SEQUENTIAL_MERGE_SHARE = 0.20
#: … or when its requests average at least this size (random I/O this large is rare)
SEQUENTIAL_MIN_SIZE = 256 * 1024


def size_bin(nbytes: float) -> int:
    """The power of two nearest ``nbytes`` on a log scale (6k → 8k, 5k → 4k), within
    512 bytes to 16 MiB."""
    if nbytes <= MIN_BIN:
        return MIN_BIN
    return int(min(MAX_BIN, 2 ** round(math.log2(nbytes))))


def concurrency_jobs(in_flight: float) -> int:
    """Mean requests in flight as a power of two of jobs, at least one (3 → 4, 5 → 4), at
    most a cell's ``MAX_JOBS`` (a deeper queue is said beside the cell: ``cells._cell``)."""
    if not in_flight > 1.0:
        return 1
    return int(min(MAX_JOBS, 2 ** round(math.log2(min(in_flight, 2.0 * MAX_JOBS)))))


def inferred_sequential(requests: int, merges: int, mean_size: float) -> tuple[bool, str]:
    """Whether counters alone suggest sequential access, and why: the block layer merges
    adjacent requests (so a high merge share means neighbours in flight together), and
    large requests are almost always streams. Neither sees sequential access issued one
    request at a time in small blocks: that is read as random."""
    share = merges / requests if requests else 0.0
    if share >= SEQUENTIAL_MERGE_SHARE:
        return True, f"{share:.0%} of its requests merged (≥ {SEQUENTIAL_MERGE_SHARE:.0%})"
    if mean_size >= SEQUENTIAL_MIN_SIZE:
        floor = SEQUENTIAL_MIN_SIZE // 1024
        return True, f"mean request {mean_size / 1024:.0f} KiB (≥ {floor} KiB)"
    return False, (
        f"{share:.0%} merged and mean request {mean_size / 1024:.0f} KiB "
        f"(< {SEQUENTIAL_MERGE_SHARE:.0%} and < {SEQUENTIAL_MIN_SIZE // 1024} KiB)"
    )
