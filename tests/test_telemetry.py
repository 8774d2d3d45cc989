"""Telemetry figures and the flag, from /proc counters and fio output recorded on real runs
(tests/fixtures/telemetry/record.sh): a direct random read on a loop device, buffered
reads the page cache answered, a read held at 5000 IOPS beside one busy loop, and the direct
read beside one busy loop per CPU (recorded on a host of two CPUs)."""

from __future__ import annotations

import json
from typing import Any

import pyarrow as pa
import pytest

from sweeper.fio import parse_fio_output
from sweeper.load.ssh import _telemetry as ssh_telemetry
from sweeper.load.telemetry import (
    AGREEMENT_PCT,
    CPU_SATURATED_PCT,
    OTHER_CPUS,
    STEAL_PCT,
    Snapshot,
    combine,
    measured_window,
    parse_cpu,
    parse_disk,
    series_figures,
    telemetry_flag,
    window_figures,
    with_other_work,
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
    record |= {"device": device, "target_is_device": is_device, "host": "recorder", "cpus": 2}
    record = with_other_work(record, stdout)
    read = parse_fio_output(stdout).read
    assert read is not None
    return record, read.iops, read.mbps


@pytest.mark.parametrize("name", ["randread", "cached", "neighbour", "burn"])
def test_recorded_figures_are_physical(name: str) -> None:
    rec, _, _ = _recorded(name)
    assert rec["window"] == "measured" and rec["samples"] >= 3
    assert 2.5 <= rec["window_s"] <= 3.6  # fio ran for 3 s
    assert 0 <= rec["host_cpu_pct"] <= 100 and 0 <= rec["host_cpu_peak_pct"] <= 100
    assert 0 <= rec["host_steal_pct"] <= rec["host_user_pct"] + rec["host_steal_pct"]
    assert rec["host_user_pct"] <= rec["host_cpu_pct"]
    assert 0 <= rec["other_cpus"] <= rec["cpus"]
    assert 0 <= rec["disk_util_pct"] <= 100 and rec["disk_queue"] >= 0
    assert rec["disk_iops"] >= 0 and rec["disk_mbps"] >= 0


def test_a_direct_read_on_the_device_agrees_with_the_block_layer() -> None:
    rec, iops, mbps = _recorded("randread")
    assert abs(rec["disk_iops"] - iops) / iops * 100 <= AGREEMENT_PCT
    assert "block layer" not in (telemetry_flag(rec, iops, mbps) or "")


def _snapshots(name: str) -> list[Snapshot]:
    device = (RECORDED / "device").read_text().strip()
    out = []
    for path in sorted((RECORDED / name).glob("*.tel"), key=lambda p: int(p.stem)):
        first, _, rest = path.read_text().partition("\n")
        out.append(Snapshot(float(first), parse_cpu(rest), parse_disk(rest, device)))
    return out


def test_the_kernels_32_bit_milliseconds_wrap_without_breaking_the_figures() -> None:
    """read_ms, write_ms, io_ticks and time_in_queue are 32-bit in /proc/diskstats (``%u``):
    the recorded direct read with those counters moved so that they pass 2**32 between two
    snapshots gives the same figures as recorded."""
    a, b = _snapshots("randread")[0], _snapshots("randread")[-1]
    assert a.disk is not None and b.disk is not None
    wrapping = (3, 7, 9, 10)
    assert all(b.disk[i] > a.disk[i] for i in (3, 9, 10)), "the recorded run kept the device busy"

    def moved(s: Snapshot) -> Snapshot:
        assert s.disk is not None and a.disk is not None
        disk = list(s.disk)
        for i in wrapping:  # a's value just below 2**32: b's has wrapped past it
            disk[i] = (disk[i] + 2**32 - 1 - a.disk[i]) % 2**32
        return Snapshot(s.t, s.cpu, tuple(disk))

    wrapped = window_figures(moved(a), moved(b))
    assert moved(b).disk[9] < moved(a).disk[9]  # type: ignore[index]
    assert wrapped == window_figures(a, b)
    assert 0 < wrapped["disk_util_pct"] <= 100 and wrapped["disk_queue"] > 0


def test_a_wrap_between_the_samples_around_a_window_edge_keeps_the_figures() -> None:
    """The measured window's edges are interpolated between samples: with the 32-bit
    counters wrapping between the two samples around an edge, the figures over the window
    are the recorded ones (the interpolation once mixed values across the wrap and gave a
    queue of hundreds of thousands)."""
    samples = _snapshots("randread")
    assert len(samples) >= 4
    t0, t1 = samples[1].t, samples[2].t
    window = ((t0 + t1) / 2, samples[-1].t)
    base = samples[1].disk
    assert base is not None

    def moved(s: Snapshot) -> Snapshot:
        assert s.disk is not None
        disk = list(s.disk)
        for i in (3, 7, 9, 10):  # sample 1 just below 2**32: sample 2 has wrapped
            disk[i] = (disk[i] + 2**32 - 1 - base[i]) % 2**32
        return Snapshot(s.t, s.cpu, tuple(disk))

    wrapped = series_figures([moved(x) for x in samples], window)
    plain = series_figures(samples, window)
    for key in ("disk_util_pct", "disk_queue", "disk_await_ms", "disk_iops"):
        assert wrapped[key] == pytest.approx(plain[key], rel=1e-9), key


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
    below = rec | {
        "host_cpu_pct": CPU_SATURATED_PCT - 0.1,
        "target_is_device": False,
        "other_cpus": 0.0,
    }
    assert telemetry_flag(below, iops, mbps) is None
    at = below | {"host_cpu_pct": CPU_SATURATED_PCT}
    assert telemetry_flag(at, iops, mbps) is not None


def test_other_programs_beside_fio_are_flagged_before_the_host_saturates() -> None:
    rec, iops, mbps = _recorded("neighbour")
    # one busy loop beside a read held at 5000 IOPS: the host half busy, one CPU not fio's
    assert rec["host_cpu_pct"] < CPU_SATURATED_PCT
    assert 0.9 <= rec["other_cpus"] <= 1.1, rec["other_cpus"]
    flag = telemetry_flag(rec, iops, mbps) or ""
    assert "other programs on load host recorder kept 1.0 CPUs busy beside fio" in flag, flag
    # fio's own CPU is not "other": the plain read, fio half a CPU, leaves nearly none
    quiet, quiet_iops, quiet_mbps = _recorded("randread")
    assert quiet["other_cpus"] < 0.1 and telemetry_flag(quiet, quiet_iops, quiet_mbps) is None
    below = rec | {"other_cpus": OTHER_CPUS - 0.01}
    assert telemetry_flag(below, iops, mbps) is None
    assert telemetry_flag(rec | {"other_cpus": OTHER_CPUS}, iops, mbps) is not None
    # a saturated host says that, once: the other programs are its cause, not a second flag
    burn, iops, mbps = _recorded("burn")
    assert burn["other_cpus"] >= OTHER_CPUS
    flag = telemetry_flag(burn | {"target_is_device": False}, iops, mbps) or ""
    assert "measured itself" in flag and "other programs" not in flag


def test_other_work_is_unknown_without_fio_cpu_or_the_host_count() -> None:
    rec, _, _ = _recorded("neighbour")
    stdout = (RECORDED / "neighbour" / "fio.json").read_text()
    assert with_other_work(rec | {"cpus": None}, stdout)["other_cpus"] is None
    assert with_other_work(rec, "fio: no JSON here")["other_cpus"] is None


def test_a_hypervisors_steal_is_flagged() -> None:
    rec, iops, mbps = _recorded("randread")
    assert telemetry_flag(rec | {"host_steal_pct": STEAL_PCT - 0.1}, iops, mbps) is None
    flag = telemetry_flag(rec | {"host_steal_pct": 25.0}, iops, mbps) or ""
    assert "lost 25% of its CPU time to other virtual machines" in flag, flag


def test_steal_is_read_from_proc_stat() -> None:
    text = "cpu  100 10 50 800 20 5 5 30 0 0\ncpu0 100 10 50 800 20 5 5 30 0 0\n"
    busy, total, user, steal = parse_cpu(text)
    assert (busy, total, user, steal) == (200, 1020, 110, 30)
    a = Snapshot(0.0, (0, 0, 0, 0), None)
    b = Snapshot(1.0, (busy, total, user, steal), None)
    figures = series_figures([a, b], None)
    assert figures["host_steal_pct"] == pytest.approx(100 * 30 / 1020)
    assert figures["host_user_pct"] == pytest.approx(100 * 110 / 1020)


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
    # each job's share of its own runtime (1.000 s) over the 1.001 s measured
    assert result.usr_cpu_pct == pytest.approx(sum(j["usr_cpu"] for j in jobs), rel=0.01)
    assert result.sys_cpu_pct == pytest.approx(sum(j["sys_cpu"] for j in jobs), rel=0.01)


def test_a_reporting_groups_cpu_counts_every_job() -> None:
    # group_reporting: fio's share is the jobs' mean (CPU time over their summed runtime);
    # the two jobs together used twice that of one CPU
    text = (FIO / "randread_4k_psync_qd1x2.json").read_text()
    (job,) = json.loads(text)["jobs"]
    assert job["job options"]["numjobs"] == "2"
    result = parse_fio_output(text)
    assert job["job_runtime"] == pytest.approx(2 * job["read"]["runtime"], rel=0.01)
    assert result.usr_cpu_pct == pytest.approx(2 * job["usr_cpu"], rel=0.01)
    assert result.sys_cpu_pct == pytest.approx(2 * job["sys_cpu"], rel=0.01)


def test_the_run_record_carries_the_telemetry_and_its_flag() -> None:
    rec, _, _ = _recorded("cached")
    stdout = (RECORDED / "cached" / "fio.json").read_text()
    row = row_of(output(telemetry=rec), parse_fio_output(stdout))
    # a run record stores as the store's schema says
    pa.Table.from_pylist([row], schema=RUN_SCHEMA)
    assert row["disk_iops"] == rec["disk_iops"] and row["host_cpu_pct"] == rec["host_cpu_pct"]
    assert row["other_cpus"] == rec["other_cpus"] is not None  # a column, for sql and the app
    assert row["fio_sys_cpu_pct"] is not None
    assert "the block layer saw" in row["telemetry_flag"]
    disclosure = json.loads(row["disclosure"])
    assert disclosure["telemetry"]["window"] == "measured"

    without = row_of(output(), parse_fio_output(stdout))
    assert without["disk_iops"] is None and without["telemetry_flag"] is None


def test_a_remote_hosts_snapshots_give_the_same_record() -> None:
    # the SSH transport's shell loop brings the same files back: its record has the host's
    # CPU count from /proc/stat and the other programs' CPUs
    files = {p.name: p.read_text() for p in (RECORDED / "neighbour").glob("*.tel")}
    files["device.tel"] = (RECORDED / "device").read_text() + "block\n"
    stdout = (RECORDED / "neighbour" / "fio.json").read_text()
    rec = ssh_telemetry("worker-1", files, stdout)
    local, _, _ = _recorded("neighbour")
    assert rec["cpus"] == 2 and rec["target_is_device"] is True
    assert rec["other_cpus"] == pytest.approx(local["other_cpus"])
    assert rec["host_cpu_pct"] == pytest.approx(local["host_cpu_pct"])
