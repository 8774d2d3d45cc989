"""Configurations and runs as tables: run counts per configuration, one run's figures."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

import pandas as pd

from recommender.views.labels import CONFIGURATION, RUN_FIGURES, metric_text
from sweeper.units import format_size
from sweeper.untrusted import markdown_code
from sweeper.vocabulary import RUN_ID_RE


def configuration_table(
    all_runs: pd.DataFrame, configs: pd.DataFrame, runs_per_config: int
) -> pd.DataFrame:
    """One row per configuration: its reconfiguration's outcome and its run counts."""
    columns = [CONFIGURATION, "reconfiguration", "attempts", "runs done", "runs failed"]
    if runs_per_config:
        columns.append("runs planned")
    rows: dict[str, dict[str, Any]] = {}
    if len(configs):
        for key, grp in configs.groupby("config_key", sort=False):
            rows[key] = {
                CONFIGURATION: key,
                "reconfiguration": str(grp["status"].iloc[-1]),
                "attempts": len(grp),
            }
    if len(all_runs):
        for key, grp in all_runs.groupby("config_key", sort=False):
            row = rows.setdefault(key, {CONFIGURATION: key, "reconfiguration": "", "attempts": 0})
            row["runs done"] = int((grp["status"] == "ok").sum())
            row["runs failed"] = int((grp["status"] == "failed").sum())
    for row in rows.values():
        row.setdefault("runs done", 0)
        row.setdefault("runs failed", 0)
        if runs_per_config:
            row["runs planned"] = runs_per_config
    table = pd.DataFrame(list(rows.values()), columns=columns)
    return table.sort_values(CONFIGURATION, kind="stable").reset_index(drop=True)


#: how much of a text typed or given by the address a page quotes (a sweep's name has at
#: most 64 characters, a run id 24; an address or a box can carry thousands: what a person
#: types or pastes by mistake is shown whole)
QUOTED_MAX = 200
#: what a quoted text shows as its escape (``\x1b``, ``\u202e``): the control characters, the
#: line break and the tab too (a code span would make a blank of them), and the bidirectional
#: controls and marks, which would show the rest of the message, a store's path included, in
#: another order than it is
_SHOWN_ESCAPED = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def escaped_text(text: str) -> str:
    """``text`` with each control and bidirectional character written as its escape
    (``a\\u202eb``), the rest as it is."""
    return _SHOWN_ESCAPED.sub(lambda m: repr(m.group())[1:-1], text)


def quoted_typed(text: str) -> str:
    """``text`` that was typed or came in the address, quoted as itself (``markdown_code``),
    each control and bidirectional character as its escape (``escaped_text``): cut to its
    first ``QUOTED_MAX`` characters, with its length said, where it is longer."""
    if len(text) <= QUOTED_MAX:
        return markdown_code(escaped_text(text))
    return f"{markdown_code(escaped_text(text[:QUOTED_MAX]))}… ({len(text):,} characters)"


def run_id_problem(text: str) -> str | None:
    """Why ``text`` is not a run id, or None when it is one: Markdown, the text quoted as
    itself whatever it holds (``quoted_typed``: a very long one cut, its length said)."""
    if not RUN_ID_RE.fullmatch(text):
        return (
            f"{quoted_typed(text)} is not a run id: a run id is 24 hexadecimal digits "
            "(see the run id column of a heatmap cell's runs, or `raidsweep disclose`)."
        )
    return None


def find_run(runs: pd.DataFrame, config_key: str, cell_key: str, repetition: int) -> str | None:
    hit = runs[
        (runs["config_key"] == config_key)
        & (runs["cell_key"] == cell_key)
        & (runs["repetition"] == int(repetition))
    ]
    return str(hit["run_id"].iloc[0]) if len(hit) else None


#: the run's telemetry columns, as shown: (column, label)
TELEMETRY_SHOWN = (
    ("host_cpu_pct", "load host CPU %"),
    ("fio_usr_cpu_pct", "fio user CPU %"),
    ("fio_sys_cpu_pct", "fio system CPU %"),
    ("other_cpus", "other programs' CPUs"),
    ("disk_iops", "block layer IOPS"),
    ("disk_util_pct", "device busy %"),
    ("disk_await_ms", "block layer await ms"),
    ("disk_queue", "block layer queue"),
)


#: a run's fields that ``run_summary`` leaves out: bulky raw text, shown apart
RAW_FIELDS = {"job_file", "fio_json", "fio_stderr", "disclosure"}
#: fields whose words the general rule (``field_label``) would not find
FIELD_WORDS = {
    "run_id": "run id",
    "sweep_id": "sweep",
    "config_key": CONFIGURATION,
    "cell_key": "cell",
    "ranks": "RAID groups (ranks)",
    "iodepth": "I/O depth",
    "numjobs": "jobs",
    "engine": "I/O engine",
    "iops": "IOPS",
    "mbps": "MB/s",
    "active_pct": "active range (% of the volume)",
    "sync_count": "syncs",
    "wall_s": "wall time (s)",
    "array_time_s": "array time (s)",
} | dict(TELEMETRY_SHOWN)
#: a unit at a field name's end, as the label says it
UNIT_WORDS = {"ms": "ms", "us": "µs", "s": "s", "pct": "%", "kib": "KiB", "gb": "GB"}
_SIDE_FIGURE = re.compile(r"(read|write|sync)_(iops|mbps)")
_LATENCY = re.compile(r"(read|write|sync)_lat_(mean|p\d+)_(ms|us)")


def field_label(field: str) -> str:
    """A run's field in words, with its unit: ``read_lat_p99_ms`` is "read latency p99.0
    (ms)" spelled "read p99 latency (ms)", ``runtime_s`` "runtime (s)"."""
    if field in FIELD_WORDS:
        return FIELD_WORDS[field]
    side = _SIDE_FIGURE.fullmatch(field)
    if side:
        return f"{side[1]} {FIELD_WORDS[side[2]]}"
    latency = _LATENCY.fullmatch(field)
    if latency:
        stat = latency[2] if latency[2] == "mean" else f"p{latency[2][1:3]}.{latency[2][3:]}"
        return f"{latency[1]} {stat.rstrip('.')} latency ({UNIT_WORDS[latency[3]]})"
    words, _, unit = field.rpartition("_")
    if words and unit in UNIT_WORDS:
        return f"{words.replace('_', ' ')} ({UNIT_WORDS[unit]})"
    return field.replace("_", " ")


def field_text(field: str, value: Any) -> str:
    """A run's field's value as the app shows it: sizes and times in words, a latency as
    ``format_ms``, other figures to four digits (thousands grouped)."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, datetime):
        return value.isoformat(sep=" ", timespec="seconds")
    if field == "block_size":
        return format_size(int(value))
    if isinstance(value, int | float) and not isinstance(value, bool):
        return metric_text(field, value)
    return str(value)


def run_summary(detail: dict[str, Any]) -> pd.DataFrame:
    """The figures of one run as (field, value) rows in words with their units, the bulky
    raw columns and the fields without a value left out (steadiness: "not judged")."""
    rows = [
        {"field": field_label(k), "value": field_text(k, v)}
        for k, v in detail.items()
        if k not in RAW_FIELDS and (v is not None or k == "steady")
    ]
    for row in rows:
        if row["field"] == "steady" and row["value"] == "None":
            row["value"] = "not judged"
    return pd.DataFrame(rows, columns=["field", "value"])


def run_telemetry(detail: dict[str, Any], disclosure: dict[str, Any] | None) -> pd.DataFrame:
    """One row per load host (one row, ``all``, where fio ran on one host or none is named):
    the load host's CPU, fio's own CPU, other programs' CPU and the block layer's view over
    fio's measured interval, beside fio's IOPS for comparison."""
    record = (disclosure or {}).get("telemetry") or {}
    hosts = record.get("hosts") or {}
    # a figure the store has no column for (other_cpus) comes from the disclosure's record
    rows = [
        {"host": "all"}
        | {label: detail.get(col, record.get(col)) for col, label in TELEMETRY_SHOWN}
    ]
    for name, rec in hosts.items():
        rows.append({"host": str(name)} | {label: rec.get(col) for col, label in TELEMETRY_SHOWN})
    table = pd.DataFrame(rows, columns=["host", *(label for _, label in TELEMETRY_SHOWN)])
    table.insert(1, "fio IOPS", [detail.get("iops")] + [None] * len(hosts))
    return table


#: the query parameter that opens the Run details page on a run
RUN_QUERY = "run"
#: the query parameter that selects the sweep a linked page opens in
SWEEP_QUERY = "sweep"


def run_link(run_id: str, sweep_id: str | None = None) -> str:
    """The app's address of the Run details page opened on ``run_id`` (relative to the app),
    in its sweep: a link opens a new session, which would otherwise show the newest sweep."""
    query = {RUN_QUERY: run_id} | ({SWEEP_QUERY: sweep_id} if sweep_id else {})
    return f"run_details?{urlencode(query)}"


def run_list(runs: pd.DataFrame) -> pd.DataFrame:
    """Runs as listed in the app: where, figures, the steadiness and telemetry verdicts, and a
    link to each run's details."""
    cols = {"config_key": CONFIGURATION} | RUN_FIGURES | {"telemetry_flag": "telemetry flag"}
    have = [c for c in cols if c in runs]
    out = runs[have].rename(columns=cols).reset_index(drop=True)
    if "telemetry flag" in out:
        out["telemetry flag"] = out["telemetry flag"].fillna("").astype(str)
    if "steady" in out:  # as Run details says it
        out["steady"] = [
            "not judged" if v is None or pd.isna(v) else ("yes" if v else "no")
            for v in out["steady"]
        ]
    sweeps = runs["sweep_id"] if "sweep_id" in runs else [None] * len(runs)
    out["details"] = [
        run_link(str(r), None if s is None else str(s))
        for r, s in zip(runs["run_id"], sweeps, strict=True)
    ]
    return out
