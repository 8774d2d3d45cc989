"""Steady state by the SNIA PTS rule, from fio's interval logs.

fio writes one interval log per job with ``write_iops_log=NAME`` / ``write_bw_log=NAME`` /
``write_lat_log=NAME``; with ``log_avg_msec=M`` each line is the average over the M ms window
that *ends* at its time stamp. Values are IOPS, KiB/s or nanoseconds by log type.

Pure functions, no I/O: the caller reads the files.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

DIRECTIONS = {"read": 0, "write": 1, "trim": 2}
# Comparisons at exactly 20 % / 10 % must not flip on the last bit of a float product.
_REL_TOL = 1e-9


@dataclass(frozen=True)
class LogSample:
    """One line of a fio interval log.

    fio 3.18 and later write ``time, value, direction, block size, priority`` and, with
    ``log_offset=1``, ``time, value, direction, block size, offset, priority`` (checked with
    fio 3.33; ``log_prio=1`` prints the priority in hex, e.g. ``0x0000``). Before 3.18 (its
    per-command priority logging) fio wrote no priority: ``time, value, direction, block
    size``, 4 columns. raidsweep's job files never set ``log_offset``, so a 5-column line has
    no offset. With ``log_avg_msec`` fio writes 0 for block size and offset.
    """

    time_ms: int
    value: float
    direction: int  # 0 read, 1 write, 2 trim
    block_size: int
    offset: int | None
    priority: int | None


@dataclass(frozen=True)
class SteadyState:
    """Outcome of the SNIA PTS steady-state test over a sequence of rounds.

    When ``steady``, the figures describe the first window that passed. When not, they describe
    the last window examined (the latest ``window`` rounds), to show how far off it is, and the
    window indexes are None; with fewer rounds than one window every figure is None.
    """

    steady: bool
    window_start: int | None  # index of the window's first round
    window_end: int | None  # index of its last round (inclusive)
    average: float | None
    range_pct: float | None  # (max - min) / average, in %
    slope_pct: float | None  # |slope| × (window - 1) / average, in %
    rounds_used: int  # rounds examined: through the steady window, else all of them


def _int_field(token: str, lineno: int, name: str) -> int:
    try:
        value = int(token, 16) if token.lower().startswith("0x") else int(token)
    except ValueError:
        raise ValueError(f"line {lineno}: {name} {token!r} is not an integer") from None
    if value < 0:
        raise ValueError(f"line {lineno}: {name} {value} is negative")
    return value


def parse_interval_log(text: str) -> list[LogSample]:
    """Parse one fio interval log (IOPS, bandwidth or latency) into samples, in file order.

    Blank lines are skipped. A line without 4 (fio before 3.18), 5 or 6 comma-separated
    columns, or with a field that is not a number, raises ValueError naming the line number
    and the problem: a log cut short or mixed up with other output must not quietly become a
    different curve.
    """
    samples: list[LogSample] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        if len(fields) not in (4, 5, 6):
            raise ValueError(
                f"line {lineno}: expected 4, 5 or 6 comma-separated columns, got {len(fields)}"
                f" ({line.strip()[:80]!r})"
            )
        time_ms = _int_field(fields[0], lineno, "time")
        try:
            value = float(fields[1])
        except ValueError:
            raise ValueError(f"line {lineno}: value {fields[1]!r} is not a number") from None
        if not math.isfinite(value) or value < 0:
            raise ValueError(f"line {lineno}: value {fields[1]!r} is not a finite number >= 0")
        direction = _int_field(fields[2], lineno, "data direction")
        if direction not in DIRECTIONS.values():
            raise ValueError(f"line {lineno}: data direction {direction} is not 0, 1 or 2")
        block_size = _int_field(fields[3], lineno, "block size")
        offset: int | None = None
        priority: int | None = None
        if len(fields) == 6:
            offset = _int_field(fields[4], lineno, "offset")
            priority = _int_field(fields[5], lineno, "priority")
        elif len(fields) == 5:
            priority = _int_field(fields[4], lineno, "priority")
        samples.append(LogSample(time_ms, value, direction, block_size, offset, priority))
    return samples


def _bucket(time_ms: int, log_avg_msec: int) -> int:
    """Index of the averaging window a sample belongs to, by the window's midpoint.

    fio stamps a window's average at its end, a few ms late at times (3001 instead of 3000);
    taking the midpoint keeps such a sample in its own window.
    """
    return math.floor((time_ms - log_avg_msec / 2) / log_avg_msec)


def _check_avg(log_avg_msec: int) -> None:
    if log_avg_msec <= 0:
        raise ValueError(f"log_avg_msec must be > 0, got {log_avg_msec}")


def merge_job_logs(
    logs: Sequence[Sequence[LogSample]], *, log_avg_msec: int = 1000
) -> list[LogSample]:
    """Sum IOPS or bandwidth across jobs' logs, per averaging window and direction.

    With ``numjobs`` > 1 fio writes one log per job; the device's throughput is their sum.
    Within one log, several samples in one window are averaged (they are rates). A window is
    kept only when every log that has samples in that direction has one there: a job that had
    not started or had already stopped would otherwise show up as a drop in the total (fio
    often writes the last window for only some of the jobs). Not for latency logs, whose
    values must be averaged, not added.
    """
    _check_avg(log_avg_msec)
    per_log: list[dict[tuple[int, int], float]] = []
    for log in logs:
        groups: dict[tuple[int, int], list[float]] = defaultdict(list)
        for s in log:
            groups[(_bucket(s.time_ms, log_avg_msec), s.direction)].append(s.value)
        per_log.append({k: sum(v) / len(v) for k, v in groups.items()})
    merged: list[LogSample] = []
    directions = sorted({d for log in per_log for (_, d) in log})
    for direction in directions:
        members = [log for log in per_log if any(d == direction for (_, d) in log)]
        buckets = set.intersection(*({b for (b, d) in log if d == direction} for log in members))
        for b in buckets:
            total = sum(log[(b, direction)] for log in members)
            merged.append(LogSample((b + 1) * log_avg_msec, total, direction, 0, None, None))
    merged.sort(key=lambda s: (s.time_ms, s.direction))
    return merged


def rounds(
    samples: Iterable[LogSample],
    round_s: float,
    direction: str | None,
    *,
    log_avg_msec: int = 1000,
) -> list[float]:
    """Average the samples of one log (or of ``merge_job_logs``) per round of ``round_s``.

    ``direction`` is "read", "write" or "trim", or None for all directions added together
    (e.g. total IOPS of a mixed workload). Round 0 is the first round that holds a sample, so
    logs that begin late (after ``ramp_time``) need no offset. A round counts only when it holds
    all its ``round_s / log_avg_msec`` windows: the last, partial round of a run is dropped,
    and a missing window before it raises ValueError, since the rounds would no longer be
    consecutive. Two samples of one direction in one window mean several jobs' logs were
    concatenated rather than merged: ValueError too.
    """
    _check_avg(log_avg_msec)
    if direction is not None and direction not in DIRECTIONS:
        raise ValueError(f"direction must be one of {sorted(DIRECTIONS)} or None: {direction!r}")
    round_ms = round(round_s * 1000)
    if round_ms <= 0 or round_ms % log_avg_msec:
        raise ValueError(
            f"round_s={round_s} must be a positive multiple of log_avg_msec={log_avg_msec} ms"
        )
    per_round = round_ms // log_avg_msec
    wanted = None if direction is None else DIRECTIONS[direction]
    windows: dict[int, float] = defaultdict(float)
    seen: set[tuple[int, int]] = set()
    for s in samples:
        if wanted is not None and s.direction != wanted:
            continue
        b = _bucket(s.time_ms, log_avg_msec)
        if (b, s.direction) in seen:
            raise ValueError(
                f"two samples of direction {s.direction} in the window ending near"
                f" {s.time_ms} ms: merge several jobs' logs with merge_job_logs first"
            )
        seen.add((b, s.direction))
        windows[b] += s.value
    if not windows:
        return []
    first_round = min(windows) // per_round
    last_round = max(windows) // per_round
    out: list[float] = []
    for r in range(first_round, last_round + 1):
        values = [windows[b] for b in range(r * per_round, (r + 1) * per_round) if b in windows]
        if len(values) < per_round:
            if r == last_round:
                break  # the run ended inside this round
            raise ValueError(
                f"round {r - first_round} ({r * round_ms}-{(r + 1) * round_ms} ms) holds"
                f" {len(values)} of its {per_round} windows: the log has a gap"
            )
        out.append(sum(values) / per_round)
    return out


def snia_steady_state(
    values: Sequence[float],
    window: int = 5,
    max_excursion: float = 0.20,
    max_slope: float = 0.10,
) -> SteadyState:
    """The first measurement window of ``window`` consecutive rounds in steady state.

    The reading of SNIA SSS PTS 2.0 used here, for the window's values y and average Ave(y):

    * range:  max(y) − min(y) ≤ ``max_excursion`` × Ave(y)  (20 %);
    * slope:  the least-squares line fitted to (round index, y) over the window, taken from its
      first to its last round, moves by |slope| × (window − 1) ≤ ``max_slope`` × Ave(y)
      (10 %). That is PTS's "max − min of the best linear fit within 10 % of the average": the
      fit's excursion across the whole window, not the per-round slope.

    Both bounds are inclusive ("no more than"). A window whose average is 0 is not steady
    (a device that did no I/O is not in a steady state worth reporting).
    """
    if window < 2:
        raise ValueError(f"window must be at least 2 rounds, got {window}")
    if max_excursion < 0 or max_slope < 0:
        raise ValueError("max_excursion and max_slope must be >= 0")
    y = np.asarray(values, dtype=float)
    if y.ndim != 1:
        raise ValueError("values must be a flat sequence of numbers")
    if not np.isfinite(y).all() or (y < 0).any():
        raise ValueError("values must be finite and >= 0 (rates or latencies)")
    n = len(y)
    if n < window:
        return SteadyState(False, None, None, None, None, None, n)
    x = np.arange(window, dtype=float)
    figures: tuple[float, float, float] = (math.nan, math.nan, math.nan)
    for start in range(n - window + 1):
        w = y[start : start + window]
        avg = float(w.mean())
        spread = float(w.max() - w.min())
        slope = float(np.polyfit(x, w, 1)[0])
        excursion = abs(slope) * (window - 1)
        if avg > 0:
            figures = (avg, 100 * spread / avg, 100 * excursion / avg)
            limit = 1 + _REL_TOL
            if spread <= max_excursion * avg * limit and excursion <= max_slope * avg * limit:
                return SteadyState(True, start, start + window - 1, *figures, start + window)
        else:
            figures = (avg, math.inf, math.inf)
    return SteadyState(False, None, None, *figures, n)
