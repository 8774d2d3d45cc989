"""The records a sweep stores, built from hand-made runner outputs (no store, no sweep)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from sweeper.ansible import PlayResult
from sweeper.fio import FioResult, parse_fio_output
from sweeper.store import CONFIG_SCHEMA, RUN_SCHEMA, RunAddress
from sweeper.sweep.records import Attempt, configuration_row, run_row
from sweeper.workload import WorkloadCell
from tests.support.runs import (
    ADDRESS,
    CELL,
    CONFIG,
    CONTEXT,
    FINISHED,
    HOST,
    PLAY,
    STARTED,
    output,
    row_of,
    stats,
)


def test_a_good_run_has_both_directions_and_their_sum() -> None:
    parsed = FioResult(stats(700, 5.6, 1.0), stats(300, 2.4, 4.0), {}, "fio-3.33", 1)
    row = row_of(output(), parsed)
    assert row["status"] == "ok" and row["error"] is None
    assert (row["sweep_id"], row["config_key"], row["cell_key"], row["repetition"]) == (
        "study",
        CONFIG.key,
        CELL.key,
        2,
    )
    assert (row["read_iops"], row["write_iops"], row["iops"]) == (700, 300, 1000)
    assert row["mbps"] == 8.0 and row["write_lat_p99_ms"] == 12.0
    assert (row["ranks"], row["stripe_kib"], row["layout"]) == (4, 1048576, "pool_stripe")
    assert (row["pattern"], row["block_size"], row["iodepth"], row["numjobs"]) == (
        "randrw70",
        8192,
        4,
        2,
    )
    assert (row["runtime_s"], row["ramp_s"], row["engine"]) == (300.0, 6.0, "libaio")
    assert row["array_time_s"] == 306.0 and row["wall_s"] == 306.5
    assert (row["started_at"], row["finished_at"]) == (STARTED, FINISHED)
    assert (row["tool"], row["job_file"], row["fio_json"]) == ("fio", "[job]\n", "{fio json}")
    assert row["steady"] is None and row["active_pct"] is None
    # every column the store keeps, in its types
    pa.Table.from_pylist([dict(row, run_id=ADDRESS.run_id)], schema=RUN_SCHEMA)


def test_a_read_only_run_has_no_write_figures() -> None:
    row = row_of(output(), FioResult(stats(500, 4.0, 2.0), None, {}, "fio-3.33", 1))
    assert row["iops"] == 500 and "write_iops" not in row


def test_the_disclosure_names_host_tools_matrix_and_what_ansible_found() -> None:
    row = row_of(output(array_state={"cache": "wb"}), FioResult(None, None, {}, "x", 1))
    disclosure = json.loads(row["disclosure"])
    assert disclosure["load_hosts"] == HOST["load_hosts"]
    assert disclosure["versions"] == HOST["versions"]
    assert disclosure["inventory"] == "hosts.yml"  # the name, never the machine's path
    assert disclosure["facts"] == {"volume": "vol0"}
    assert disclosure["array_state"] == {"cache": "wb"}
    assert (disclosure["engine"], disclosure["runtime_s"], disclosure["ramp_s"]) == (
        "libaio",
        300.0,
        6.0,
    )
    assert "controller" not in disclosure and "steady_state" not in disclosure
    assert row["iops"] == 0.0  # no direction did I/O


def test_load_hosts_replace_the_controller_and_runner_extras_are_kept() -> None:
    steady = {"steady": True, "range_pct": 4.5, "slope_pct": 0.5, "window_s": 60}
    out = output(
        load_hosts=[{"hostname": "lg1"}, {"hostname": "lg2"}],
        host_results={"lg1": {"iops": 1}},
        steady_state=steady,
        precondition={"passes": 2},
        fill={"bytes": 1},
        model={"bottleneck": "drives"},
    )
    row = row_of(out, FioResult(stats(1, 1, 1), None, {}, "x", 1))
    disclosure = json.loads(row["disclosure"])
    assert disclosure["controller"] == HOST["load_hosts"]
    assert disclosure["load_hosts"] == [{"hostname": "lg1"}, {"hostname": "lg2"}]
    assert disclosure["load_hosts_results"] == {"lg1": {"iops": 1}}
    assert disclosure["steady_state"] == steady
    assert disclosure["precondition"] == {"passes": 2}
    assert disclosure["fill"] == {"bytes": 1} and disclosure["model"] == {"bottleneck": "drives"}
    assert (row["steady"], row["steady_range_pct"], row["steady_slope_pct"]) == (True, 4.5, 0.5)


def test_a_run_whose_runner_raised_is_kept_with_its_cause() -> None:
    row = row_of(None, None, "OSError: no such device")
    assert row["status"] == "failed" and row["error"] == "OSError: no such device"
    assert row["array_time_s"] == 0.0 and row["tool"] is None and row["fio_json"] is None
    assert "iops" not in row
    assert json.loads(row["disclosure"])["array_state"] is None
    pa.Table.from_pylist([dict(row, run_id=ADDRESS.run_id)], schema=RUN_SCHEMA)


def test_a_failed_fio_run_keeps_its_output() -> None:
    out = output(stdout="", stderr="fio: bad option", exit_code=1, array_time_s=0.0)
    row = row_of(out, None, "fio exited 1: fio: bad option")
    assert row["status"] == "failed" and row["fio_stderr"] == "fio: bad option"


def test_a_configuration_record_keeps_the_play_and_its_tail() -> None:
    play = PlayResult("failed", 2, 1, "Create the array", "no drives", "x" * 30000, 9.0)
    row = configuration_row("study", CONFIG, 3, play, 0.0, STARTED, FINISHED)
    assert (row["config_key"], row["attempt"], row["status"]) == (CONFIG.key, 3, "failed")
    assert (row["ansible_rc"], row["failed_task"], row["error"]) == (
        2,
        "Create the array",
        "no drives",
    )
    assert len(row["ansible_stdout"]) == 20000 and row["facts"] == "{}"
    assert (row["ranks"], row["stripe_kib"], row["reconfig_array_time_s"]) == (4, 1048576, 0.0)
    pa.Table.from_pylist([row], schema=CONFIG_SCHEMA)


def test_a_sync_write_run_keeps_its_sync_latency_and_cell_dimensions() -> None:
    """fio's own sync section (recorded from real fio) and the cell's sync mode, access
    distribution and data profile land in their columns; a limit can then bound them."""
    fixture = (
        Path(__file__).parent / "fixtures" / "fio" / "write_4k_psync_qd1x1_fdatasync_jsonplus.json"
    )
    parsed = parse_fio_output(fixture.read_text())
    assert parsed.sync is not None
    cell = WorkloadCell.parse("randwrite/4k/qd1x1/fdatasync/zipf1.2/cmp50dd20")
    attempt = Attempt(output(), parsed, None, STARTED, 306.5)
    address = RunAddress("study", CONFIG.key, cell.key, 1)
    row = run_row(CONTEXT, CONFIG, cell, address, attempt, PLAY, FINISHED)
    assert row["sync_count"] == parsed.sync.count > 0
    assert row["sync_lat_p99_ms"] == parsed.sync.lat_p99_ms
    assert row["sync_lat_p99_ms"] >= row["sync_lat_p50_ms"] > 0
    assert (row["sync_mode"], row["random_distribution"]) == ("fdatasync", "zipf:1.2")
    assert (row["compress_pct"], row["dedupe_pct"]) == (50, 20)
    pa.Table.from_pylist([dict(row, run_id=address.run_id)], schema=RUN_SCHEMA)
    # A plain run leaves them empty.
    plain = row_of(output(), FioResult(stats(1, 1, 1), None, {}, "x", 1))
    assert plain["sync_mode"] is None and "sync_lat_p99_ms" not in plain
