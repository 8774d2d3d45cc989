"""SNIA PTS purge and per-run telemetry with real fio: loop devices (which accept discards),
files (which do not, so the purge writes zeros), the local transport and the SSH transport
(here with hosts that are this machine), and a whole sweep read back through the CLI."""

from __future__ import annotations

import json
import mmap
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from sweeper.load import FioDriver, FioLoad, LocalFio, SshFio
from sweeper.load.telemetry import AGREEMENT_PCT
from sweeper.remote import RemoteHost
from sweeper.spec import Matrix
from tests.support import devices
from tests.support.cli import cli
from tests.support.specs import local_spec, quick_fio_matrix
from tests.support.sweeps import sweep

pytestmark = pytest.mark.integration
WRITE_ONLY = quick_fio_matrix("write", block_sizes=["64k"], runtime="1s", working_set="16m")
PATTERN = b"\xab" * 4096


@pytest.fixture
def loop_device(tmp_path: Path) -> Iterator[str]:
    with devices.loop_device(tmp_path / "loop.img", 32) as dev:
        yield dev


def _scribble(target: str, size: int = 1024**2) -> None:
    """Write a non-zero pattern at the start of ``target`` and make it reach the medium."""
    fd = os.open(target, os.O_WRONLY)
    try:
        for _ in range(size // len(PATTERN)):
            os.write(fd, PATTERN)
        os.fsync(fd)
    finally:
        os.close(fd)


def _head(target: str, size: int = 64 * 1024) -> bytes:
    fd = os.open(target, os.O_RDONLY | os.O_DIRECT)
    try:
        buf = mmap.mmap(-1, size)
        os.readv(fd, [buf])
        return bytes(buf)
    finally:
        os.close(fd)


def _prepare(tmp_path: Path, target: str, purge: str, transport: Any = None) -> FioDriver:
    load = FioLoad(target=target, fill=False, purge=purge)
    driver = FioDriver(
        load, tmp_path / "state", Matrix.model_validate(WRITE_ONLY), transport or LocalFio()
    )
    driver.prepare()
    return driver


def test_discard_purges_a_loop_device_and_says_so(tmp_path: Path, loop_device: str) -> None:
    _scribble(loop_device)
    assert _head(loop_device)[:4096] == PATTERN
    driver = _prepare(tmp_path, loop_device, "discard")
    try:
        record = driver.purge_record
        assert record["method"] == "discard" and record["asked"] == "discard"
        assert record["bytes"] == 32 * 1024**2 and record["seconds"] >= 0
        assert _head(loop_device) == bytes(64 * 1024)
        out = driver.run(Matrix.model_validate(WRITE_ONLY).cells()[0], 1)
        assert out.purge == record
    finally:
        driver.cleanup()


def test_zero_purge_writes_zeros_over_a_loop_device(tmp_path: Path, loop_device: str) -> None:
    _scribble(loop_device)
    driver = _prepare(tmp_path, loop_device, "zero")
    assert driver.purge_record["method"] == "zero"
    assert driver.purge_record["bytes"] == 32 * 1024**2
    assert _head(loop_device) == bytes(64 * 1024)
    assert "zero_buffers=1" in (tmp_path / "state" / "jobs" / "purge.fio").read_text()


def test_a_file_cannot_discard_so_its_purge_writes_zeros(tmp_path: Path) -> None:
    target = tmp_path / "target.img"
    target.write_bytes(PATTERN * 8192)  # 32 MiB
    driver = _prepare(tmp_path, str(target), "discard")
    record = driver.purge_record
    assert record["asked"] == "discard" and record["method"] == "zero"
    assert "does not accept discards" in record["why"]
    assert target.read_bytes()[: 64 * 1024] == bytes(64 * 1024)


def test_purge_voids_an_earlier_fill(tmp_path: Path, loop_device: str) -> None:
    load = FioLoad(target=loop_device, purge="discard")
    matrix = Matrix.model_validate(WRITE_ONLY | {"patterns": ["randread"], "block_sizes": ["4k"]})
    first = FioDriver(load, tmp_path / "state", matrix, LocalFio())
    first.prepare()
    again = FioDriver(load, tmp_path / "state", matrix, LocalFio())
    again.prepare()
    # The purge emptied the device: the fill is written again, not reused.
    assert "reused" not in again.fill_record
    assert _head(loop_device)[:4096] != bytes(4096)


def test_purge_and_telemetry_over_ssh(tmp_path: Path, loop_device: str) -> None:
    """The SSH transport's purge and telemetry are shell lines run there: here with a host
    that is this machine, on a loop device whose name is quoted into them."""
    _scribble(loop_device)
    host = RemoteHost("worker-1", "localhost", 22, None, None, (), local=True)
    driver = _prepare(tmp_path, loop_device, "discard", SshFio([host]))
    assert driver.purge_record["method"] == "discard"
    assert _head(loop_device) == bytes(64 * 1024)
    out = driver.run(Matrix.model_validate(WRITE_ONLY).cells()[0], 1)
    tel = out.telemetry
    assert tel["host"] == "worker-1" and tel["device"] == os.path.basename(loop_device)
    assert tel["target_is_device"] is True and tel["window"] == "measured"
    assert 0 <= tel["host_cpu_pct"] <= 100 and 0 <= tel["disk_util_pct"] <= 100
    assert tel["disk_iops"] > 0 and tel["disk_mbps"] > 0


def _spec(tmp_path: Path, options: dict[str, Any]) -> Path:
    matrix = quick_fio_matrix(
        "randread", concurrency=["4x1"], runtime="4s", ramp="1s", repetitions=2
    )
    return local_spec(tmp_path, "telemetry", options, matrix)


def test_a_sweep_stores_telemetry_that_agrees_with_fio(tmp_path: Path, loop_device: str) -> None:
    spec = _spec(tmp_path, {"target": loop_device, "allow": [loop_device], "purge": "discard"})
    check = cli("run", spec, "--store", tmp_path / "s", "--check")
    assert check.returncode == 0, check.stderr
    assert "purges the whole of" in check.stdout and "blkdiscard" in check.stdout
    store, _ = sweep(spec, tmp_path / "s")
    runs = store.runs("telemetry")
    assert len(runs) == 2 and (runs["status"] == "ok").all()
    for _, run in runs.iterrows():
        assert 0 < run["disk_util_pct"] <= 100
        assert 0 <= run["host_cpu_pct"] <= 100
        assert run["disk_await_ms"] > 0 and run["disk_queue"] > 0
        assert run["fio_usr_cpu_pct"] >= 0 and run["fio_sys_cpu_pct"] > 0
        # A direct randread straight on the device: the block layer saw fio's I/Os.
        off = abs(run["disk_iops"] - run["iops"]) / run["iops"] * 100
        assert off <= AGREEMENT_PCT, (run["disk_iops"], run["iops"])
        # This shared machine may well be saturated (then flagged, rightly); never for the
        # block layer's view.
        # An unflagged run has no flag: the store gives null (NaN once in a frame), never text.
        flag = run["telemetry_flag"]
        assert isinstance(flag, str) or pd.isna(flag), flag
        assert not isinstance(flag, str) or "block layer" not in flag, flag
    shown = cli("disclose", runs["run_id"].iloc[0], "--store", tmp_path / "s")
    assert shown.returncode == 0, shown.stderr
    assert "\n  telemetry:\n" in shown.stdout and "    disk_iops: " in shown.stdout
    assert "\n  purge:\n" in shown.stdout and "    method: discard\n" in shown.stdout
    detail = store.run_detail(runs["run_id"].iloc[0]) or {}
    tel = json.loads(detail["disclosure"])["telemetry"]
    assert tel["window"] == "measured" and tel["samples"] >= 3


def test_nvme_format_is_refused_for_a_loop_device(tmp_path: Path, loop_device: str) -> None:
    _scribble(loop_device)
    spec = _spec(tmp_path, {"target": loop_device, "allow": [loop_device], "purge": "nvme-format"})
    done = cli("run", spec, "--store", tmp_path / "s")
    assert done.returncode == 2
    assert "platform_options.purge" in done.stderr and "NVMe namespace" in done.stderr
    assert _head(loop_device)[:4096] == PATTERN
    assert not (tmp_path / "s" / "telemetry").exists()
