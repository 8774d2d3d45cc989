"""Concurrency curves as data: the points of each curve with their roles, and a summary."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from recommender.views.labels import curve_name

#: more curves than this in one chart are a tangle nobody can read
MAX_CURVES = 12
#: which role a point that is several at once goes by where it can have only one
ROLE_PRECEDENCE = ("Optimum", "Maximum", "Speed")


def curve_points(table: pd.DataFrame, *, one_role: bool = False) -> pd.DataFrame:
    """The points of ``sweep_curves`` rows for ``recommender.charts.curve_chart``: one per
    concurrency, with its role (Speed, Optimum, Maximum, or '' for the rest).

    A point can be two roles at once (one worker may already be the maximum): the app names
    both (``Speed + Maximum``); the report names one, by ROLE_PRECEDENCE (``one_role``).
    """
    rows = []
    for r in table.itertuples():
        name = curve_name(r.config_key, r.curve)
        roles: dict[int, list[str]] = {}
        roles.setdefault(r.speed.outstanding, []).append("Speed")
        if r.optimum is not None:
            roles.setdefault(r.optimum.outstanding, []).append("Optimum")
        roles.setdefault(r.maximum.outstanding, []).append("Maximum")
        for p in r.points:
            mine = roles.get(p.outstanding, [])
            if one_role and mine:
                role = next(each for each in ROLE_PRECEDENCE if each in mine)
            else:
                role = " + ".join(mine)
            rows.append(
                {
                    "curve": name,
                    "outstanding": p.outstanding,
                    "iops": p.iops,
                    "latency_ms": p.latency_ms,
                    "role": role,
                }
            )
    return pd.DataFrame(rows, columns=["curve", "outstanding", "iops", "latency_ms", "role"])


def curve_summary(table: pd.DataFrame, *, in_one_cell: bool = False) -> pd.DataFrame:
    """Speed, Optimum and Maximum of each curve: I/Os in flight, IOPS and mean latency.

    ``in_one_cell``: every curve is of one pattern and block size, said once beside the table
    (the Curves page's choice), so a curve is named by its configuration alone (and the rest
    of its curve where it has more: ``raid6/single_rank/wb-ra · ws10/zipf1.2``), not by them
    again.
    """
    rows = []
    for r in table.itertuples():
        name = curve_name(r.config_key, r.curve)
        if in_one_cell:
            rest = "/".join(str(r.curve).split("/")[2:])  # past pattern and block size
            name = f"{r.config_key} · {rest}" if rest else str(r.config_key)
        row: dict[str, Any] = {"curve": name}
        for label, point in (("Speed", r.speed), ("Optimum", r.optimum), ("Maximum", r.maximum)):
            row[f"{label} in flight"] = point.outstanding if point is not None else None
            row[f"{label} IOPS"] = point.iops if point is not None else math.nan
            row[f"{label} ms"] = point.latency_ms if point is not None else math.nan
        row["how the optimum was found"] = r.note
        row["stopped"] = r.stopped or ""
        rows.append(row)
    return pd.DataFrame(rows)
