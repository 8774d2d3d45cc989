"""Feature impact from a real sweep: snapshots held during the runs cost writes, not reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from recommender.data import load_recommendations
from tests.support.specs import quick_base, write_spec
from tests.support.sweeps import sweep

pytestmark = pytest.mark.integration


def test_snapshots_keep_reads_and_cost_small_writes(tmp_path: Path) -> None:
    spec = quick_base()
    spec["name"] = "snap"
    spec["config_space"] |= {
        "raid_level": ["raid5"],
        "layout": ["single_rank"],
        "snapshots": [False, True],
    }
    spec["matrix"] |= {
        "patterns": ["randread", "randwrite", "write"],
        "block_sizes": ["4k", "8k"],
        "concurrency": ["1x1", "1x16"],
        "repetitions": 2,
    }
    store, outcome = sweep(write_spec(tmp_path, spec, "snap"), tmp_path / "s")
    assert outcome.configurations_done == 2
    recs = {r.name: r for r in load_recommendations(store, store.get_sweep("snap"))}
    redo = recs["redo_log"].impact
    assert list(redo["configuration"]) == ["raid5/single_rank/wb-ra"]
    assert list(redo["feature"]) == ["snapshots"]
    # Copy-on-write of first writes: the redo log's small writes lose a visible share.
    assert float(redo["kept_pct"].iloc[0]) < 95
    # data_file here is random reads only (its randrw70 cell is not in this matrix): kept.
    assert float(recs["data_file"].impact["kept_pct"].iloc[0]) > 95
