"""Concurrency curves as data: the points of each curve with their roles, and a summary."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from sweeper.units import format_size


def curve_name(config_key: str, pattern: str, block_size: int, active_pct: Any) -> str:
    ws = f"/ws{int(active_pct)}" if active_pct is not None and not pd.isna(active_pct) else ""
    return f"{config_key} · {pattern}/{format_size(int(block_size))}{ws}"


def curve_points(table: pd.DataFrame) -> pd.DataFrame:
    """The points of ``sweep_curves`` rows for ``recommender.charts.curve_chart``: one per
    concurrency, with its role (Speed, Optimum, Maximum, or '' for the rest)."""
    rows = []
    for r in table.itertuples():
        name = curve_name(r.config_key, r.pattern, r.block_size, r.active_pct)
        # A point can be two roles at once (one worker may already be the maximum).
        roles: dict[int, list[str]] = {}
        roles.setdefault(r.speed.outstanding, []).append("Speed")
        if r.optimum is not None:
            roles.setdefault(r.optimum.outstanding, []).append("Optimum")
        roles.setdefault(r.maximum.outstanding, []).append("Maximum")
        for p in r.points:
            rows.append(
                {
                    "curve": name,
                    "outstanding": p.outstanding,
                    "iops": p.iops,
                    "latency_ms": p.latency_ms,
                    "role": " + ".join(roles.get(p.outstanding, [])),
                }
            )
    return pd.DataFrame(rows, columns=["curve", "outstanding", "iops", "latency_ms", "role"])


def curve_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Speed, Optimum and Maximum of each curve: I/Os in flight, IOPS and mean latency."""
    rows = []
    for r in table.itertuples():
        row: dict[str, Any] = {
            "curve": curve_name(r.config_key, r.pattern, r.block_size, r.active_pct)
        }
        for label, point in (("Speed", r.speed), ("Optimum", r.optimum), ("Maximum", r.maximum)):
            row[f"{label} in flight"] = point.outstanding if point is not None else None
            row[f"{label} IOPS"] = point.iops if point is not None else math.nan
            row[f"{label} ms"] = point.latency_ms if point is not None else math.nan
        row["how the optimum was found"] = r.note
        row["stopped"] = r.stopped or ""
        rows.append(row)
    return pd.DataFrame(rows)
