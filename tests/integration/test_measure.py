"""Optimize mode spends array time on the cells the classes score; grid mode on every cell."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from sweeper.spec import load_spec
from sweeper.store import ParquetStore
from sweeper.sweep import run_sweep
from tests.support.specs import quick_base, write_spec
from tests.support.sweeps import sweep

pytestmark = pytest.mark.integration


def _sweep(tmp_path: Path, name: str, study: dict) -> tuple[ParquetStore, set[str]]:
    spec = quick_base() | {"name": name, "study": study}
    store, _ = sweep(write_spec(tmp_path, spec, name), tmp_path / "store")
    return store, set(store.runs(name)["cell_key"])


def test_optimize_measures_what_the_classes_score(tmp_path: Path) -> None:
    study = {"mode": "optimize", "seed": 1, "budget": 2}
    store, cells = _sweep(tmp_path, "opt", study)
    class_cells = {
        "write/4k/qd1x1/dsync",
        "write/64k/qd1x1/dsync",
        "randwrite/8k/qd1x1",
        "randread/8k/qd1x16",
        "randrw70/8k/qd1x16",
        "randread/16k/qd1x16",
    }
    assert cells == class_cells
    runs = store.runs("opt")
    assert runs.groupby("config_key").size().eq(len(class_cells) * 3).all()
    # Asked for, every cell is measured in optimize mode too; grid mode does by default.
    _, cells_all = _sweep(tmp_path, "opt-all", study | {"measure": "all"})
    assert len(cells_all) == 34 and class_cells < cells_all
    spec = quick_base() | {"name": "grid"}
    spec["config_space"] |= {"raid_level": ["raid5"], "layout": ["single_rank"]}
    path = tmp_path / "grid.yaml"
    path.write_text(yaml.safe_dump(spec))
    loaded, inventory = load_spec(path)
    run_sweep(loaded, inventory, store, spec_path=path)
    assert store.runs("grid")["cell_key"].nunique() == 34


def _study_trials(store: ParquetStore, name: str) -> list:
    import optuna

    from sweeper.study import STUDY_FILE

    storage = optuna.storages.JournalStorage(
        optuna.storages.journal.JournalFileBackend(str(store.sweep_dir(name) / STUDY_FILE))
    )
    return optuna.load_study(study_name=name, storage=storage).trials


def test_a_contender_keeps_the_search_on_its_build(tmp_path: Path) -> None:
    """The first configuration is best of one, so the next stays on its RAID build (no
    format); with same_build: 1 the sampler alone decides."""
    from sweeper.configuration import Configuration

    space = {
        "cache_policy": ["wb-ra", "wb-nora", "wt-ra", "wt-nora"],
        "stripe_kib": {"host_stripe": [16, 64, 256], "pool_stripe": [16384, 1048576]},
        "ranks": [2, 4],
    }
    for same_build, name in ((3, "stay"), (1, "free")):
        spec = quick_base() | {"name": name}
        spec["config_space"] |= space
        spec["study"] = {"mode": "optimize", "seed": 3, "budget": 4, "same_build": same_build}
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(spec))
        loaded, inventory = load_spec(path)
        store = ParquetStore(tmp_path / "store")
        run_sweep(loaded, inventory, store, spec_path=path)
        trials = [t for t in _study_trials(store, name) if "config_key" in t.user_attrs]
        fixed = [t.system_attrs.get("fixed_params") for t in trials]
        builds = [
            (c.raid_level, c.layout, c.rank_count)
            for c in (Configuration.from_key(t.user_attrs["config_key"]) for t in trials)
        ]
        if same_build > 1:
            assert fixed[1] is not None and fixed[1]["raid_level"] == builds[0][0]
            assert (
                builds[1] == builds[0]
                and trials[1].user_attrs["config_key"] != trials[0].user_attrs["config_key"]
            )
            assert max(builds.count(b) for b in builds) <= same_build
        else:
            assert fixed == [None] * len(trials)
