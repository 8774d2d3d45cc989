"""A run record's hand-made inputs: one configuration's cell run at a fixed time, and the
record ``run_row`` builds from a load driver's output and fio's figures."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from sweeper.ansible import PlayResult
from sweeper.configuration import Configuration
from sweeper.fio import DirectionStats, FioResult
from sweeper.load import RunOutput
from sweeper.spec import Matrix
from sweeper.store import RunAddress
from sweeper.sweep.records import Attempt, RunContext, run_row
from sweeper.workload import WorkloadCell

STARTED = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
FINISHED = datetime(2026, 1, 2, 3, 9, 11, tzinfo=UTC)
HOST = {"load_hosts": [{"hostname": "controller", "cpus": 2}], "versions": {"optuna": "5.0.0"}}
MATRIX = Matrix(patterns=["randrw70"], block_sizes=["8k"], runtime="300s", ramp="6s")
CONTEXT = RunContext("sim", MATRIX, Path("/somewhere/inventories/sim/hosts.yml"), HOST)
CONFIG = Configuration.from_key("raid10/pool_stripe/ranks4/stripe1g/wb-ra")
CELL = WorkloadCell.parse("randrw70/8k/qd4x2")
ADDRESS = RunAddress("study", CONFIG.key, CELL.key, 2)
PLAY = PlayResult("successful", 0, 3, None, None, "ok", 1.5, facts={"volume": "vol0"})


def stats(iops: float, mbps: float, lat: float) -> DirectionStats:
    return DirectionStats(iops, mbps, lat, lat, 2 * lat, 3 * lat, 4 * lat, 5 * lat, 1000)


def output(**change: object) -> RunOutput:
    """A finished fio run's output; ``change`` replaces or adds fields."""
    fields: dict = {
        "tool": "fio",
        "tool_version": "fio-3.33",
        "job_file": "[job]\n",
        "stdout": "{fio json}",
        "stderr": "",
        "exit_code": 0,
        "array_time_s": 306.0,
    }
    return RunOutput(**(fields | change))


def row_of(out: RunOutput | None, parsed: FioResult | None, error: str | None = None) -> dict:
    attempt = Attempt(out, parsed, error, STARTED, 306.5)
    return run_row(CONTEXT, CONFIG, CELL, ADDRESS, attempt, PLAY, FINISHED)
