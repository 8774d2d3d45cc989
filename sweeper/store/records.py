"""Row schemas of the results store and the address of a run."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import pyarrow as pa

from sweeper.vocabulary import CONFIGURATION_COLUMN_TYPES

_ARROW_TYPES = {str: pa.string(), int: pa.int32(), bool: pa.bool_()}
#: the configuration's columns, as both tables keep them
CONFIGURATION_FIELDS = [
    (name, _ARROW_TYPES[kind]) for name, kind in CONFIGURATION_COLUMN_TYPES.items()
]
DIRECTION_FIELDS = (
    "iops",
    "mbps",
    "lat_mean_ms",
    "lat_p50_ms",
    "lat_p95_ms",
    "lat_p99_ms",
    "lat_p999_ms",
    "lat_p9999_ms",
)
#: the run's telemetry as columns (the rest is in the disclosure)
TELEMETRY_FIELDS = (
    "host_cpu_pct",
    "disk_iops",
    "disk_util_pct",
    "disk_await_ms",
    "disk_queue",
)
#: the latency of the run's fsync/fdatasync calls (sync-write cells), as ``sync_<field>``
SYNC_FIELDS = (
    "count",
    "lat_mean_ms",
    "lat_p50_ms",
    "lat_p95_ms",
    "lat_p99_ms",
    "lat_p999_ms",
    "lat_p9999_ms",
)

RUN_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("sweep_id", pa.string()),
        ("config_key", pa.string()),
        ("cell_key", pa.string()),
        ("repetition", pa.int32()),
        ("status", pa.string()),  # ok | failed
        ("error", pa.string()),
        ("platform", pa.string()),
        *CONFIGURATION_FIELDS,
        ("pattern", pa.string()),
        ("block_size", pa.int64()),
        ("iodepth", pa.int32()),
        ("numjobs", pa.int32()),
        ("active_pct", pa.int32()),  # share of the volume the I/O spans; null: all of it
        ("sync_mode", pa.string()),  # fsync | fdatasync | dsync after each write; null: none
        ("random_distribution", pa.string()),  # e.g. zipf:1.2; null: uniform
        ("compress_pct", pa.int32()),  # the written data's profile; null: fio's default
        ("dedupe_pct", pa.int32()),
        # An open-loop (rate) cell: Poisson arrivals at rate_pct of the closed loop's maximum.
        ("rate_pct", pa.int32()),  # null: a closed loop (as many I/Os as the queue allows)
        ("rate_max_iops", pa.float64()),  # the maximum the rate is a share of
        ("rate_target_iops", pa.float64()),  # the arrivals asked for; iops: what was achieved
        # A composite cell's streams (ran together, scored as one run): JSON, one object per
        # stream with its cell key and its own IOPS, MB/s and latencies; null: one stream.
        ("streams", pa.string()),
        ("engine", pa.string()),
        *[(f"read_{f}", pa.float64()) for f in DIRECTION_FIELDS],
        *[(f"write_{f}", pa.float64()) for f in DIRECTION_FIELDS],
        *[(f"sync_{f}", pa.int64() if f == "count" else pa.float64()) for f in SYNC_FIELDS],
        ("iops", pa.float64()),
        ("mbps", pa.float64()),
        ("runtime_s", pa.float64()),
        ("ramp_s", pa.float64()),
        ("array_time_s", pa.float64()),
        ("started_at", pa.timestamp("us", tz="UTC")),
        ("finished_at", pa.timestamp("us", tz="UTC")),
        ("wall_s", pa.float64()),
        ("steady", pa.bool_()),  # SNIA PTS rule over the run's last window; null: not judged
        ("steady_range_pct", pa.float64()),
        ("steady_slope_pct", pa.float64()),
        # Telemetry over the run (disclosure's "telemetry" has the full record per host).
        ("host_cpu_pct", pa.float64()),  # the load host's CPUs busy (the busiest host's)
        ("fio_usr_cpu_pct", pa.float64()),  # fio's own CPU, percent of one CPU over jobs
        ("fio_sys_cpu_pct", pa.float64()),
        ("disk_iops", pa.float64()),  # the target's block layer (/proc/diskstats)
        ("disk_util_pct", pa.float64()),
        ("disk_await_ms", pa.float64()),
        ("disk_queue", pa.float64()),
        ("telemetry_flag", pa.string()),  # why the figures are suspect; null: not flagged
        ("tool", pa.string()),
        ("tool_version", pa.string()),
        ("job_file", pa.string()),
        ("fio_json", pa.string()),
        ("fio_stderr", pa.string()),
        ("disclosure", pa.string()),  # JSON: hosts, versions, array state and facts
    ]
)

CONFIG_SCHEMA = pa.schema(
    [
        ("sweep_id", pa.string()),
        ("config_key", pa.string()),
        ("attempt", pa.int32()),
        ("status", pa.string()),  # successful | failed | canceled
        *CONFIGURATION_FIELDS,
        ("reconfig_array_time_s", pa.float64()),
        ("ansible_status", pa.string()),
        ("ansible_rc", pa.int32()),
        ("changed_tasks", pa.int32()),
        ("failed_task", pa.string()),
        ("error", pa.string()),
        ("ansible_stdout", pa.string()),
        ("facts", pa.string()),  # JSON
        ("started_at", pa.timestamp("us", tz="UTC")),
        ("finished_at", pa.timestamp("us", tz="UTC")),
    ]
)


@dataclass(frozen=True, order=True)
class RunAddress:
    """Where a run lives: writing the same address twice is a no-op."""

    sweep_id: str
    config_key: str
    cell_key: str
    repetition: int

    @property
    def run_id(self) -> str:
        text = f"{self.sweep_id}\x1f{self.config_key}\x1f{self.cell_key}\x1f{self.repetition}"
        return hashlib.sha256(text.encode()).hexdigest()[:24]
