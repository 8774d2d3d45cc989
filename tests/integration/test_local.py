"""The local platform with real fio against files, loop devices and zram devices.

Loop and zram devices are created by the fixtures (root, util-linux) and removed after.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from sweeper.fio import parse_fio_output
from sweeper.fio.runner import MIN_FIO_VERSION, Fio, find_fio
from sweeper.store import ParquetStore
from tests.support import devices
from tests.support.cli import cli
from tests.support.files import digest
from tests.support.paths import ROOT
from tests.support.specs import local_spec, quick_fio_matrix
from tests.support.sweeps import sweep

pytestmark = pytest.mark.integration
INVENTORY = str(ROOT / "inventories" / "local" / "hosts.yml")


def _sh(*cmd: str) -> str:
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture
def loop_device(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    backing = tmp_path / "loop.img"
    with devices.loop_device(backing, 96) as dev:
        yield dev, backing


@pytest.fixture
def zram_device() -> Iterator[str]:
    with devices.zram_device("64M") as dev:
        yield dev


def _spec(tmp_path: Path, options: dict[str, Any], **matrix: Any) -> Path:
    grid = quick_fio_matrix("randread", "write", concurrency=["4x1"], runtime="1s") | matrix
    return local_spec(tmp_path, "local-test", options, grid)


def _cli(spec: Path, store: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return cli("run", spec, "--store", store, "-q", *args)


def _sweep(spec_path: Path, store_dir: Path) -> ParquetStore:
    return sweep(spec_path, store_dir)[0]


def _runs(store: ParquetStore) -> list[dict[str, Any]]:
    runs = store.runs("local-test", include_failed=True)
    return [store.run_detail(r) or {} for r in runs["run_id"]]


def test_file_target_is_created_filled_and_measured(tmp_path: Path) -> None:
    target = tmp_path / "data" / "target.img"
    target.parent.mkdir()
    store = _sweep(_spec(tmp_path, {"target": str(target), "file_size": "48m"}), tmp_path / "s")
    runs = _runs(store)
    assert len(runs) == 2 and all(r["status"] == "ok" for r in runs)
    assert target.stat().st_size == 48 * 1024**2
    # The fill wrote the working set: the file is no longer sparse there.
    assert target.stat().st_blocks * 512 >= 32 * 1024**2
    fio = find_fio()
    for r in runs:
        assert r["tool"] == "fio" and r["tool_version"] == fio.version
        assert r["iops"] > 0
        assert f"filename={target}" in r["job_file"]
        disclosure = json.loads(r["disclosure"])
        assert disclosure["facts"]["kind"] == "file"
        assert disclosure["facts"]["filesystem"]["fstype"]
        assert disclosure["fill"]["bytes"] == 32 * 1024**2
    # The stored job file runs by hand and gives the same kind of result.
    job = tmp_path / "by-hand.fio"
    job.write_text(runs[0]["job_file"])
    out = subprocess.run(
        [fio.path, "--output-format=json", str(job)],
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,  # fio writes the job's interval logs beside it
    )
    by_hand = parse_fio_output(out.stdout)
    stored = parse_fio_output(runs[0]["fio_json"])
    assert (by_hand.read is None) == (stored.read is None)
    assert (by_hand.write is None) == (stored.write is None)


def test_check_shows_what_fio_will_write_and_writes_nothing(tmp_path: Path) -> None:
    target = tmp_path / "target.img"
    proc = _cli(
        _spec(tmp_path, {"target": str(target), "file_size": "48m"}), tmp_path / "s", "--check"
    )
    assert proc.returncode == 0, proc.stderr
    text = " ".join(proc.stdout.split())
    assert f"creates {target} as a file of 48m" in text
    assert f"fio writes to {target} (file, 48m), bytes 0 to 32m" in text
    assert "fills those 32m sequentially once before any read" in text
    assert not target.exists() and not (tmp_path / "s").exists()


def test_scratch_file_is_reused_and_a_foreign_file_refused(tmp_path: Path) -> None:
    target = tmp_path / "target.img"
    spec = _spec(tmp_path, {"target": str(target), "file_size": "48m"}, patterns=["write"])
    assert _cli(spec, tmp_path / "s").returncode == 0
    # The second sweep (or a resume) finds the file it made and uses it again.
    assert _cli(spec, tmp_path / "s2").returncode == 0
    before = digest(target)
    proc = _cli(_spec(tmp_path, {"target": str(target), "file_size": "64m"}), tmp_path / "s3")
    assert proc.returncode == 2
    assert "exists with 50331648 bytes, not the 67108864 asked for" in " ".join(proc.stderr.split())
    assert digest(target) == before and not (tmp_path / "s3").exists()


def test_disclose_prints_the_record_of_a_sweep_and_of_a_run(tmp_path: Path) -> None:
    target = tmp_path / "target.img"
    spec = _spec(tmp_path, {"target": str(target), "file_size": "48m"})
    assert _cli(spec, tmp_path / "s").returncode == 0
    cmd = ["disclose", "--store", str(tmp_path / "s")]
    sweep = cli(*cmd, "local-test", timeout=None, check=True)
    doc = yaml.safe_load(sweep.stdout)
    assert doc["tool"] == {"name": "fio", "version": find_fio().version}
    assert doc["measurement"]["ramp"] == "0s" and doc["measurement"]["measurement_interval"] == "1s"
    assert doc["configurations"][0]["facts"]["kind"] == "file"
    assert set(doc["job_files"]) == {"randread/4k/qd4x1", "write/4k/qd4x1"}
    assert doc["load_hosts"][0]["cpus"] >= 1
    run_id = ParquetStore(tmp_path / "s").runs("local-test")["run_id"].iloc[0]
    run = cli(*cmd, run_id, "--format", "json", "--fio-output", timeout=None, check=True)
    rec = json.loads(run.stdout)
    assert rec["run_id"] == run_id and rec["job_file"].startswith("; raidsweep fio job")
    assert rec["fio_json"]["fio version"] == find_fio().version
    missing = cli(*cmd, "0" * 24, timeout=None)
    assert missing.returncode == 2 and "no run or sweep 000000000000000000000000" in missing.stderr


def test_loop_device_allowed_by_name(tmp_path: Path, loop_device: tuple[str, Path]) -> None:
    dev, _ = loop_device
    store = _sweep(_spec(tmp_path, {"target": dev, "allow": [dev]}), tmp_path / "s")
    runs = _runs(store)
    assert [r["status"] for r in runs] == ["ok", "ok"]
    facts = json.loads(runs[0]["disclosure"])["facts"]
    assert facts["kind"] == "block"
    assert facts["device"]["type"] == "loop" and facts["device"]["size"] == 96 * 1024**2


def test_zram_device(tmp_path: Path, zram_device: str) -> None:
    store = _sweep(_spec(tmp_path, {"target": zram_device, "allow": [zram_device]}), tmp_path / "s")
    runs = _runs(store)
    assert [r["status"] for r in runs] == ["ok", "ok"]
    assert json.loads(runs[0]["disclosure"])["facts"]["device"]["name"].startswith("zram")


def test_device_not_in_allow_list_is_refused_and_untouched(
    tmp_path: Path, loop_device: tuple[str, Path]
) -> None:
    dev, backing = loop_device
    before = digest(backing)
    proc = _cli(_spec(tmp_path, {"target": dev}), tmp_path / "s")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "platform_options.allow" in proc.stderr and "not in the allow-list" in proc.stderr
    assert digest(backing) == before
    assert not (tmp_path / "s").exists()


def test_device_with_a_filesystem_or_mounted_is_refused(
    tmp_path: Path, loop_device: tuple[str, Path]
) -> None:
    dev, backing = loop_device
    _sh("mkfs.ext4", "-q", dev)
    before = digest(backing)
    spec = _spec(tmp_path, {"target": dev, "allow": [dev]})
    proc = _cli(spec, tmp_path / "s")
    assert proc.returncode == 2
    assert "carries a ext4 signature" in proc.stderr
    assert digest(backing) == before
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    # Read-only, so that the mounted filesystem itself writes nothing while we compare.
    _sh("mount", "-o", "ro", dev, str(mnt))
    try:
        before = digest(backing)
        spec = _spec(tmp_path, {"target": dev, "allow": [dev], "overwrite_signatures": True})
        proc = _cli(spec, tmp_path / "s")
        assert proc.returncode == 2
        assert f"{dev} is mounted" in proc.stderr
        assert digest(backing) == before
    finally:
        _sh("umount", str(mnt))
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(
    ("options", "matrix", "message"),
    [
        ({"target": "/nonexistent/raidsweep-target"}, {}, "does not exist"),
        ({"target": "{tmp}"}, {}, "neither a block device nor a regular file"),
        ({"target": "relative.img", "file_size": "1m"}, {}, "is not an absolute path"),
        ({"target": "{tmp}/t.img", "file_size": "16m"}, {}, "larger than"),
        ({"target": "{tmp}/t.img", "file_size": "1m", "fio": "fio-not-here"}, {}, "not installed"),
        ({"target": "{tmp}/t.img", "file_size": "1m", "colour": "blue"}, {}, "colour"),
    ],
)
def test_bad_target_is_reported_before_any_run(
    tmp_path: Path, options: dict[str, Any], matrix: dict[str, Any], message: str
) -> None:
    options = {k: v.replace("{tmp}", str(tmp_path)) for k, v in options.items()}
    proc = _cli(_spec(tmp_path, options, **matrix), tmp_path / "s")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    text = " ".join(proc.stderr.split())
    assert "platform_options" in text or "config_space" in text
    assert message in text
    assert not (tmp_path / "s").exists()
    assert not (tmp_path / "t.img").exists()


def test_config_space_must_be_one_point(tmp_path: Path) -> None:
    spec = _spec(tmp_path, {"target": str(tmp_path / "t.img"), "file_size": "48m"})
    data = yaml.safe_load(spec.read_text())
    data["config_space"]["raid_level"] = ["raid5", "raid10"]
    spec.write_text(yaml.safe_dump(data))
    proc = _cli(spec, tmp_path / "s")
    assert proc.returncode == 2
    assert "must be one point" in " ".join(proc.stderr.split())


def test_fio_error_is_a_failed_run_with_fios_message(
    tmp_path: Path, loop_device: tuple[str, Path]
) -> None:
    # A 4 KiB-sector device refuses 512-byte direct I/O: fio itself reports the error.
    dev, backing = loop_device
    subprocess.run(["losetup", "-d", dev], check=True)
    dev = _sh("losetup", "--find", "--show", "--sector-size", "4096", str(backing))
    try:
        spec = _spec(tmp_path, {"target": dev, "allow": [dev], "fill": False}, block_sizes=["512"])
        store = _sweep(spec, tmp_path / "s")
    finally:
        subprocess.run(["losetup", "-d", dev], check=False)
    runs = store.runs("local-test", include_failed=True)
    assert len(runs) == 2 and set(runs["status"]) == {"failed"}
    assert runs["error"].str.contains("Invalid argument").all(), runs["error"].tolist()
    assert runs["iops"].isna().all()  # never a zero


def test_fio_version_rule() -> None:
    assert Fio("/usr/bin/fio", "fio-3.33").version_tuple == (3, 33)
    assert Fio("/usr/bin/fio", "fio-2.2.10").version_tuple < MIN_FIO_VERSION
    assert find_fio().version_tuple >= MIN_FIO_VERSION
    assert shutil.which("fio")


def test_steady_state_is_judged_from_fios_interval_logs(tmp_path: Path) -> None:
    from sweeper.fio.steady import snia_steady_state

    options = {"target": str(tmp_path / "t.img"), "file_size": "48m"}
    steady_rule = {"round": "1s", "window": 5}
    spec = _spec(tmp_path, options, patterns=["randread"], runtime="6s", steady_state=steady_rule)
    store = _sweep(spec, tmp_path / "s")
    (run,) = _runs(store)
    judged = json.loads(run["disclosure"])["steady_state"]
    assert judged["rule"] == "SNIA PTS" and judged["round_s"] == 1
    assert len(judged["rounds_iops"]) >= 5
    again = snia_steady_state(judged["rounds_iops"][-5:], 5, 0.20, 0.10)
    assert run["steady"] is again.steady is judged["steady"]
    assert run["steady_range_pct"] == pytest.approx(again.range_pct)
    assert "write_iops_log=" in run["job_file"]
    # The logs were read and removed; the job files stay.
    jobs = tmp_path / "s" / "local-test" / "array" / "jobs"
    assert not list(jobs.glob("*.log")) and list(jobs.glob("*.fio"))


def test_a_run_too_short_to_judge_says_so(tmp_path: Path) -> None:
    options = {"target": str(tmp_path / "t.img"), "file_size": "48m"}
    store = _sweep(_spec(tmp_path, options, patterns=["randread"]), tmp_path / "s")
    (run,) = _runs(store)
    judged = json.loads(run["disclosure"])["steady_state"]
    assert run["steady"] is None and judged["steady"] is None
    assert "fewer than the window of 5" in judged["reason"]


def test_steady_round_must_be_whole_seconds(tmp_path: Path) -> None:
    options = {"target": str(tmp_path / "t.img"), "file_size": "48m"}
    proc = _cli(_spec(tmp_path, options, steady_state={"round": "1.5s"}), tmp_path / "s")
    assert proc.returncode == 2
    assert "matrix.steady_state.round" in proc.stderr and "whole number" in proc.stderr


def test_several_load_hosts_drive_the_target_at_once(tmp_path: Path) -> None:
    """Three fio servers on loopback addresses, started and stopped by the sweep."""
    from sweeper.ansible import run_playbook
    from tests.support.net import LOOPBACK_HOSTS as ADDRESSES
    from tests.support.net import accepts as _accepts
    from tests.support.net import free_port

    port = free_port(*ADDRESSES)
    loadgen = {
        f"load{i}": {
            "ansible_connection": "local",
            "ansible_host": address,
            "ansible_python_interpreter": "{{ ansible_playbook_python }}",
            "loadgen_port": port,
            "loadgen_state_dir": str(tmp_path / f"load{i}"),
        }
        for i, address in enumerate(ADDRESSES, 1)
    }
    inventory = yaml.safe_load(Path(INVENTORY).read_text())
    inventory["all"]["children"]["loadgen"] = {"hosts": loadgen}
    inv = tmp_path / "hosts.yml"
    inv.write_text(yaml.safe_dump(inventory))
    options = {"target": str(tmp_path / "t.img"), "file_size": "48m", "multi_host": True}
    steady = {"round": "1s", "window": 3}
    spec = _spec(tmp_path, options, patterns=["randread"], runtime="4s", steady_state=steady)
    data = yaml.safe_load(spec.read_text()) | {"inventory": str(inv)}
    spec.write_text(yaml.safe_dump(data))
    try:
        store = _sweep(spec, tmp_path / "s")
        (run,) = _runs(store)
        assert run["status"] == "ok", run["error"]
        hosts = json.loads(run["disclosure"])["load_hosts_results"]
        assert sorted(hosts) == [f"{a}:{port}" for a in ADDRESSES]
        total = sum(h["read"]["iops"] for h in hosts.values())
        described = json.loads(run["disclosure"])["load_hosts"]
        assert [h["hostname"] for h in described] == ["load1", "load2", "load3"]
        assert all(h["os"].startswith("Linux ") and h["cpus"] >= 1 for h in described)
        assert all(h["fio_version"] == find_fio().version for h in described)
        assert run["iops"] == pytest.approx(total, rel=1e-3)
        # Every host's interval log comes back to the controller; summed, they are the total.
        judged = json.loads(run["disclosure"])["steady_state"]
        assert len(judged["rounds_iops"]) >= 3 and judged["steady"] is not None
        assert judged["rounds_iops"][-1] == pytest.approx(total, rel=0.5)
        assert "All clients" in run["fio_json"] or "client_stats" in run["fio_json"]
        # The sweep stopped the servers it started.
        assert not any(_accepts(a, port) for a in ADDRESSES)
    finally:
        run_playbook("loadgen.yml", inv, {"loadgen_state": "stopped"})


def test_preconditioning_fills_twice_and_runs_each_cell_until_fio_finds_it_steady(
    tmp_path: Path,
) -> None:
    options = {
        "target": str(tmp_path / "t.img"),
        "file_size": "48m",
        "precondition": {"passes": 2, "limit": "20s"},
    }
    spec = _spec(tmp_path, options, patterns=["randwrite"], repetitions=2, runtime="2s")
    store = _sweep(spec, tmp_path / "s")
    runs = sorted(_runs(store), key=lambda r: r["repetition"])
    assert [r["status"] for r in runs] == ["ok", "ok"]
    first, second = (json.loads(r["disclosure"]) for r in runs)
    assert first["fill"]["passes"] == 2 and first["fill"]["bytes"] == 32 * 1024**2
    pre = first["precondition"]
    assert "steadystate=iops:10%\nss_dur=5\nss_ramp=0\n" in pre["job_file"]
    assert isinstance(pre["attained"], bool) and 0 < pre["seconds"] <= 20 + 60
    # fio stops a steady job early: a device that settles at once takes far less than the limit.
    if pre["attained"]:
        assert pre["seconds"] < 20
    assert "precondition" not in second  # once per cell, before its first measured run
    assert runs[0]["array_time_s"] >= pre["seconds"]


@pytest.mark.parametrize("engine", ["libaio", "io_uring", "sync", "psync"])
def test_every_engine_runs_against_the_target(tmp_path: Path, engine: str) -> None:
    options = {"target": str(tmp_path / "t.img"), "file_size": "48m"}
    # Synchronous engines keep one I/O in flight per job: a spec asks them for 1x2 (4x2 is
    # refused, tests/test_sync_engine_depth.py), the others for 4x2.
    depth = "1" if engine in ("sync", "psync") else "4"
    spec = _spec(
        tmp_path, options, patterns=["randread"], engine=engine, concurrency=[f"{depth}x2"]
    )
    (run,) = _runs(_sweep(spec, tmp_path / "s"))
    assert run["status"] == "ok", run["error"]
    assert f"ioengine={engine}\n" in run["job_file"]
    assert parse_fio_output(run["fio_json"]).job_options["ioengine"] == engine
    assert f"iodepth={depth}\nnumjobs=2\n" in run["job_file"]


def test_read_only_device_is_refused(tmp_path: Path) -> None:
    with devices.loop_device(tmp_path / "ro.img", 64, "--read-only") as dev:
        proc = _cli(_spec(tmp_path, {"target": dev, "allow": [dev]}), tmp_path / "s")
    assert proc.returncode == 2
    assert f"{dev} is not writable" in " ".join(proc.stderr.split())
    assert not (tmp_path / "s").exists()
