"""Concurrency curves: IOPS and latency as outstanding I/Os grow (1, 2, 4 … 512).

Three operating points are reported, each with its outstanding I/Os, IOPS and latency:

* Speed: the lowest-outstanding point (normally one worker), where latency is lowest;
* Optimum: the knee, the last point where throughput still rises faster than latency (the
  all-flash study's definition): beyond it more outstanding I/Os cost more latency than the
  throughput they buy;
* Maximum: the highest throughput.

Pure functions, no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from sweeper.units import format_ms, parse_latency_ms
from sweeper.workload import SYNC_ENGINES, WorkloadCell

GAIN_VS_LATENCY = "gain-vs-latency"
NO_KNEE = "none"
MIN_KNEE_POINTS = 3  # two points are one step: no bend to tell from a climb
#: how the Optimum is found, in words for every surface
KNEE_RULE = (
    "the last point where throughput still rises faster than latency, going up from the "
    "fewest I/Os in flight"
)
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
    method: str  # GAIN_VS_LATENCY or NO_KNEE (too few points): what decided the optimum
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


def _study_knee(points: list[CurvePoint]) -> CurvePoint:
    """The Optimum as the all-flash study defines it (``STUDIES.md`` §2): the last point
    where throughput still rises faster than latency. Going up the curve from the fewest I/Os
    in flight, a step to the next point is taken while its relative IOPS gain beats its
    relative latency growth, ``X_i / X_{i−1} > R_i / R_{i−1}``; the Optimum is where the
    first step that does not would lead. Under a closed loop (Little: ``X · R = N``) that is
    where doubling the I/Os in flight stops buying more than √2 × the throughput: a hard
    corner's saturation point, a smooth curve's bend. It never lies past the Maximum (a step
    down in IOPS gains nothing) and points measured beyond it do not move it."""
    knee = points[0]
    for cur in points[1:]:
        if not cur.iops / knee.iops > cur.latency_ms / knee.latency_ms:
            break
        knee = cur
    return knee


def analyse_curve(points: Sequence[CurvePoint]) -> CurveSummary:
    """Speed, Optimum and Maximum of one concurrency curve (points in any order).

    The Optimum is the study's (``_study_knee``, method ``gain-vs-latency``). A curve of
    fewer than 3 points has no knee: the first step alone tells no bend from a climb, so
    the Optimum is None and the method ``none``.
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
    knee = _study_knee(curve)
    note = KNEE_RULE
    if knee is curve[-1]:
        note += f"; every step measured still did: the knee is at {knee.outstanding} or beyond"
    return CurveSummary(speed, knee, maximum, GAIN_VS_LATENCY, note, tuple(curve))


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
    "curve",
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


def _in_flight(runs: pd.DataFrame) -> pd.DataFrame:
    """``runs`` with each run's I/Os in flight (``outstanding``)."""
    return runs.assign(
        outstanding=[
            outstanding(d, j, e)
            for d, j, e in zip(runs["iodepth"], runs["numjobs"], runs["engine"], strict=True)
        ]
    )


def curve_points(runs: pd.DataFrame) -> list[CurvePoint]:
    """One point per concurrency of the runs of one configuration, pattern and block size.

    IOPS is the mean over repetitions; latency the mean latency of all I/Os, reads and
    writes weighted by their IOPS.
    """
    points = []
    for n, grp in _in_flight(runs).groupby("outstanding", sort=True):
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


def _shared_points(runs: pd.DataFrame) -> str:
    """Where cells of one curve have the same I/Os in flight (``qd16x1``, ``qd4x4`` and
    ``qd1x16`` with an asynchronous engine), their mean is one point: said, naming them."""
    said = []
    frame = _in_flight(runs).assign(shape=runs["cell_key"].astype(str).str.split("/").str[2])
    for n, grp in frame.groupby("outstanding", sort=True):
        shapes = sorted(grp["shape"].unique())
        if len(shapes) > 1:
            said.append(f"{', '.join(shapes)} are one point ({n} in flight, their mean)")
    return "; " + "; ".join(said) if said else ""


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
    # A curve is the cells that differ only in I/Os in flight (``WorkloadCell.curve``: a
    # sync mode, a distribution, a data profile or a working set makes another), as the
    # sweep's stop rule reads it.
    keys = runs["cell_key"].astype(str)
    curve_of = {k: WorkloadCell.parse(k).curve for k in keys.unique()}
    runs = runs.assign(curve=keys.map(curve_of))
    for (config_key, curve), grp in runs.groupby(["config_key", "curve"], sort=True):
        points = curve_points(grp)
        if len(points) < 2:
            continue
        summary = analyse_curve(points)
        first = grp.iloc[0]
        pattern, bs, active = first["pattern"], first["block_size"], first["active_pct"]
        note = summary.note + _shared_points(grp)
        stopped = None
        if stop_rule:
            for k in range(2, len(points) + 1):  # where a sweep with this rule stopped
                stopped = should_stop(points[:k], latency_limit_ms, drop_pct)
                if stopped:
                    break
        rows.append(
            {
                "config_key": config_key,
                "curve": curve,
                "pattern": pattern,
                "block_size": int(bs),
                "active_pct": None if pd.isna(active) else int(active),
                "points": list(summary.points),
                "speed": summary.speed,
                "optimum": summary.optimum,
                "maximum": summary.maximum,
                "method": summary.method,
                "note": note,
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
