"""Telemetry figures and the flag, from /proc counters and fio output recorded on real runs
(tests/fixtures/telemetry/record.sh): a direct random read on a loop device, buffered
reads the page cache answered, and the direct read beside one busy loop per CPU."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import pytest

from sweeper.fio import parse_fio_output
from sweeper.load.telemetry import (
    AGREEMENT_PCT,
    CPU_SATURATED_PCT,
    Snapshot,
    combine,
    measured_window,
    parse_cpu,
    parse_disk,
    series_figures,
    telemetry_flag,
)
from sweeper.store import RUN_SCHEMA
from tests.support.paths import ROOT
from tests.support.runs import output, row_of

RECORDED = ROOT / "tests" / "fixtures" / "telemetry"
FIO = ROOT / "tests" / "fixtures" / "fio"


def _recorded(name: str, is_device: bool = True) -> tuple[dict[str, Any], float, float]:
    """(the telemetry record, fio's IOPS, fio's MB/s) of a recorded run."""
    device = (RECORDED / "device").read_text().strip()
    samples = []
    for path in sorted((RECORDED / name).glob("*.tel"), key=lambda p: int(p.stem)):
        first, _, rest = path.read_text().partition("\n")
        samples.append(Snapshot(float(first), parse_cpu(rest), parse_disk(rest, device)))
    stdout = (RECORDED / name / "fio.json").read_text()
    record = series_figures(samples, measured_window(stdout))
    record |= {"device": device, "target_is_device": is_device, "host": "recorder"}
    read = parse_fio_output(stdout).read
    assert read is not None
    return record, read.iops, read.mbps


@pytest.mark.parametrize("name", ["randread", "cached", "burn"])
def test_recorded_figures_are_physical(name: str) -> None:
    rec, _, _ = _recorded(name)
    assert rec["window"] == "measured" and rec["samples"] >= 3
    assert 2.5 <= rec["window_s"] <= 3.6  # fio ran for 3 s
    assert 0 <= rec["host_cpu_pct"] <= 100 and 0 <= rec["host_cpu_peak_pct"] <= 100
    assert 0 <= rec["disk_util_pct"] <= 100 and rec["disk_queue"] >= 0
    assert rec["disk_iops"] >= 0 and rec["disk_mbps"] >= 0


def test_a_direct_read_on_the_device_agrees_with_the_block_layer() -> None:
    rec, iops, mbps = _recorded("randread")
    assert abs(rec["disk_iops"] - iops) / iops * 100 <= AGREEMENT_PCT
    assert "block layer" not in (telemetry_flag(rec, iops, mbps) or "")


def test_reads_the_cache_answered_are_flagged_on_a_device_not_on_a_file() -> None:
    rec, iops, mbps = _recorded("cached")
    assert rec["disk_iops"] < iops / 10
    flag = telemetry_flag(rec, iops, mbps)
    assert flag is not None and "the block layer saw" in flag
    assert f"> {AGREEMENT_PCT:.0f}%" in flag
    # A file's disk serves other files too: its figures are not compared.
    rec, iops, mbps = _recorded("cached", is_device=False)
    assert "block layer" not in (telemetry_flag(rec, iops, mbps) or "")


def test_a_saturated_load_host_is_flagged_and_one_below_the_line_is_not() -> None:
    rec, iops, mbps = _recorded("burn")
    assert rec["host_cpu_pct"] >= CPU_SATURATED_PCT
    flag = telemetry_flag(rec, iops, mbps)
    assert flag is not None and "load host recorder was" in flag and "measured itself" in flag
    below = rec | {"host_cpu_pct": CPU_SATURATED_PCT - 0.1, "target_is_device": False}
    assert telemetry_flag(below, iops, mbps) is None
    at = below | {"host_cpu_pct": CPU_SATURATED_PCT}
    assert telemetry_flag(at, iops, mbps) is not None


def test_several_hosts_are_combined_and_the_saturated_one_is_named() -> None:
    quiet, iops, mbps = _recorded("randread")
    busy, _, _ = _recorded("burn")
    quiet = quiet | {"host": "worker-1", "host_cpu_pct": 50.0}
    both = combine({"worker-1": quiet, "worker-2": busy | {"host": "worker-2"}})
    assert both["disk_iops"] == pytest.approx(quiet["disk_iops"] + busy["disk_iops"])
    assert both["host_cpu_pct"] == busy["host_cpu_pct"]
    assert both["disk_util_pct"] == max(quiet["disk_util_pct"], busy["disk_util_pct"])
    flag = telemetry_flag(both, 2 * iops, 2 * mbps) or ""
    assert "worker-2" in flag and "worker-1" not in flag


def test_fio_cpu_is_summed_over_jobs() -> None:
    text = (FIO / "randread_4k_psync_2jobs_nogroup_jsonplus.json").read_text()
    jobs = json.loads(text)["jobs"]
    result = parse_fio_output(text)
    assert len(jobs) == 2
    assert result.usr_cpu_pct == pytest.approx(sum(j["usr_cpu"] for j in jobs))
    assert result.sys_cpu_pct == pytest.approx(sum(j["sys_cpu"] for j in jobs))


def test_the_run_record_carries_the_telemetry_and_its_flag() -> None:
    rec, _, _ = _recorded("cached")
    stdout = (RECORDED / "cached" / "fio.json").read_text()
    row = row_of(output(telemetry=rec), parse_fio_output(stdout))
    # a run record stores as the store's schema says
    pa.Table.from_pylist([row], schema=RUN_SCHEMA)
    assert row["disk_iops"] == rec["disk_iops"] and row["host_cpu_pct"] == rec["host_cpu_pct"]
    assert row["fio_sys_cpu_pct"] is not None
    assert "the block layer saw" in row["telemetry_flag"]
    disclosure = json.loads(row["disclosure"])
    assert disclosure["telemetry"]["window"] == "measured"

    without = row_of(output(), parse_fio_output(stdout))
    assert without["disk_iops"] is None and without["telemetry_flag"] is None
