"""Active working set as a matrix dimension, on the simulated DS8800-like array."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from recommender.classes import load_classes
from recommender.data import heatmap_frame
from recommender.scoring import rank_classes
from sweeper.spec import load_spec
from tests.support.paths import ROOT
from tests.support.specs import quick_base, write_spec
from tests.support.sweeps import sweep

pytestmark = pytest.mark.integration


def test_smaller_active_range_means_shorter_seeks(tmp_path: Path) -> None:
    spec = quick_base()
    spec |= {"name": "ws", "inventory": str(ROOT / "inventories/sim/hosts.yml")}
    # the random cells' active range alone: data_file is what the test ranks, no extra cells
    spec["classes"] = ["data_file"]
    spec["matrix"].pop("extra_cells")
    spec["config_space"] |= {"raid_level": ["raid5"], "layout": ["single_rank"]}
    spec["matrix"] |= {
        "patterns": ["randread", "randwrite"],
        "block_sizes": ["4k", "8k"],
        "concurrency": ["1x1", "1x16"],
        "active_range": [10, 100],
        "repetitions": 1,
    }
    store, _ = sweep(write_spec(tmp_path, spec, "ws"), tmp_path / "s")
    runs = store.runs("ws")
    assert set(runs["active_pct"]) == {10, 100}
    assert len(runs) == 2 * 2 * 2 * 2
    detail = store.run_detail(runs[runs["cell_key"] == "randread/8k/qd1x16/ws10"].run_id.iloc[0])
    assert detail is not None and f"size={36 * 1024**3}\n" in detail["job_file"]
    # Short-stroking: drive heads travel over a tenth of the span, so random reads are faster.
    narrow = heatmap_frame(runs, "randread", "iops", "qd1x16", 10)
    wide = heatmap_frame(runs, "randread", "iops", "qd1x16", 100)
    assert (narrow["value"].to_numpy() > 1.1 * wide["value"].to_numpy()).all()
    # A class's cells (no range named) are the whole working set: ws100.
    (row,) = rank_classes(runs, load_classes(["data_file"])).itertuples()
    assert row.cells_measured == 1  # randread/8k/qd1x16 at ws100; the others not in the matrix
    whole = runs[runs["cell_key"] == "randread/8k/qd1x16/ws100"]["iops"].iloc[0]
    assert row.score == pytest.approx(whole)


def test_active_range_outside_one_to_hundred_is_refused(tmp_path: Path) -> None:
    spec = quick_base()
    spec["inventory"] = str(ROOT / "inventories/sim/hosts.yml")
    spec["matrix"]["active_range"] = [0, 100]
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(spec))
    with pytest.raises(Exception, match="matrix.active_range"):
        load_spec(path)
