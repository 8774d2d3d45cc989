"""A synchronous engine keeps one I/O in flight per job: a spec file asking it for more is
refused (it would measure the iodepth-1 cell again under another name), while a sweep recorded
before that rule stays readable."""

from __future__ import annotations

import json
from pathlib import Path

from recommender.data import record_problems
from tests.support.cli import finished_tiny, invoke
from tests.support.specs import problems_of, quick_base, write_spec


def test_a_spec_file_asking_a_sync_engine_for_depth_is_refused(tmp_path: Path) -> None:
    spec = quick_base() | {"name": "depth"}
    spec["matrix"] |= {"engine": "psync", "concurrency": ["1x16", "4x16"]}
    (problem,) = problems_of(write_spec(tmp_path, spec, "depth"))
    assert "matrix: concurrency[1]: qd4x16 asks for 4 I/Os in flight per job" in problem
    assert "write 1x16, or set engine to libaio or io_uring" in problem


def test_the_same_depth_with_an_asynchronous_engine_is_taken(tmp_path: Path) -> None:
    from sweeper.spec import load_spec

    spec = quick_base() | {"name": "depth"}
    spec["matrix"] |= {"engine": "libaio", "concurrency": ["1x16", "4x16"]}
    loaded, _ = load_spec(write_spec(tmp_path, spec, "depth"))
    assert [c.name for c in loaded.matrix.concurrency] == ["qd1x16", "qd4x16"]


def test_a_sweep_recorded_before_the_rule_stays_readable(tmp_path: Path) -> None:
    store = finished_tiny(tmp_path, "before")
    path = store / "before" / "sweep.json"
    record = json.loads(path.read_text())
    record["spec"]["matrix"] |= {"engine": "psync", "concurrency": ["1x16", "4x16"]}
    path.write_text(json.dumps(record))
    assert record_problems(record) == []
    code, out = invoke("recommend", "before", "--store", store)
    assert code == 0, out
