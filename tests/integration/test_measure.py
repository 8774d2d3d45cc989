"""Optimize mode spends array time on the cells the classes score; grid mode on every cell."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sweeper.spec import load_spec
from sweeper.store import ParquetStore
from sweeper.sweep import run_sweep
from tests.specs import quick_base

pytestmark = pytest.mark.integration


def _sweep(tmp_path: Path, name: str, study: dict) -> tuple[ParquetStore, set[str]]:
    spec = quick_base() | {"name": name, "study": study}
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(spec))
    loaded, inventory = load_spec(path)
    store = ParquetStore(tmp_path / "store")
    run_sweep(loaded, inventory, store, spec_path=path)
    return store, set(store.runs(name)["cell_key"])


def test_optimize_measures_what_the_classes_score(tmp_path: Path) -> None:
    study = {"mode": "optimize", "seed": 1, "budget": 2}
    store, cells = _sweep(tmp_path, "opt", study)
    class_cells = {"write/4k/qd1x1", "write/64k/qd1x1", "randwrite/8k/qd1x1",
                   "randread/8k/qd1x16", "randrw70/8k/qd1x16", "randread/16k/qd1x16"}  # fmt: skip
    assert cells == class_cells
    runs = store.runs("opt")
    assert runs.groupby("config_key").size().eq(len(class_cells) * 3).all()
    # Asked for, every cell is measured in optimize mode too; grid mode does by default.
    _, cells_all = _sweep(tmp_path, "opt-all", study | {"measure": "all"})
    assert len(cells_all) == 32 and class_cells < cells_all
    spec = quick_base() | {"name": "grid"}
    spec["config_space"] |= {"raid_level": ["raid5"], "layout": ["single_rank"]}
    path = tmp_path / "grid.yaml"
    path.write_text(yaml.safe_dump(spec))
    loaded, inventory = load_spec(path)
    run_sweep(loaded, inventory, store, spec_path=path)
    assert store.runs("grid")["cell_key"].nunique() == 32
