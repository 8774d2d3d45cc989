"""What reading fio's JSON output yields: the run's figures, and the errors that refuse it."""

from __future__ import annotations

from dataclasses import dataclass


class FioParseError(ValueError):
    """The text is not usable fio JSON output; the message says what was wrong."""


class FioRunError(RuntimeError):
    """fio ran but a job reported a non-zero ``error`` (an errno)."""


@dataclass(frozen=True)
class DirectionStats:
    """Figures for one direction (read or write), all jobs of the run together."""

    iops: float
    mbps: float  # bw_bytes / 1e6
    #: total latency (lat_ns: submission + completion); None where fio did not time it
    #: (``disable_lat``, ``gtod_reduce``): completion latency is never passed off as total
    lat_mean_ms: float | None
    #: percentiles of the total latency (``lat_percentiles=1``, as raidsweep's job files set
    #: it); None where fio reported completion-latency percentiles only
    lat_p50_ms: float | None
    lat_p95_ms: float | None
    lat_p99_ms: float | None
    lat_p999_ms: float | None
    lat_p9999_ms: float | None
    total_ios: int


@dataclass(frozen=True)
class SyncStats:
    """The latency of the run's fsync/fdatasync calls (fio's ``sync`` section), all jobs."""

    count: int
    lat_mean_ms: float
    lat_p50_ms: float | None
    lat_p95_ms: float | None
    lat_p99_ms: float | None
    lat_p999_ms: float | None
    lat_p9999_ms: float | None


@dataclass(frozen=True)
class FioResult:
    read: DirectionStats | None  # None when that direction did no I/O
    write: DirectionStats | None
    job_options: dict[str, str]  # 'global options' merged with the first job's 'job options'
    fio_version: str
    jobs: int  # number of job entries in the JSON
    sync: SyncStats | None = None  # None when the run made no fsync/fdatasync calls
    #: fio's own CPU use in user and system mode, percent of one CPU over the measured time,
    #: all jobs together (``cpu_pct``)
    usr_cpu_pct: float | None = None
    sys_cpu_pct: float | None = None
    #: a composite run's streams, one per job group in group order (empty: one stream)
    streams: tuple[StreamResult, ...] = ()


@dataclass(frozen=True)
class StreamResult:
    """One stream of a composite run: the figures of its job group alone."""

    group: int
    jobname: str
    read: DirectionStats | None
    write: DirectionStats | None
    sync: SyncStats | None = None
