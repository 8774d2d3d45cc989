"""The fio overhead benchmark's sweep runs with real fio (its spec must be one raidsweep
accepts: a class that scores the benchmark's cell), and gives what the benchmark reads."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from sweeper.store import ParquetStore
from tests.support.paths import ROOT

pytestmark = pytest.mark.integration


def _benchmark():  # noqa: ANN202 - the benchmark script as a module
    spec = importlib.util.spec_from_file_location(
        "fio_overhead", ROOT / "benchmarks" / "fio_overhead.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_benchmarks_sweep_runs_with_telemetry(tmp_path: Path) -> None:
    bench = _benchmark()
    target = str(tmp_path / "target.img")
    store = ParquetStore(tmp_path / "store")
    iops, detail, wall = bench.through_raidsweep(tmp_path, store, target, 0)
    assert len(iops) == bench.REPS and min(iops) > 0
    assert wall > bench.REPS * (bench.RAMP_S + bench.RUNTIME_S)
    assert detail["play_s"] > 0 and len(detail["fio_overheads"]) == bench.REPS
    assert f"; raidsweep fio job: {bench.CELL}" in detail["job_file"]
    runs = store.runs("overhead-0")
    assert runs["host_cpu_pct"].notna().all() and runs["fio_sys_cpu_pct"].notna().all()
