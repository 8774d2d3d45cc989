"""Composite cells with real fio on a loop device: an OLTP-like cell (8k random 70/30 data
I/O and 64k sequential log writes at the same time) measured as one run, scored by a class,
with each stream's own figures stored; and the same cell on the simulated array."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from tests.support import devices
from tests.support.cli import cli
from tests.support.paths import SIM_INVENTORY
from tests.support.specs import local_spec, quick_fio_matrix, write_spec
from tests.support.sweeps import sweep

pytestmark = pytest.mark.integration
STREAMS = ["randrw70/8k/qd4x1", "write/64k/qd1x1"]
KEY = "+".join(STREAMS)
RUNTIME_S = 3
MATRIX = quick_fio_matrix(
    "randread", block_sizes=["8k"], runtime=f"{RUNTIME_S}s", composite=[STREAMS]
)


@pytest.fixture
def loop_device(tmp_path: Path) -> Iterator[str]:
    with devices.loop_device(tmp_path / "loop.img", 32) as dev:
        yield dev


def _class(folder: Path) -> str:
    path = folder / "oltp_mix.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "name": "oltp_mix",
                "description": "data and log I/O at the same time",
                "metric": "iops",
                "cells": [{"cell": KEY, "weight": 1}],
                "limits": [{"metric": "write_lat_p99", "max": "10s"}],
            }
        )
    )
    return str(path)


def test_a_composite_cell_is_one_run_with_each_streams_figures(
    tmp_path: Path, loop_device: str
) -> None:
    options = {"target": loop_device, "allow": [loop_device], "fill": False}
    spec = local_spec(tmp_path, "composite", options, MATRIX, classes=[_class(tmp_path)])
    store, _ = sweep(spec, tmp_path / "s")
    runs = store.runs("composite").set_index("cell_key")
    run = runs.loc[KEY]
    assert run["status"] == "ok" and run["pattern"] == "randrw70+write"
    # Together, not one after the other: the run took about one runtime, not two.
    assert run["wall_s"] < 1.6 * RUNTIME_S, run["wall_s"]
    streams = json.loads(run["streams"])
    assert [s["cell"] for s in streams] == STREAMS
    data, log = streams
    assert data["read_iops"] > 0 and data["write_iops"] > 0 and "read_iops" not in log
    assert log["write_iops"] > 0 and log["write_mbps"] > 0
    # The run's figures are the streams' together. Each rate is I/Os over a runtime: a
    # stream's over its own, the run's over the longest. The streams end milliseconds apart,
    # so their rates add up to the run's closely, and never to less.
    for figure, parts in (
        ("read_iops", [data["read_iops"]]),
        ("write_iops", [data["write_iops"], log["write_iops"]]),
        ("iops", [data["iops"], log["iops"]]),
    ):
        assert run[figure] == pytest.approx(sum(parts), rel=2e-3), figure
        assert run[figure] <= sum(parts) * (1 + 1e-9), figure
    job = (store.run_detail(run["run_id"]) or {})["job_file"]
    assert job.count("new_group\n") == 1 and "\nstonewall" not in job
    shown = cli("disclose", run["run_id"], "--store", tmp_path / "s")
    assert shown.returncode == 0, shown.stderr
    assert "\n  streams:\n" in shown.stdout and f"cell: {STREAMS[1]}" in shown.stdout
    doc = cli("recommend", "composite", "--store", tmp_path / "s", "--json")
    assert doc.returncode == 0, doc.stderr
    ranking = json.loads(doc.stdout)["classes"][0]["rankings"][0]
    assert ranking["score"] == pytest.approx(run["iops"])


def test_the_simulated_array_runs_composite_cells(tmp_path: Path) -> None:
    spec = {
        "name": "composite",
        "platform": "sim",
        "inventory": str(SIM_INVENTORY),
        "platform_options": {"profile": "ds8800-like"},
        "config_space": {"raid_level": ["raid10"], "layout": ["single_rank"]},
        "matrix": MATRIX,
        "classes": [_class(tmp_path)],
    }
    store, _ = sweep(write_spec(tmp_path, spec, "composite"), tmp_path / "s")
    run = store.runs("composite").set_index("cell_key").loc[KEY]
    streams = json.loads(run["streams"])
    assert [s["cell"] for s in streams] == STREAMS
    # each rate is fio's group rate (I/Os over the longest runtime); the streams' runtimes
    # differ by milliseconds, so their rates add up to the run's closely
    assert run["iops"] == pytest.approx(sum(s["iops"] for s in streams), rel=2e-3)
