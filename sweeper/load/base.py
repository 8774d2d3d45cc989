"""What every load driver provides, and what it hands back for one run."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from sweeper.fio.parse import FioResult
from sweeper.workload import WorkloadCell


@dataclass(kw_only=True)
class RunOutput:
    """One run as the load driver saw it: what ran, what it said, how long the array was
    busy, and what the run's disclosure keeps of the load side (fill, steady state, load
    hosts, model). Built by keyword: most of it is optional."""

    tool: str
    tool_version: str
    job_file: str
    stdout: str
    #: figures the driver already read from ``stdout`` (fio's client mode), else None
    result: FioResult | None = None
    stderr: str
    exit_code: int
    #: why the run failed although fio exited 0 (e.g. a load host that reported nothing)
    error: str | None = None
    array_time_s: float
    #: the fill that wrote the working set before the runs (without its job file)
    fill: dict[str, Any] = field(default_factory=dict)
    #: the SNIA PTS steady-state verdict over the run's interval logs
    steady_state: dict[str, Any] = field(default_factory=dict)
    #: each load host's own figures, when several hosts ran the job together
    host_results: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the hosts fio ran on, when not the controller that started it
    load_hosts: list[dict[str, Any]] = field(default_factory=list)
    #: the cell's workload-dependent preconditioning, before its first measured run
    precondition: dict[str, Any] = field(default_factory=dict)
    #: the purge before the configuration's fill (method, seconds, bytes), when asked for
    purge: dict[str, Any] = field(default_factory=dict)
    #: the load hosts' CPU and the target's block-layer view over the run
    telemetry: dict[str, Any] = field(default_factory=dict)
    #: a rate cell's arrivals: percentage, maximum IOPS and its source, target IOPS
    rate: dict[str, Any] = field(default_factory=dict)
    #: the storage as the simulated array recorded it (the model's runs only)
    array_state: dict[str, Any] | None = None
    #: which mechanisms of the simulated array decided the run (the model's runs only)
    model: dict[str, Any] | None = None


class LoadDriver(ABC):
    """Measures the storage as it is now: prepares once per configuration, runs each cell,
    cleans up. A driver composes a transport (where and how fio runs) rather than knowing
    any platform."""

    def prepare(self) -> None:  # noqa: B027 - optional hook
        """Called once before the runs of a configuration."""

    @abstractmethod
    def run(self, cell: WorkloadCell, repetition: int) -> RunOutput:
        """Run the cell once and return the tool's output."""

    def cleanup(self) -> None:  # noqa: B027 - optional hook
        """Called once after the runs of a configuration, also after a failure."""
