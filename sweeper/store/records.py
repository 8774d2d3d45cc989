"""Row schemas of the results store and the address of a run."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import pyarrow as pa

from sweeper.errors import StoreError
from sweeper.vocabulary import CONFIGURATION_COLUMN_TYPES

_ARROW_TYPES = {str: pa.string(), int: pa.int32(), bool: pa.bool_()}
#: the configuration's columns, as both tables keep them
CONFIGURATION_FIELDS = [
    (name, _ARROW_TYPES[kind]) for name, kind in CONFIGURATION_COLUMN_TYPES.items()
]
#: the latency figures kept for each direction and for the sync calls
_LATENCY_FIELDS = (
    "lat_mean_ms",
    "lat_p50_ms",
    "lat_p95_ms",
    "lat_p99_ms",
    "lat_p999_ms",
    "lat_p9999_ms",
)
DIRECTION_FIELDS = ("iops", "mbps", *_LATENCY_FIELDS)
#: the run's telemetry as columns (the rest is in the disclosure)
TELEMETRY_FIELDS = (
    "host_cpu_pct",
    "other_cpus",
    "disk_iops",
    "disk_util_pct",
    "disk_await_ms",
    "disk_queue",
)
#: the latency of the run's fsync/fdatasync calls (sync-write cells), as ``sync_<field>``
SYNC_FIELDS = ("count", *_LATENCY_FIELDS)

_TIME = pa.timestamp("us", tz="UTC")


def _columns(kind: pa.DataType, *names: str) -> list[tuple[str, pa.DataType]]:
    """Columns of one Arrow type, in the order given."""
    return [(name, kind) for name in names]


#: what both tables start with: the sweep and the configuration a row belongs to
_ADDRESS = _columns(pa.string(), "sweep_id", "config_key")
#: what both tables end with: when the row's work ran
_TIMES = _columns(_TIME, "started_at", "finished_at")

RUN_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        *_ADDRESS,
        ("cell_key", pa.string()),
        ("repetition", pa.int32()),
        # status: ok | failed
        *_columns(pa.string(), "status", "error", "platform"),
        *CONFIGURATION_FIELDS,
        ("pattern", pa.string()),
        ("block_size", pa.int64()),
        *_columns(
            pa.int32(),
            "iodepth",
            "numjobs",
            "active_pct",  # share of the volume the I/O spans; null: all of it
        ),
        *_columns(
            pa.string(),
            "sync_mode",  # fsync | fdatasync | dsync after each write; null: none
            "random_distribution",  # e.g. zipf:1.2; null: uniform
        ),
        *_columns(
            pa.int32(),
            "compress_pct",  # the written data's profile; null: fio's default
            "dedupe_pct",
            # An open-loop (rate) cell: Poisson arrivals at rate_pct of the closed loop's maximum.
            "rate_pct",  # null: a closed loop (as many I/Os as the queue allows)
        ),
        *_columns(
            pa.float64(),
            "rate_max_iops",  # the maximum the rate is a share of
            "rate_target_iops",  # the arrivals asked for; iops: what was achieved
        ),
        *_columns(
            pa.string(),
            # A composite cell's streams (ran together, scored as one run): JSON, one object per
            # stream with its cell key and its own IOPS, MB/s and latencies; null: one stream.
            "streams",
            "engine",
        ),
        *[(f"read_{f}", pa.float64()) for f in DIRECTION_FIELDS],
        *[(f"write_{f}", pa.float64()) for f in DIRECTION_FIELDS],
        *[(f"sync_{f}", pa.int64() if f == "count" else pa.float64()) for f in SYNC_FIELDS],
        *_columns(pa.float64(), "iops", "mbps", "runtime_s", "ramp_s", "array_time_s"),
        *_TIMES,
        ("wall_s", pa.float64()),
        ("steady", pa.bool_()),  # SNIA PTS rule over the run's last window; null: not judged
        *_columns(
            pa.float64(),
            "steady_range_pct",
            "steady_slope_pct",
            # Telemetry over the run (disclosure's "telemetry" has the full record per host).
            "host_cpu_pct",  # the load host's CPUs busy (the busiest host's)
            "other_cpus",  # CPUs other programs kept busy in user mode beside fio (the most)
            "fio_usr_cpu_pct",  # fio's own CPU, percent of one CPU, all jobs (cpu_pct)
            "fio_sys_cpu_pct",
            "disk_iops",  # the target's block layer (/proc/diskstats)
            "disk_util_pct",
            "disk_await_ms",
            "disk_queue",
        ),
        *_columns(
            pa.string(),
            "telemetry_flag",  # why the figures are suspect; null: not flagged
            "tool",
            "tool_version",
            "job_file",
            "fio_json",
            "fio_stderr",
            "disclosure",  # JSON: hosts, versions, array state and facts
        ),
    ]
)

CONFIG_SCHEMA = pa.schema(
    [
        *_ADDRESS,
        ("attempt", pa.int32()),
        ("status", pa.string()),  # successful | failed | canceled
        *CONFIGURATION_FIELDS,
        ("reconfig_array_time_s", pa.float64()),
        ("ansible_status", pa.string()),
        *_columns(pa.int32(), "ansible_rc", "changed_tasks"),
        *_columns(
            pa.string(),
            "failed_task",
            "error",
            "ansible_stdout",
            "facts",  # JSON
        ),
        *_TIMES,
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


def config_folder(sweep_id: str, config_key: str) -> str:
    """The name of the folder a configuration's run files are kept in (and its compacted
    parts named after): a hash of its sweep and key."""
    return RunAddress(sweep_id, config_key, "", 0).run_id[:16]


#: a run's raw record (fio JSON, job file, stderr, disclosure): read only with the run alone
BULKY = ("job_file", "fio_json", "fio_stderr", "disclosure")


def run_columns(columns: Sequence[str] | None = None) -> list[str]:
    """The columns of a read of runs: ``columns`` in their order, each one of the runs
    table's and none of the bulky raw ones; without ``columns``, every column but those."""
    table = [n for n in RUN_SCHEMA.names if n not in BULKY]
    if columns is None:
        return table
    unknown = [c for c in columns if c not in table]
    if unknown or len(set(columns)) != len(columns):
        raise StoreError(
            f"runs cannot be read as columns {list(columns)!r}: "
            + (f"{unknown!r} not among {table!r}" if unknown else "a column named twice")
        )
    return list(columns)
