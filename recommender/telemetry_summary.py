"""The telemetry of a sweep's runs as the report shows it: per configuration and cell, the
load host's and fio's CPU and the block layer's view, means over repetitions, and how many
runs were flagged."""

from __future__ import annotations

from typing import Any

import pandas as pd

#: (column, label): the means shown per configuration and cell
SUMMARY_COLUMNS = (
    ("iops", "fio IOPS"),
    ("disk_iops", "block layer IOPS"),
    ("host_cpu_pct", "load host CPU %"),
    ("fio_usr_cpu_pct", "fio user CPU %"),
    ("fio_sys_cpu_pct", "fio system CPU %"),
    ("disk_util_pct", "device busy %"),
    ("disk_await_ms", "await ms"),
    ("disk_queue", "queue"),
)


def telemetry_summary(runs: pd.DataFrame) -> list[dict[str, Any]]:
    """One record per configuration and cell with telemetry: its runs, the figures' means and
    the flagged runs with their reasons (each reason once). Empty when no run has any."""
    have = [c for c, _ in SUMMARY_COLUMNS if c in runs]
    if runs.empty or "host_cpu_pct" not in runs or runs["host_cpu_pct"].isna().all():
        return []
    flags = (
        runs["telemetry_flag"].fillna("").astype(str)
        if "telemetry_flag" in runs
        else pd.Series("", index=runs.index)
    )
    rows = []
    for (config, cell), grp in runs.assign(_flag=flags).groupby(["config_key", "cell_key"]):
        means = grp[have].astype(float).mean()
        reasons = sorted({f for f in grp["_flag"] if f})
        rows.append(
            {"configuration": config, "cell": cell, "runs": len(grp)}
            | {label: _num(means.get(col)) for col, label in SUMMARY_COLUMNS}
            | {"flagged": int(sum(bool(f) for f in grp["_flag"])), "reasons": "; ".join(reasons)}
        )
    return rows


def _num(value: Any) -> float | None:
    return None if value is None or pd.isna(value) else float(value)
