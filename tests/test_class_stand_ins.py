"""A class cell's stand-in: scored in the cell's place when a sweep does not measure the cell
(a plain write for the same write made durable), said with the class; never when the sweep
measures the cell itself, and never a silent substitute."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from recommender.classes import WorkloadClass, matrix_gaps
from sweeper.spec import load_spec
from tests.support.cli import cli
from tests.support.specs import problems_of, quick_base, write_spec
from tests.support.sweeps import recommendation, sweep

LOG = {
    "name": "log_writer",
    "description": "durable log writes",
    "cells": [
        {"cell": "write/4k/qd1x1/dsync", "weight": 3, "stand_in": "write/4k/qd1x1"},
        {"cell": "randwrite/8k/qd1x1", "weight": 2},
    ],
    "limits": [
        {"metric": "write_lat_p99", "max": "20ms", "cells": ["write/4k/qd1x1/dsync"]},
        {"metric": "write_lat_mean", "max": "5ms"},
    ],
}
PLAIN = ["write/4k/qd1x1", "randwrite/8k/qd1x1", "randread/8k/qd1x1"]


def test_a_missing_cell_is_scored_on_its_stand_in_and_the_class_says_so() -> None:
    wclass = WorkloadClass.model_validate(LOG)
    scored = wclass.for_cells(PLAIN)
    assert scored.cell_keys == ["write/4k/qd1x1", "randwrite/8k/qd1x1"]
    assert [c.weight for c in scored.cells] == [3, 2]
    assert scored.limits[0].cells == ["write/4k/qd1x1"]
    assert scored.limits[1].cells is None
    assert "write/4k/qd1x1 stands in for write/4k/qd1x1/dsync" in scored.description
    assert wclass.stand_ins(PLAIN) == {"write/4k/qd1x1/dsync": "write/4k/qd1x1"}


def test_a_measured_cell_keeps_its_own_figure() -> None:
    wclass = WorkloadClass.model_validate(LOG)
    both = [*PLAIN, "write/4k/qd1x1/dsync"]
    assert wclass.for_cells(both) == wclass
    assert wclass.stand_ins(both) == {}
    # without its stand-in either, the cell stays missing (ranked on the others, said)
    lacking = ["randwrite/8k/qd1x1"]
    assert wclass.for_cells(lacking) == wclass
    (gap,) = matrix_gaps([wclass], lacking)
    assert "does not measure write/4k/qd1x1/dsync" in gap


def test_a_stand_in_that_is_a_cell_of_the_class_is_refused() -> None:
    bad = LOG | {
        "cells": [
            {"cell": "write/4k/qd1x1/dsync", "stand_in": "randwrite/8k/qd1x1"},
            {"cell": "randwrite/8k/qd1x1"},
        ]
    }
    with pytest.raises(ValidationError, match="stand_in 'randwrite/8k/qd1x1' is one of"):
        WorkloadClass.model_validate(bad)
    shared = LOG | {
        "cells": [
            {"cell": "write/4k/qd1x1/dsync", "stand_in": "write/4k/qd1x1"},
            {"cell": "write/4k/qd1x1/fdatasync", "stand_in": "write/4k/qd1x1"},
        ],
        "limits": [],
    }
    with pytest.raises(ValidationError, match="another cell's stand-in already"):
        WorkloadClass.model_validate(shared)


def _spec(tmp_path: Path, patterns: list[str]) -> Path:
    (tmp_path / "log_writer.yaml").write_text(yaml.safe_dump(LOG))
    spec = quick_base() | {"name": "stand-in", "classes": ["log_writer.yaml"]}
    spec["config_space"] = {"raid_level": ["raid5", "raid10"], "layout": ["single_rank"]}
    spec["matrix"] = {
        "patterns": patterns,
        "block_sizes": ["4k"],
        "concurrency": ["1x1"],
        "engine": "psync",
        "runtime": "60s",
        "ramp": "0s",
        "repetitions": 2,
        "working_set": "8g",
    }
    return write_spec(tmp_path, spec, "stand-in")


def test_a_sweep_without_the_sync_cell_ranks_the_class_on_its_stand_in(tmp_path: Path) -> None:
    path = _spec(tmp_path, ["write"])
    spec, _ = load_spec(path)  # not refused: the stand-in is measured
    store, outcome = sweep(path, tmp_path / "store")
    assert outcome.configurations_done == 2
    rec = recommendation(store, "stand-in", "log_writer")
    assert rec.wclass.cell_keys == ["write/4k/qd1x1", "randwrite/8k/qd1x1"]
    assert "stands in for write/4k/qd1x1/dsync" in rec.wclass.description
    # both configurations ranked, on the stand-in's figures (the random write not measured)
    assert len(rec.ranked) == 2 and (rec.ranked["score"] > 0).all()
    assert set(rec.ranked["cells_measured"]) == {1}
    assert rec.evidence["cell"].tolist() == ["write/4k/qd1x1"]


def test_run_warns_which_cell_stands_in(tmp_path: Path) -> None:
    out = cli("run", _spec(tmp_path, ["write"]), "--store", tmp_path / "s", "--check")
    assert out.returncode == 0, out.stderr
    said = " ".join((out.stdout + out.stderr).split())
    assert "class log_writer: the matrix does not measure write/4k/qd1x1/dsync;" in said
    assert "write/4k/qd1x1 stands in for it" in said


def test_a_matrix_with_neither_cell_nor_stand_in_is_still_refused(tmp_path: Path) -> None:
    path = _spec(tmp_path, ["read"])
    (problem,) = problems_of(path)
    assert "the matrix measures none of class log_writer's cells" in problem
