"""The drift cell is repeated back to back on every configuration and reported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

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
    path = tmp_path / "drift.yaml"
    path.write_text(yaml.safe_dump(spec))
    cli = [sys.executable, "-m", "sweeper.cli"]
    store = ["--store", str(tmp_path / "s")]
    plan = subprocess.run([*cli, "run", str(path), *store, "--check"], capture_output=True,
                          text=True, check=True)  # fmt: skip
    assert "= 28 runs" in " ".join(plan.stdout.split())  # 2 × (2 cells × 2 + 10 more)
    subprocess.run([*cli, "run", str(path), *store, "-q"], capture_output=True, check=True)
    from sweeper.store import ParquetStore

    runs = ParquetStore(tmp_path / "s").runs("drift")
    counts = runs.groupby(["config_key", "cell_key"]).size().to_dict()
    assert set(counts.values()) == {2, 12} and len(runs) == 28
    out = subprocess.run([*cli, "drift", "drift", *store], capture_output=True, text=True,
                         check=True, env={"COLUMNS": "200", "PATH": ""})  # fmt: skip
    assert "drift of randwrite/4k/qd1x16" in out.stdout
    assert "raid5/single_rank/wb-ra" in out.stdout and "raid10/single_rank/wb-ra" in out.stdout
    from recommender.report import render_report

    results = ParquetStore(tmp_path / "s")
    html = render_report(results, results.get_sweep("drift") or {})
    assert "Long-run drift of randwrite/4k/qd1x16" in html
    bad = spec | {"name": "bad"}
    bad["matrix"] = spec["matrix"] | {"drift": {"cell": "write/1m/qd1x1", "repetitions": 5}}
    path.write_text(yaml.safe_dump(bad))
    proc = subprocess.run([*cli, "run", str(path), *store], capture_output=True, text=True)
    assert proc.returncode == 2 and "is not a cell of this matrix" in proc.stderr
