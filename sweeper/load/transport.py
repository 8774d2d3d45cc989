"""Where fio runs and how its job and output travel: the transport a fio driver composes."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sweeper.fio.parse import FioResult
from sweeper.fio.runner import Fio, FioOutput


@dataclass
class TransportRun:
    """One job file run by a transport: fio's output as one run of the target, and what the
    transport already read from it."""

    output: FioOutput
    #: the run's figures over all hosts, where the transport read them (fio's client mode)
    result: FioResult | None = None
    #: each host's own figures, when several hosts ran the job together
    host_results: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: why the run failed although fio exited 0 everywhere
    error: str | None = None
    #: the load hosts' CPU and the target's block-layer view over the run (see telemetry)
    telemetry: dict[str, Any] = field(default_factory=dict)


class FioTransport(ABC):
    """fio on this host, on load hosts through fio's client/server mode, or over SSH."""

    def __init__(self) -> None:
        #: the fio this transport runs (set by ``start``)
        self.fio: Fio | None = None
        #: the hosts fio runs on, for the disclosure, when not the controller itself
        self.load_hosts: list[dict[str, Any]] = []
        #: the target whose block-layer view each run's telemetry records (set by the driver)
        self.watched: str | None = None

    @abstractmethod
    def start(self, fio_name: str) -> Fio:
        """Find fio where it runs (and start what it needs there); its name and version."""

    def stop(self) -> None:  # noqa: B027 - optional hook
        """Stop what ``start`` started; safe to call when it did not start."""

    @abstractmethod
    def target_size(self, target: str) -> int:
        """The target's size in bytes as the load hosts see it (the smallest of them)."""

    @abstractmethod
    def identity(self, target: str) -> dict[str, Any]:
        """What the target is, so that a fill written to it is known again (and a target
        built anew is filled anew)."""

    def purge(self, target: str, method: str) -> str | None:
        """Purge ``target`` on the device itself (``discard``: blkdiscard; ``nvme-format``):
        None when done, else why this device cannot (the driver then writes zeros with fio).
        Raises RuntimeError when the purge fails or ``nvme-format`` is not possible."""
        if method == "nvme-format":
            raise RuntimeError(f"purge: nvme-format is not possible through {type(self).__name__}")
        return f"{type(self).__name__} cannot discard"

    @abstractmethod
    def run(
        self, job: Path, timeout_s: float, *, fill: bool = False, concurrent_groups: bool = False
    ) -> TransportRun:
        """Run the job file once, killing fio after ``timeout_s``. ``fill``: the job writes
        the working set before the runs (one host suffices for a target they share).
        ``concurrent_groups``: the job file is a composite cell's, whose job groups run at the
        same time (for a transport that reads fio's output itself)."""
