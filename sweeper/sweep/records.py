"""The records a sweep stores: one run, one configuration's build, the host that measured.

Pure functions of what the sweep knows at that moment (no store, no study), so that what a
run record holds is tested with hand-made run outputs.
"""

from __future__ import annotations

import json
import os
import platform as host_platform
import socket
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

from sweeper.ansible import PlayResult
from sweeper.configuration import Configuration
from sweeper.fio import FioResult
from sweeper.load import RunOutput, telemetry_flag
from sweeper.spec import Matrix
from sweeper.store import RunAddress
from sweeper.store.records import DIRECTION_FIELDS, SYNC_FIELDS, TELEMETRY_FIELDS
from sweeper.workload import WorkloadCell


def configuration_columns(config: Configuration) -> dict[str, Any]:
    """A configuration's columns, as runs and configuration records both store them."""
    return {
        "raid_level": config.raid_level,
        "layout": config.layout,
        "ranks": config.rank_count,
        "stripe_kib": config.stripe_kib,
        "cache_policy": config.cache_policy,
        "snapshots": config.snapshots,
        "data_reduction": config.data_reduction,
    }


def now() -> datetime:
    return datetime.now(UTC)


def raidsweep_version() -> str:
    try:
        return metadata.version("raidsweep")
    except metadata.PackageNotFoundError:
        return "unknown"


def host_disclosure() -> dict[str, Any]:
    """The controller that runs the sweep: host, OS, CPUs and the tools' versions."""
    uname = host_platform.uname()
    versions = {}
    for pkg in ("raidsweep", "ansible-core", "ansible-runner", "optuna", "duckdb"):
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = None
    return {
        "load_hosts": [
            {
                "hostname": socket.gethostname(),
                "os": f"{uname.system} {uname.release}",
                "kernel": uname.version,
                "machine": uname.machine,
                "cpus": os.cpu_count(),
            }
        ],
        "versions": versions,
    }


@dataclass(frozen=True)
class RunContext:
    """What every run record of a sweep shares: platform, matrix, inventory, host."""

    platform: str
    matrix: Matrix
    inventory: Path
    host: dict[str, Any]


@dataclass(frozen=True)
class Attempt:
    """One run as it happened: the load driver's output (None when it raised), fio's
    figures when they could be read, why it failed, and when and how long it ran."""

    output: RunOutput | None
    parsed: FioResult | None
    error: str | None
    started: datetime
    wall_s: float


def run_row(
    ctx: RunContext,
    config: Configuration,
    cell: WorkloadCell,
    address: RunAddress,
    attempt: Attempt,
    play: PlayResult,
    finished: datetime,
) -> dict[str, Any]:
    """The store's record of one run, its disclosure included."""
    m = ctx.matrix
    out, error = attempt.output, attempt.error
    row: dict[str, Any] = {
        "sweep_id": address.sweep_id,
        "config_key": address.config_key,
        "cell_key": address.cell_key,
        "repetition": address.repetition,
        "status": "ok" if error is None else "failed",
        "error": error,
        "platform": ctx.platform,
        **configuration_columns(config),
        "pattern": cell.pattern_name,
        "block_size": cell.block_size,
        "iodepth": cell.concurrency.iodepth,
        "numjobs": cell.concurrency.numjobs,
        "active_pct": cell.active_pct,
        "sync_mode": cell.sync,
        "random_distribution": cell.distribution.fio if cell.distribution else None,
        "compress_pct": cell.data.compress_pct if cell.data else None,
        "dedupe_pct": cell.data.dedupe_pct if cell.data else None,
        "rate_pct": cell.rate_pct,
        "rate_max_iops": (out.rate.get("max_iops") if out else None),
        "rate_target_iops": (out.rate.get("target_iops") if out else None),
        "engine": m.engine,
        "runtime_s": m.runtime,
        "ramp_s": m.ramp,
        "array_time_s": out.array_time_s if out else 0.0,
        "started_at": attempt.started,
        "finished_at": finished,
        "wall_s": attempt.wall_s,
        "tool": out.tool if out else None,
        "tool_version": out.tool_version if out else None,
        "job_file": out.job_file if out else None,
        "fio_json": out.stdout if out else None,
        "fio_stderr": out.stderr if out else None,
    }
    if attempt.parsed is not None:
        row |= _figures(attempt.parsed)
        if attempt.parsed.streams:
            row["streams"] = json.dumps(stream_figures(cell, attempt.parsed), sort_keys=True)
    steady = out.steady_state if out else {}
    row["steady"] = steady.get("steady")
    row["steady_range_pct"] = steady.get("range_pct")
    row["steady_slope_pct"] = steady.get("slope_pct")
    row |= _telemetry_columns(out, attempt.parsed, row)
    disclosure = _disclosure(ctx, out, row, play)
    if steady:
        disclosure["steady_state"] = steady
    if row.get("streams"):
        disclosure["streams"] = json.loads(row["streams"])
    row["disclosure"] = json.dumps(
        disclosure | _load_disclosure(disclosure, out), sort_keys=True, default=str
    )
    return row


def stream_figures(cell: WorkloadCell, parsed: FioResult) -> list[dict[str, Any]]:
    """A composite run's streams, each with its own figures (its job group's), by cell key."""
    out = []
    for stream, got in zip(cell.streams, parsed.streams, strict=False):
        figures: dict[str, Any] = {"cell": stream.key, "job": got.jobname}
        total_iops = total_mbps = 0.0
        for direction in ("read", "write"):
            stats = getattr(got, direction)
            if stats is None:
                continue
            total_iops += stats.iops
            total_mbps += stats.mbps
            for f in ("iops", "mbps", "lat_mean_ms", "lat_p99_ms"):
                figures[f"{direction}_{f}"] = getattr(stats, f)
        if got.sync is not None:
            figures["sync_lat_p99_ms"] = got.sync.lat_p99_ms
        out.append(figures | {"iops": total_iops, "mbps": total_mbps})
    return out


def _figures(parsed: FioResult) -> dict[str, Any]:
    """Each direction's figures, the sync calls' latency (sync-write cells), and the run's
    IOPS and MB/s over both directions."""
    figures: dict[str, Any] = {}
    total_iops = total_mbps = 0.0
    for direction in ("read", "write"):
        stats = getattr(parsed, direction)
        if stats is None:
            continue
        for f in DIRECTION_FIELDS:
            figures[f"{direction}_{f}"] = getattr(stats, f)
        total_iops += stats.iops
        total_mbps += stats.mbps
    if parsed.sync is not None:
        for f in SYNC_FIELDS:
            figures[f"sync_{f}"] = getattr(parsed.sync, f)
    return figures | {"iops": total_iops, "mbps": total_mbps}


def _telemetry_columns(
    out: RunOutput | None, parsed: FioResult | None, row: dict[str, Any]
) -> dict[str, Any]:
    """The telemetry's columns, fio's own CPU use, and the flag (a saturated or shared load
    host, or a block layer that disagrees with fio) where the run's figures could be read."""
    cols: dict[str, Any] = {"telemetry_flag": None}
    tel = out.telemetry if out else {}
    for f in TELEMETRY_FIELDS:
        cols[f] = tel.get(f)
    if parsed is not None:
        cols["fio_usr_cpu_pct"] = parsed.usr_cpu_pct
        cols["fio_sys_cpu_pct"] = parsed.sys_cpu_pct
        if tel and row["status"] == "ok":
            cols["telemetry_flag"] = telemetry_flag(tel, row["iops"], row["mbps"])
    return cols


def _disclosure(
    ctx: RunContext, out: RunOutput | None, row: dict[str, Any], play: PlayResult
) -> dict[str, Any]:
    m = ctx.matrix
    return dict(ctx.host) | {
        "platform": ctx.platform,
        "inventory": ctx.inventory.name,
        "tool": row["tool"],
        "tool_version": row["tool_version"],
        "engine": m.engine,
        "ramp_s": m.ramp,
        "runtime_s": m.runtime,
        "working_set": m.working_set,
        "array_state": out.array_state if out else None,
        # The storage as Ansible found it when it configured it (devices, filesystems).
        "facts": play.facts,
    }


def _load_disclosure(disclosure: dict[str, Any], out: RunOutput | None) -> dict[str, Any]:
    """What the load driver adds to the disclosure: preconditioning, load hosts, purge, fill,
    telemetry, model."""
    if out is None:
        return {}
    added: dict[str, Any] = {}
    if out.precondition:
        added["precondition"] = out.precondition
    if out.host_results:
        added["load_hosts_results"] = out.host_results
    if out.load_hosts:
        # fio ran on these hosts, not on the controller that started it.
        added["controller"] = disclosure["load_hosts"]
        added["load_hosts"] = out.load_hosts
    if out.purge:
        added["purge"] = out.purge
    if out.fill:
        added["fill"] = out.fill
    if out.telemetry:
        added["telemetry"] = out.telemetry
    if out.rate:
        added["rate"] = out.rate
    if out.model:
        # The simulated array says which mechanisms decided the run (hit ratio, bottleneck).
        added["model"] = out.model
    return added


def configuration_row(
    sweep_id: str,
    config: Configuration,
    attempt: int,
    play: PlayResult,
    reconfig_s: float,
    started: datetime,
    finished: datetime,
) -> dict[str, Any]:
    """The store's record of one build of a configuration (its Ansible play)."""
    return {
        "sweep_id": sweep_id,
        "config_key": config.key,
        "attempt": attempt,
        "status": play.status,
        **configuration_columns(config),
        "reconfig_array_time_s": reconfig_s,
        "ansible_status": play.status,
        "ansible_rc": play.rc,
        "changed_tasks": play.changed,
        "failed_task": play.failed_task,
        "error": play.error,
        "ansible_stdout": play.stdout[-20000:],
        "facts": json.dumps(play.facts, sort_keys=True, default=str),
        "started_at": started,
        "finished_at": finished,
    }
