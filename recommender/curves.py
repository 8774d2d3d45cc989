"""Concurrency curves: IOPS and latency as outstanding I/Os grow (1, 2, 4 … 512).

Three operating points are reported, each with its outstanding I/Os, IOPS and latency:

* Speed: the lowest-outstanding point (normally one worker), where latency is lowest;
* Optimum: the knee, beyond which more outstanding I/Os buy little throughput for the latency
  they add;
* Maximum: the highest throughput.

Pure functions, no I/O.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from kneed import KneeLocator

from sweeper.units import format_ms, parse_latency_ms
from sweeper.workload import SYNC_ENGINES

KNEEDLE = "kneedle"
GAIN_VS_LATENCY = "gain-vs-latency"
NO_KNEE = "none"
MIN_KNEE_POINTS = 3  # Kneedle compares each point with the chord between the ends
# A drop of exactly drop_pct must not count as more on the last bit of a float product.
_REL_TOL = 1e-9


@dataclass(frozen=True)
class CurvePoint:
    outstanding: int  # I/Os in flight: iodepth × jobs
    iops: float
    latency_ms: float  # mean latency


@dataclass(frozen=True)
class CurveSummary:
    speed: CurvePoint
    optimum: CurvePoint | None  # None only for a curve of fewer than 3 points
    maximum: CurvePoint
    method: str  # KNEEDLE, GAIN_VS_LATENCY or NO_KNEE: what decided the optimum
    note: str  # one sentence saying how, for a report
    points: tuple[CurvePoint, ...]  # the curve, by outstanding


def _sorted_points(points: Sequence[CurvePoint], *, positive_iops: bool) -> list[CurvePoint]:
    out = sorted(points, key=lambda p: p.outstanding)
    for p in out:
        if p.outstanding < 1:
            raise ValueError(f"outstanding must be >= 1: {p}")
        low_iops = p.iops <= 0 if positive_iops else p.iops < 0
        if not math.isfinite(p.iops) or low_iops:
            raise ValueError(f"iops must be finite and {'>' if positive_iops else '>='} 0: {p}")
        if not math.isfinite(p.latency_ms) or p.latency_ms <= 0:
            raise ValueError(f"latency_ms must be finite and > 0: {p}")
    for a, b in zip(out, out[1:], strict=False):
        if a.outstanding == b.outstanding:
            raise ValueError(f"two points at outstanding={a.outstanding}")
    return out


def _kneedle(points: list[CurvePoint]) -> CurvePoint | None:
    """The knee by Kneedle (Satopää et al. 2011, the ``kneed`` library, sensitivity S = 1).

    Both axes are log2: the outstanding counts are geometric (1, 2, 4 …), so log2 spaces them
    evenly, and under a closed queue (Little's law) throughput grows in proportion to the
    outstanding I/Os until the array saturates, which in log–log is a line of slope 1 bending
    to flat: concave and increasing, as Kneedle requires. On a linear IOPS axis the rising
    part is convex (2^x), and Kneedle then reports the first point as the knee whenever
    saturation comes late (seen with kneed 0.9 at saturation from 32 outstanding on).

    IOPS enter as their running maximum, so a decline past the peak (overload) reads as flat,
    no gain: Kneedle needs an increasing curve and still sees the plateau that makes the bend,
    and the knee cannot lie past the Maximum.
    """
    x = np.log2([p.outstanding for p in points])
    y = np.log2(np.maximum.accumulate([p.iops for p in points]))
    with warnings.catch_warnings():
        # kneed warns when it finds no knee, and numpy when a flat curve normalises to 0/0;
        # both mean "no knee", which the caller handles.
        warnings.simplefilter("ignore")
        knee = KneeLocator(x, y, S=1.0, curve="concave", direction="increasing").knee
    if knee is None:
        return None
    return points[int(np.argmin(np.abs(x - knee)))]


def _gain_vs_latency(points: list[CurvePoint]) -> CurvePoint:
    """The last point reached by a step whose relative IOPS gain beats its relative latency
    growth: stepping up there still bought more throughput than it cost in latency. The
    first point when no step did."""
    best = points[0]
    for prev, cur in zip(points, points[1:], strict=False):
        gain = cur.iops / prev.iops - 1
        growth = cur.latency_ms / prev.latency_ms - 1
        if gain > growth:
            best = cur
    return best


def analyse_curve(points: Sequence[CurvePoint]) -> CurveSummary:
    """Speed, Optimum and Maximum of one concurrency curve (points in any order).

    Kneedle decides the Optimum (method ``kneedle``, see ``_kneedle``); when it finds no knee,
    the gain-versus-latency rule does over the points up to the Maximum (``gain-vs-latency``).
    A curve of fewer than 3 points has no knee at all: Optimum is None and the method ``none``.
    """
    curve = _sorted_points(points, positive_iops=True)
    if not curve:
        raise ValueError("a curve needs at least one point")
    speed = curve[0]
    top = max(range(len(curve)), key=lambda i: (curve[i].iops, -i))  # ties: fewest outstanding
    maximum = curve[top]
    if len(curve) < MIN_KNEE_POINTS:
        note = f"too few points to find a knee: {len(curve)} of the {MIN_KNEE_POINTS} it needs"
        return CurveSummary(speed, None, maximum, NO_KNEE, note, tuple(curve))
    knee = _kneedle(curve)
    if knee is not None:
        note = "Kneedle on log2 IOPS (running maximum) vs log2 outstanding"
        return CurveSummary(speed, knee, maximum, KNEEDLE, note, tuple(curve))
    optimum = _gain_vs_latency(curve[: top + 1])
    note = (
        "Kneedle found no knee; last point up to the maximum where throughput grew faster"
        " than latency"
    )
    return CurveSummary(speed, optimum, maximum, GAIN_VS_LATENCY, note, tuple(curve))


def should_stop(
    points: Sequence[CurvePoint],
    latency_limit_ms: float | None,
    drop_pct: float = 5.0,
) -> str | None:
    """Why to stop sweeping a curve now, judged on its latest (highest-outstanding) point.

    Stop when that point's latency is above ``latency_limit_ms``, or its throughput is more
    than ``drop_pct`` % below the best of the points before it: higher concurrency will only
    be slower still. None to go on.
    """
    if latency_limit_ms is not None and not latency_limit_ms > 0:
        raise ValueError(f"latency_limit_ms must be > 0 or None, got {latency_limit_ms}")
    if not 0 <= drop_pct < 100:
        raise ValueError(f"drop_pct must be in [0, 100), got {drop_pct}")
    curve = _sorted_points(points, positive_iops=False)
    if not curve:
        return None
    last = curve[-1]
    if latency_limit_ms is not None and last.latency_ms > latency_limit_ms:
        return (
            f"latency {format_ms(last.latency_ms)} ms at {last.outstanding} outstanding is above"
            f" the limit of {latency_limit_ms:g} ms"
        )
    if len(curve) > 1:
        best = max(curve[:-1], key=lambda p: p.iops)
        floor = best.iops * (1 - drop_pct / 100) * (1 - _REL_TOL)
        if last.iops < floor:
            fell = 100 * (1 - last.iops / best.iops)
            return (
                f"throughput fell {fell:.1f}% from {best.iops:,.0f} IOPS at {best.outstanding}"
                f" outstanding to {last.iops:,.0f} IOPS at {last.outstanding} (limit"
                f" {drop_pct:g}%)"
            )
    return None


# --- from the results store's runs ---------------------------------------------------------

CURVE_COLUMNS = [
    "config_key",
    "pattern",
    "block_size",
    "active_pct",
    "points",
    "speed",
    "optimum",
    "maximum",
    "method",
    "note",
    "stopped",
]


def outstanding(iodepth: int, numjobs: int, engine: str) -> int:
    """I/Os in flight: synchronous engines keep one per job whatever the iodepth."""
    return (1 if engine in SYNC_ENGINES else int(iodepth)) * int(numjobs)


def curve_points(runs: pd.DataFrame) -> list[CurvePoint]:
    """One point per concurrency of the runs of one configuration, pattern and block size.

    IOPS is the mean over repetitions; latency the mean latency of all I/Os, reads and
    writes weighted by their IOPS.
    """
    points = []
    frame = runs.assign(
        outstanding=[
            outstanding(d, j, e)
            for d, j, e in zip(runs["iodepth"], runs["numjobs"], runs["engine"], strict=True)
        ]
    )
    for n, grp in frame.groupby("outstanding", sort=True):
        weighted = 0.0
        total = 0.0
        for d in ("read", "write"):
            iops = grp[f"{d}_iops"].astype(float).fillna(0.0)
            lat = grp[f"{d}_lat_mean_ms"].astype(float).fillna(0.0)
            weighted += float((iops * lat).sum())
            total += float(iops.sum())
        if total <= 0:
            continue
        points.append(CurvePoint(int(n), float(grp["iops"].astype(float).mean()), weighted / total))
    return points


def curves_table(
    runs: pd.DataFrame,
    latency_limit_ms: float | None = None,
    drop_pct: float = 5.0,
    *,
    stop_rule: bool = True,
) -> pd.DataFrame:
    """Speed, Optimum and Maximum of every curve (two or more concurrencies) in ``runs``;
    with ``stop_rule``, where a sweep under the rule (``latency_limit_ms``, ``drop_pct``)
    stopped the curve (``stopped``), else ``stopped`` is None throughout."""
    rows = []
    if runs.empty:
        return pd.DataFrame(columns=CURVE_COLUMNS)
    if "active_pct" not in runs:
        runs = runs.assign(active_pct=None)
    if "rate_pct" in runs:
        runs = runs[runs["rate_pct"].isna()]  # a rate cell is an open loop: no curve point
        if runs.empty:
            return pd.DataFrame(columns=CURVE_COLUMNS)
    for (config_key, pattern, bs, active), grp in runs.groupby(
        ["config_key", "pattern", "block_size", "active_pct"], sort=True, dropna=False
    ):
        points = curve_points(grp)
        if len(points) < 2:
            continue
        summary = analyse_curve(points)
        stopped = None
        if stop_rule:
            for k in range(2, len(points) + 1):  # where a sweep with this rule stopped
                stopped = should_stop(points[:k], latency_limit_ms, drop_pct)
                if stopped:
                    break
        rows.append(
            {
                "config_key": config_key,
                "pattern": pattern,
                "block_size": int(bs),
                "active_pct": None if pd.isna(active) else int(active),
                "points": list(summary.points),
                "speed": summary.speed,
                "optimum": summary.optimum,
                "maximum": summary.maximum,
                "method": summary.method,
                "note": summary.note,
                "stopped": stopped,
            }
        )
    return pd.DataFrame(rows, columns=CURVE_COLUMNS)


def sweep_curves(runs: pd.DataFrame, matrix: dict[str, Any]) -> pd.DataFrame:
    """``curves_table`` under the stop rule of a stored sweep spec's matrix (``curve_stop``):
    a sweep without one stopped no curve."""
    rule = matrix.get("curve_stop")
    if not rule:
        return curves_table(runs, stop_rule=False)
    limit = rule.get("latency_limit")
    return curves_table(
        runs,
        parse_latency_ms(limit) if limit else None,
        float(rule.get("throughput_drop_pct", 5.0)),
    )
