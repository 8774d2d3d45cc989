"""Killing a sweep half-way (SIGKILL) and running it again: no duplicated, no missing run."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from recommender.data import load_rankings
from sweeper.store import ParquetStore
from tests.support.sweeps import count_parts, start_quick, wait_for_parts

pytestmark = pytest.mark.integration


def test_sigkill_half_way_then_resume(tmp_path: Path, quick_store: ParquetStore) -> None:
    store = tmp_path / "store"
    proc = start_quick(store, "-q")
    wait_for_parts(proc, store, 400)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    killed_at = count_parts(store)
    assert 400 <= killed_at < 1134

    proc = start_quick(store, "-q")
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    # the resumed sweep writes exactly the runs the kill left missing
    assert f"{1134 - killed_at} run(s) written, {killed_at} already stored" in " ".join(out.split())

    resumed = ParquetStore(store)
    runs = resumed.runs("quick", include_failed=True)
    assert len(runs) == 1134
    assert not runs.duplicated(["config_key", "cell_key", "repetition"]).any()
    assert list(store.rglob("*.tmp")) == []
    # same seed, same figures: the ranking equals that of an uninterrupted sweep
    a, _ = load_rankings(resumed, resumed.get_sweep("quick"))
    b, _ = load_rankings(quick_store, quick_store.get_sweep("quick"))
    cols = ["class", "rank", "config_key", "score"]
    assert a[cols].to_dict("records") == b[cols].to_dict("records")


def test_ctrl_c_stops_cleanly_and_resumes(tmp_path: Path) -> None:
    store = tmp_path / "store"
    proc = start_quick(store, "-q")
    wait_for_parts(proc, store, 100)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "interrupted" in out and "again to resume" in " ".join(out.split())
    stopped_at = count_parts(store)
    assert 100 <= stopped_at < 1134
    proc = start_quick(store, "-q")
    proc.communicate(timeout=300)
    assert proc.returncode == 0
    assert count_parts(store) == 1134
