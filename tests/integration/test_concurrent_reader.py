"""The app's queries, in a loop, while a sweep writes: zero errors, only whole runs seen."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from recommender.data import heatmap_frame, load_recommendations
from sweeper.status import sweep_status
from sweeper.store import ParquetStore
from tests.support.campaign import FIGURES
from tests.support.sweeps import start_quick

pytestmark = pytest.mark.integration


def test_reads_throughout_a_sweep(tmp_path: Path) -> None:
    root = tmp_path / "store"
    proc = start_quick(root, "-q")
    store = ParquetStore(root)
    reads, errors, seen = 0, [], [0]
    while proc.poll() is None:
        record = store.get_sweep("quick")
        if record is None:
            time.sleep(0.05)
            continue
        try:
            runs = store.runs("quick")
            # A whole run has its figures; a half-written one would show as nulls or fail.
            assert runs["iops"].notna().all() and (runs["status"] == "ok").all()
            assert len(runs) >= seen[-1], "a run disappeared"
            seen.append(len(runs))
            if len(runs):
                load_recommendations(store, record, runs)
                heatmap_frame(runs, "randread", "iops", "qd1x16")
            sweep_status(store, "quick")
            reads += 1
        except Exception as exc:  # noqa: BLE001 - every kind of failure counts
            errors.append(repr(exc))
    out, err = proc.communicate()
    assert proc.returncode == 0, err
    assert errors == []
    assert reads >= 10 and len(set(seen)) >= 5  # the reads saw the sweep grow
    FIGURES["fault campaign: concurrent reader"] = [
        f"reads during the sweep: {reads}; errors: {len(errors)}; run counts seen grew "
        f"{seen[1]} → {seen[-1]} over {len(set(seen))} distinct states"
    ]
