"""Rate cells with real fio on a loop device: Poisson arrivals at a share of the maximum IOPS
the configuration's closed loop gave (its concurrency curve, or a saturating run first); the
target and the achieved rate stored with the run; the shipped class that asks for latency
at 70% load ranks a simulated sweep."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from recommender.classes import load_class
from recommender.curves import curves_table
from recommender.views import heatmap_frame
from sweeper.load import FioDriver, FioLoad, LocalFio
from sweeper.spec import Matrix
from sweeper.workload import WorkloadCell
from tests.support import devices
from tests.support.cli import cli
from tests.support.paths import SIM_INVENTORY
from tests.support.specs import local_spec, quick_fio_matrix, write_spec
from tests.support.sweeps import sweep

pytestmark = pytest.mark.integration
#: how far the achieved rate may fall from the target on a busy 2-core machine, in percent
RATE_TOLERANCE_PCT = 15
MATRIX = quick_fio_matrix("randread", concurrency=["4x1"], runtime="3s", rate=[50])


@pytest.fixture
def loop_device(tmp_path: Path) -> Iterator[str]:
    with devices.loop_device(tmp_path / "loop.img", 32) as dev:
        yield dev


def test_a_rate_cell_runs_at_a_share_of_the_curves_maximum(
    tmp_path: Path, loop_device: str
) -> None:
    options = {"target": loop_device, "allow": [loop_device], "fill": False}
    store, _ = sweep(local_spec(tmp_path, "rate", options, MATRIX), tmp_path / "s")
    runs = store.runs("rate").set_index("cell_key")
    closed, rated = runs.loc["randread/4k/qd4x1"], runs.loc["randread/4k/qd4x1/rate50"]
    assert closed["rate_pct"] != closed["rate_pct"]  # null: a closed loop
    assert rated["rate_pct"] == 50
    assert rated["rate_max_iops"] == pytest.approx(closed["iops"])
    assert rated["rate_target_iops"] == pytest.approx(closed["iops"] / 2)
    off = abs(rated["iops"] - rated["rate_target_iops"]) / rated["rate_target_iops"] * 100
    assert off <= RATE_TOLERANCE_PCT, (rated["iops"], rated["rate_target_iops"])
    detail = store.run_detail(rated["run_id"]) or {}
    job = detail["job_file"]
    assert f"rate_iops={round(closed['iops'] / 2)}\n" in job and "rate_process=poisson\n" in job
    shown = cli("disclose", rated["run_id"], "--store", tmp_path / "s")
    assert shown.returncode == 0, shown.stderr
    assert "\n  rate:\n" in shown.stdout and "    max_from: curve\n" in shown.stdout


def test_a_rate_cell_without_its_curve_measures_the_maximum_first(
    tmp_path: Path, loop_device: str
) -> None:
    driver = FioDriver(
        FioLoad(target=loop_device, fill=False),
        tmp_path / "state",
        Matrix.model_validate(MATRIX),
        LocalFio(),
    )
    driver.prepare()
    try:
        out = driver.run(WorkloadCell.parse("randread/4k/qd4x1/rate50"), 1)
    finally:
        driver.cleanup()
    assert out.exit_code == 0, out.stderr
    first = out.rate["saturating_run"]
    assert out.rate["max_from"] == "saturating run" and first["cell"] == "randread/4k/qd4x1"
    assert first["iops"] > 0 and out.rate["target_iops"] == pytest.approx(first["iops"] / 2)
    assert (tmp_path / "state" / "jobs" / "randread_4k_qd4x1-saturating.fio").exists()
    assert out.array_time_s >= first["seconds"]


def test_the_shipped_class_bounds_latency_at_70_pct_load(tmp_path: Path) -> None:
    wclass = load_class("oltp_at_load")
    assert [c.cell for c in wclass.cells] == ["randrw70/8k/qd1x16/rate70"]
    spec = {
        "name": "atload",
        "platform": "sim",
        "inventory": str(SIM_INVENTORY),
        "platform_options": {"profile": "ds8800-like"},
        "config_space": {
            "raid_level": ["raid5", "raid10"],
            "layout": ["single_rank"],
            "cache_policy": ["wb-ra"],
        },
        "matrix": {
            "patterns": ["randrw70"],
            "block_sizes": ["8k"],
            "concurrency": ["1x16"],
            "engine": "psync",
            "runtime": "60s",
            "ramp": "0s",
            "repetitions": 2,
            "rate": [70],
        },
        "classes": ["oltp_at_load"],
        "study": {"mode": "grid", "seed": 1},
    }
    store, _ = sweep(write_spec(tmp_path, spec, "atload"), tmp_path / "s")
    runs = store.runs("atload")
    rated = runs[runs["cell_key"] == "randrw70/8k/qd1x16/rate70"]
    closed = runs[runs["cell_key"] == "randrw70/8k/qd1x16"]
    assert len(rated) == 4 and (rated["rate_target_iops"] > 0).all()
    # At 70% of the maximum the simulated array answers faster than when saturated.
    for key in closed["config_key"].unique():
        at_load = rated.loc[rated["config_key"] == key, "read_lat_p99_ms"].mean()
        saturated = closed.loc[closed["config_key"] == key, "read_lat_p99_ms"].mean()
        assert at_load < saturated, (key, at_load, saturated)
    # Heatmaps and curves show closed loops only: a rate run is no point of them.
    grid = heatmap_frame(runs, "randrw70", "iops", "qd1x16")
    assert (grid["n"] == 2).all() and len(grid) == 2
    assert curves_table(runs).empty  # one closed-loop concurrency: no curve
    doc = cli("recommend", "atload", "--store", tmp_path / "s", "--json")
    assert doc.returncode == 0, doc.stderr
    assert '"name": "oltp_at_load"' in doc.stdout
