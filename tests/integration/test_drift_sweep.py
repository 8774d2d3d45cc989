"""The drift cell is repeated back to back on every configuration and reported."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.support.cli import cli as raidsweep
from tests.support.paths import ROOT
from tests.support.specs import class_measuring, quick_base

pytestmark = pytest.mark.integration


def test_drift_cell_runs_its_repetitions_and_is_reported(tmp_path: Path) -> None:
    spec = quick_base()
    spec |= {"name": "drift", "inventory": str(ROOT / "inventories/sim/hosts.yml")}
    spec["config_space"] |= {"raid_level": ["raid5", "raid10"], "layout": ["single_rank"]}
    spec["matrix"] |= {
        "patterns": ["randwrite", "randread"],
        "block_sizes": ["4k"],
        "concurrency": ["1x16"],
        "repetitions": 2,
        "drift": {"cell": "randwrite/4k/1x16", "repetitions": 12},
    }
    spec["classes"] = [class_measuring(tmp_path, spec["matrix"])]
    spec["matrix"].pop("extra_cells")  # no shipped class ranked, none of their cells
    path = tmp_path / "drift.yaml"
    path.write_text(yaml.safe_dump(spec))
    store = ["--store", str(tmp_path / "s")]
    plan = raidsweep("run", path, *store, "--check", timeout=None, check=True)
    said = " ".join(plan.stdout.split())  # 2 × (2 cells × 2 + 10 more)
    assert "× 2 repetition(s) + 2 × 10 more of the drift cell = 28 runs" in said
    raidsweep("run", path, *store, "-q", timeout=None, check=True)
    from sweeper.store import ParquetStore

    runs = ParquetStore(tmp_path / "s").runs("drift")
    counts = runs.groupby(["config_key", "cell_key"]).size().to_dict()
    assert set(counts.values()) == {2, 12} and len(runs) == 28
    # The simulated array answers in milliseconds; its runs follow each other on its own
    # clock, one run's array time after another (the wall clock made 12 runs 0.00 h apart
    # and a steady array drift by thousands of % an hour).
    from recommender.drift import drift_table

    table = drift_table(runs, "randwrite/4k/qd1x16")
    took = runs[runs["cell_key"] == "randwrite/4k/qd1x16"]["array_time_s"]
    assert table["hours"].tolist() == pytest.approx([11 * took.mean() / 3600] * 2, rel=0.05)
    assert (table["slope_pct_per_h"].abs() < 50).all(), table
    out = raidsweep(
        "drift",
        "drift",
        *store,
        env={"PATH": ""},
        columns=200,
        inherit_env=False,
        timeout=None,
        check=True,
    )
    assert "drift of randwrite/4k/qd1x16" in out.stdout
    assert "raid5/single_rank/wb-ra" in out.stdout and "raid10/single_rank/wb-ra" in out.stdout
    narrow = raidsweep("drift", "drift", *store, columns=80, timeout=None, check=True).stdout
    for key in ("raid5/single_rank/wb-ra", "raid10/single_rank/wb-ra"):
        assert f"{key}: drift" in narrow  # whole, not cut to "raid10/sin…"
    assert max(len(line) for line in narrow.splitlines()) <= 80
    from recommender.report import render_report

    results = ParquetStore(tmp_path / "s")
    html = render_report(results, results.get_sweep("drift") or {})
    assert "Long-run drift of randwrite/4k/qd1x16" in html
    bad = spec | {"name": "bad"}
    bad["matrix"] = spec["matrix"] | {"drift": {"cell": "write/1m/qd1x1", "repetitions": 5}}
    path.write_text(yaml.safe_dump(bad))
    proc = raidsweep("run", path, *store, timeout=None)
    assert proc.returncode == 2 and "is not a cell of this matrix" in proc.stderr
