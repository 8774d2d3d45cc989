"""Where a workload changes (pure): idle intervals set aside, then binary segmentation of
the busy ones on what a class is made of.

Each busy interval is described by its read share of requests, the log2 of its mean request
size and the log2 of its request rate, from diskstats (complete, where a trace may fall
behind), each divided by the change that matters (``SCALES``: 10 points of read share, a
factor of 2 in size, a factor of 4 in rate); a change of sequential share alone is not seen.
The series is split where the split removes the most squared deviation; the split is kept
when both sides last at least the minimum phase and their medians differ by at least one
unit in some feature; then each side is split again.

One split of a whole stretch misses a short phase inside a long one (an hour's backup in a
day of OLTP: either side's median is still the OLTP), so where the best split is refused the
stretch is searched locally too: at each place the minimum phase before and after it are
compared, their medians by the same one unit, and of the places they differ the one whose
two windows' means differ most is the cut (where the change is, not half a window off)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from sweeper.capture.seconds import Second

#: the change in each feature that makes a new phase
SCALES = {"read_share": 0.10, "log2_size": 1.0, "log2_rate": 2.0}
#: an interval is idle (noise) below this many requests per second …
IDLE_IOPS = 5.0
#: … or below this share of the capture's busy rate (its 95th percentile)
IDLE_SHARE = 0.01


@dataclass(frozen=True)
class Phase:
    """Busy intervals ``start`` to ``stop`` (indices into the busy list) and their times."""

    start: int
    stop: int
    t_start: float
    t_end: float


def busy(series: list[Second]) -> tuple[list[Second], list[Second]]:
    """(busy intervals, idle ones): idle below ``IDLE_IOPS`` or ``IDLE_SHARE`` of the 95th
    percentile rate."""
    if not series:
        return [], []
    p95 = float(np.percentile([s.iops for s in series], 95))
    floor = max(IDLE_IOPS, IDLE_SHARE * p95)
    return [s for s in series if s.iops >= floor], [s for s in series if s.iops < floor]


def features(s: Second) -> list[float]:
    requests = max(s.requests, 1)
    size = max((s.read_bytes + s.write_bytes) / requests, 512)
    return [
        s.reads / requests / SCALES["read_share"],
        math.log2(size) / SCALES["log2_size"],
        math.log2(max(s.iops, 1.0)) / SCALES["log2_rate"],
    ]


def phases(series: list[Second], min_phase_s: float) -> list[Phase]:
    """The phases of the busy intervals ``series`` (in time order), at least ``min_phase_s``
    long each."""
    if not series:
        return []
    x = np.array([features(s) for s in series])
    dt = float(np.median([s.dt for s in series]))
    min_len = max(2, math.ceil(min_phase_s / dt))
    cuts = sorted(_split(x, 0, len(series), min_len))
    bounds = [0, *cuts, len(series)]
    return [
        Phase(a, b, series[a].t - series[a].dt, series[b - 1].t)
        for a, b in zip(bounds[:-1], bounds[1:], strict=True)
    ]


def _split(x: np.ndarray, a: int, b: int, min_len: int) -> list[int]:
    if b - a < 2 * min_len:
        return []
    seg = x[a:b]
    n = len(seg)
    csum = np.cumsum(seg, axis=0)
    k = np.arange(min_len, n - min_len + 1)
    left = csum[k - 1] / k[:, None]
    right = (csum[-1] - csum[k - 1]) / (n - k)[:, None]
    # the squared deviation a split at k removes
    gains = np.sum((left - right) ** 2, axis=1) * k * (n - k) / n
    best_k = int(k[int(np.argmax(gains))])
    left, right = seg[:best_k], seg[best_k:]
    if float(np.max(np.abs(np.median(left, axis=0) - np.median(right, axis=0)))) < 1.0:
        local = _local_cut(seg, min_len)
        if local is None:
            return []
        best_k = local
    cut = a + best_k
    return [*_split(x, a, cut, min_len), cut, *_split(x, cut, b, min_len)]


def _local_cut(seg: np.ndarray, min_len: int) -> int | None:
    """Where the ``min_len`` intervals before and after a place differ most (their means),
    among the places where their medians differ by a unit or more; None where none does."""
    n = len(seg)
    frame = pd.DataFrame(seg)
    # the window ending at index i (inclusive): row i of the rolling figures
    medians = frame.rolling(min_len).median().to_numpy()
    means = frame.rolling(min_len).mean().to_numpy()
    k = np.arange(min_len, n - min_len + 1)  # a cut before index k
    before, after = k - 1, k + min_len - 1
    apart = np.max(np.abs(medians[before] - medians[after]), axis=1)
    changed = apart >= 1.0
    if not changed.any():
        return None
    moved = np.sum((means[before] - means[after]) ** 2, axis=1)
    return int(k[changed][int(np.argmax(moved[changed]))])
