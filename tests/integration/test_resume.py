"""Killing a sweep half-way (SIGKILL) and running it again: no duplicated, no missing run."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from recommender.data import load_rankings
from sweeper.store import ParquetStore
from tests.support.paths import QUICK

pytestmark = pytest.mark.integration


def count_parts(store: Path) -> int:
    return sum(1 for _ in store.glob("quick/runs/*/*.parquet"))


def start(store: Path, *extra: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "sweeper.cli", "run", str(QUICK), "--store", str(store), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: the kill reaches ansible-runner too
    )


def wait_for_parts(proc: subprocess.Popen, store: Path, n: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while count_parts(store) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "sweep made no progress"
        time.sleep(0.05)


def test_sigkill_half_way_then_resume(tmp_path: Path, quick_store: ParquetStore) -> None:
    store = tmp_path / "store"
    proc = start(store, "-q")
    wait_for_parts(proc, store, 400)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    killed_at = count_parts(store)
    assert 400 <= killed_at < 1080

    proc = start(store, "-q")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    # the resumed sweep writes exactly the runs the kill left missing
    assert f"{1080 - killed_at} run(s) written" in " ".join(out.split())

    resumed = ParquetStore(store)
    runs = resumed.runs("quick", include_failed=True)
    assert len(runs) == 1080
    assert not runs.duplicated(["config_key", "cell_key", "repetition"]).any()
    assert list(store.rglob("*.tmp")) == []
    # same seed, same figures: the ranking equals that of an uninterrupted sweep
    a, _ = load_rankings(resumed, resumed.get_sweep("quick"))
    b, _ = load_rankings(quick_store, quick_store.get_sweep("quick"))
    cols = ["class", "rank", "config_key", "score"]
    assert a[cols].to_dict("records") == b[cols].to_dict("records")


def test_ctrl_c_stops_cleanly_and_resumes(tmp_path: Path) -> None:
    store = tmp_path / "store"
    proc = start(store, "-q")
    wait_for_parts(proc, store, 100)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "interrupted" in out and "again to resume" in " ".join(out.split())
    stopped_at = count_parts(store)
    assert 100 <= stopped_at < 1080
    proc = start(store, "-q")
    proc.communicate(timeout=300)
    assert proc.returncode == 0
    assert count_parts(store) == 1080
