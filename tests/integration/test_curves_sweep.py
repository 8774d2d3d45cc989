"""Concurrency curves on the simulated all-flash array: Speed, Optimum, Maximum, early stop."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from recommender.curves import GAIN_VS_LATENCY, KNEE_RULE, curves_table
from sweeper.spec import load_spec
from sweeper.store.records import config_folder
from tests.support.cli import cli as raidsweep
from tests.support.paths import ROOT
from tests.support.sweeps import sweep

pytestmark = pytest.mark.integration
WORKERS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]


def _spec(tmp_path: Path, **matrix: Any) -> Path:
    spec = {
        "name": "curves",
        "platform": "sim",
        "inventory": str(ROOT / "inventories/sim/hosts.yml"),
        "platform_options": {"profile": "allflash-nvme"},
        "config_space": {"raid_level": ["raid10"], "layout": ["single_rank"]},
        "matrix": {
            "patterns": ["randread"],
            "block_sizes": ["8k"],
            # Listed out of order on purpose: a curve is swept from the fewest I/Os in flight.
            "concurrency": [f"1x{n}" for n in reversed(WORKERS)],
            "engine": "sync",
            "runtime": "60s",
            "ramp": "5s",
            "repetitions": 1,
            "working_set": "100g",
        }
        | matrix,
        "classes": ["data_file"],
    }
    path = tmp_path / "spec.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


_sweep = sweep


def test_whole_curve_has_speed_knee_and_maximum(tmp_path: Path) -> None:
    store, outcome = _sweep(_spec(tmp_path), tmp_path / "s")
    assert not outcome.cells_skipped
    (row,) = curves_table(store.runs("curves")).itertuples()
    assert [p.outstanding for p in row.points] == WORKERS
    assert row.speed.outstanding == 1
    assert row.maximum.iops == max(p.iops for p in row.points)
    assert row.method == GAIN_VS_LATENCY
    # The knee lies where latency has barely moved yet throughput has grown most of the way.
    assert 8 <= row.optimum.outstanding <= 256
    assert row.optimum.latency_ms < 2 * row.speed.latency_ms
    assert row.optimum.iops > 0.5 * row.maximum.iops


def test_curve_stops_once_latency_passes_the_limit(tmp_path: Path) -> None:
    store, outcome = _sweep(_spec(tmp_path, curve_stop={"latency_limit": "200us"}), tmp_path / "s")
    runs = store.runs("curves").sort_values("numjobs")
    lat = runs["read_lat_mean_ms"].to_list()
    assert lat[-1] > 0.2 and all(v <= 0.2 for v in lat[:-1])
    measured = runs["numjobs"].to_list()
    assert measured == WORKERS[: len(measured)] and len(measured) < len(WORKERS)
    assert len(outcome.cells_skipped) == len(WORKERS) - len(measured)
    assert all("above the limit of 0.2 ms" in r for r in outcome.cells_skipped.values())
    cli = raidsweep(
        "curves",
        "--store",
        tmp_path / "s",
        env={"PATH": ""},
        columns=200,
        inherit_env=False,
        timeout=None,
        check=True,
    )
    assert "stopped: latency" in cli.stdout and KNEE_RULE in " ".join(cli.stdout.split())
    # Run again, the sweep finds the configuration complete: nothing past the stop is run.
    _, again = _sweep(_spec(tmp_path, curve_stop={"latency_limit": "200us"}), tmp_path / "s")
    assert again.runs_written == 0 and len(store.runs("curves")) == len(measured)
    # The highest point reached deleted: the runs below it no longer show where the curve
    # stopped, but the study recorded the configuration's good runs; it is measured again.
    top = runs.iloc[-1]
    folder = tmp_path / "s" / "curves" / "runs" / config_folder("curves", top["config_key"])
    (folder / f"{top['run_id']}.parquet").unlink()
    _, resumed = _sweep(_spec(tmp_path, curve_stop={"latency_limit": "200us"}), tmp_path / "s")
    assert resumed.runs_written == 1, resumed.warnings
    assert any(f"measured again: {top['cell_key']} #1" in w for w in resumed.warnings)
    assert sorted(store.runs("curves")["numjobs"]) == measured


def test_latency_limit_needs_a_unit(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="curve_stop.latency_limit"):
        load_spec(_spec(tmp_path, curve_stop={"latency_limit": "20"}))


def test_report_shows_the_curves(tmp_path: Path) -> None:
    from recommender.report import render_report

    store, _ = _sweep(_spec(tmp_path), tmp_path / "s")
    html = render_report(store, store.get_sweep("curves") or {})
    start, end = html.index('<h2 id="curves">'), html.index('<h2 id="disclosure">')
    section = html[start:end]
    assert "raid10/single_rank/wb-ra · randread/8k" in section
    (row,) = curves_table(store.runs("curves")).itertuples()
    for point in (row.speed, row.optimum, row.maximum):  # "N: IOPS @ latency"
        assert f"<td>{point.outstanding}: {point.iops:,.0f} @ " in section
    assert row.speed.outstanding == 1 and "<svg" in section


def test_each_active_range_is_a_curve_of_its_own(tmp_path: Path) -> None:
    store, outcome = _sweep(
        _spec(tmp_path, curve_stop={"latency_limit": "200us"}, active_range=[50, 100]),
        tmp_path / "s",
    )
    runs = store.runs("curves")
    for ws in (50, 100):
        mine = runs[runs["active_pct"] == ws].sort_values("numjobs")
        lat = mine["read_lat_mean_ms"].to_list()
        # Each range ran up to its own first point above the limit, and no further.
        assert lat[-1] > 0.2 and all(v <= 0.2 for v in lat[:-1])
        assert mine["numjobs"].to_list() == WORKERS[: len(mine)]
    assert len(outcome.cells_skipped) == 2 * len(WORKERS) - len(runs)
