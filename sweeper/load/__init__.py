"""The load side of a sweep: what measures the storage once a platform has configured it.

A platform owns everything storage-side (options, preflight, apply, teardown, hardware
facts); it hands the sweep a load driver for each configuration. A driver composes a
transport instead of knowing a platform: fio here (:class:`LocalFio`), through fio's
client/server mode on load hosts (:class:`FioClients`) or over SSH on one or several hosts
(:class:`SshFio`); or the simulated array's model (:class:`SimDriver`).
"""

from sweeper.load.base import LoadDriver, RunOutput
from sweeper.load.clients import FioClients
from sweeper.load.fio_driver import FioDriver
from sweeper.load.local import LocalFio
from sweeper.load.settings import TIMEOUT_GRACE_S, FioLoad, Precondition
from sweeper.load.sim import SimDriver
from sweeper.load.ssh import SshFio
from sweeper.load.steady import judge_steady_state
from sweeper.load.telemetry import telemetry_flag
from sweeper.load.transport import FioTransport, TransportRun

__all__ = [
    "TIMEOUT_GRACE_S",
    "FioClients",
    "FioDriver",
    "FioLoad",
    "FioTransport",
    "LoadDriver",
    "LocalFio",
    "Precondition",
    "RunOutput",
    "SimDriver",
    "SshFio",
    "TransportRun",
    "judge_steady_state",
    "telemetry_flag",
]
