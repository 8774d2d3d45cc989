"""What the simulated array is asked: its configuration and the fio job."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sweeper.vocabulary import CACHE_POLICIES, LAYOUTS
from sweeper.workload import DataProfile

if TYPE_CHECKING:
    from sweeper.sim.profile import ArrayProfile


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


#: the array's health states the model knows (``health``)
HEALTH_STATES = ("optimal", "degraded", "rebuilding")


def state_problems(profile: ArrayProfile, state: ArrayState) -> list[str]:
    """Why the model cannot answer for ``state`` (the state a playbook recorded: the sim
    platform's, or another platform's mapped onto a profile, as vSAN's policies with its
    own stripe widths), empty if it can: what would fail inside the model, not the sim
    platform's own choices (the extents its pool offers: ``configuration_problems``)."""
    level = state.raid_level
    if level not in profile.raid_groups:
        return [f"raid_level {level!r}: profile {profile.name} has no such groups"]
    problems = []
    if state.layout not in LAYOUTS:
        problems.append(f"layout {state.layout!r} is not one of {', '.join(LAYOUTS)}")
    if state.cache_policy not in CACHE_POLICIES:
        problems.append(
            f"cache_policy {state.cache_policy!r} is not one of {', '.join(CACHE_POLICIES)}"
        )
    if state.health not in HEALTH_STATES:
        problems.append(f"health {state.health!r} is not one of {', '.join(HEALTH_STATES)}")
    width = state.rank_drives or profile.rank_drives(level)
    if (problem := profile.width_problem(level, width)) is not None:
        return [*problems, f"rank_drives: {problem}"]
    built = profile.with_rank_drives(level, state.rank_drives)
    if not 1 <= state.ranks <= built.max_ranks(level):
        problems.append(
            f"ranks {state.ranks}: profile {profile.name} builds 1 to {built.max_ranks(level)} "
            f"ranks of {level}"
        )
    if state.layout == "single_rank" and state.ranks != 1:
        problems.append(f"a single_rank volume lies on one rank, not {state.ranks}")
    if state.layout in ("host_stripe", "pool_stripe") and not (state.stripe_kib or 0) > 0:
        problems.append(f"{state.layout} needs a stripe_kib above 0, not {state.stripe_kib}")
    if state.snapshots and profile.snapshots is None:
        problems.append(f"snapshots: profile {profile.name} has none")
    if state.data_reduction and profile.data_reduction is None:
        problems.append(f"data_reduction: profile {profile.name} has none")
    return problems
