"""The telemetry's measured interval is fio's, also for a cell of several jobs: with
``group_reporting`` (every job file of ours) fio sums ``job_runtime`` over the group's jobs,
so a window of that length would start before fio did and take in the ramp."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sweeper.fio import render_job
from sweeper.fio.runner import find_fio, run_fio
from sweeper.load.telemetry import measured_window
from sweeper.workload import WorkloadCell

pytestmark = pytest.mark.integration
RAMP_S, RUNTIME_S = 1, 2


def test_the_window_of_a_two_job_cell_is_its_runtime_not_the_jobs_sum(tmp_path: Path) -> None:
    target = tmp_path / "target.img"
    target.write_bytes(bytes(8 * 1024**2))
    job = tmp_path / "two.fio"
    cell = WorkloadCell.parse("read/64k/qd1x2")
    job.write_text(
        render_job(
            cell,
            filename=str(target),
            engine="psync",
            runtime_s=RUNTIME_S,
            ramp_s=RAMP_S,
            size=8 * 1024**2,
            direct=False,
        )
    )
    out = run_fio(find_fio(), job, timeout_s=60)
    assert out.exit_code == 0, out.stderr
    doc = json.loads(out.stdout[out.stdout.index("{") :])
    (reported,) = doc["jobs"]  # the two jobs as one group
    assert reported["job_runtime"] >= 2 * RUNTIME_S * 1000 - 50  # fio's sum over the jobs
    window = measured_window(out.stdout)
    assert window is not None
    assert window[1] == doc["timestamp_ms"] / 1000
    assert window[1] - window[0] == pytest.approx(RUNTIME_S, abs=0.25)
