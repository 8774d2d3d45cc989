"""What the simulated array is asked: its configuration and the fio job."""

from __future__ import annotations

from dataclasses import dataclass

from sweeper.workload import DataProfile


@dataclass(frozen=True)
class ArrayState:
    """The configuration the simulated array is in (as the playbook recorded it)."""

    raid_level: str
    layout: str
    ranks: int
    stripe_kib: int | None
    cache_policy: str
    snapshots: bool = False
    data_reduction: bool = False
    health: str = "optimal"  # optimal | degraded | rebuilding
    #: drives of every rank (``drives_per_rank``); None: the profile's group of the level
    rank_drives: int | None = None

    @property
    def write_back(self) -> bool:
        return self.cache_policy.startswith("wb")

    @property
    def read_ahead(self) -> bool:
        return self.cache_policy.endswith("-ra")


@dataclass(frozen=True)
class Job:
    """What the fio job file asks for."""

    rw: str
    read_fraction: float
    block_size: int
    #: fio's iodepth, numjobs and ioengine: what sets the I/Os in flight (``outstanding``)
    iodepth: int
    numjobs: int
    engine: str
    #: seconds measured, after ``ramp_s`` seconds left out
    runtime_s: float
    ramp_s: float
    #: bytes the jobs span together (each job's own region summed when each has one)
    working_set: int
    #: made durable after every write: ``fdatasync``/``fsync`` (a flush call), ``dsync``
    #: (writes opened O_DSYNC), or None
    sync: str | None = None
    #: fio's ``random_distribution`` (``zipf:1.2``, ``pareto:0.9``, ``normal:20``), or None
    distribution: str | None = None
    #: what the written data is like (fio's buffer_compress_percentage and
    #: dedupe_percentage), or None: fio's default buffers, incompressible and unique
    data: DataProfile | None = None
    #: an open loop: Poisson arrivals at this many IOPS in all (fio's rate_iops over its
    #: jobs, with rate_process=poisson), or None: a closed loop
    rate_iops: float | None = None

    @property
    def synchronous(self) -> bool:
        return self.engine in ("sync", "psync", "pvsync", "pvsync2")

    @property
    def outstanding(self) -> int:
        return (1 if self.synchronous else self.iodepth) * self.numjobs

    @property
    def sequential(self) -> bool:
        return not self.rw.startswith("rand")
