"""Sweeps for the tests: a spec run to its end in the test's process, the quick sweep run in
the background, and its progress; what a store holds of a sweep."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import optuna
import pytest

from recommender.data import load_recommendations
from recommender.recommendations import ClassRecommendation
from sweeper.spec import load_spec
from sweeper.store import ParquetStore
from sweeper.sweep import run_sweep
from tests.support.cli import cli, start
from tests.support.paths import QUICK
from tests.support.specs import class_measuring, one_cell_sim, tiny_sim_spec, write_spec


def sweep(spec_path: Path, store_dir: Path) -> tuple[ParquetStore, Any]:
    """The sweep of ``spec_path`` run to its end in this process (real Ansible), into a
    ParquetStore at ``store_dir``: the store and the sweep's outcome."""
    spec, inventory = load_spec(spec_path)
    store = ParquetStore(store_dir)
    return store, run_sweep(spec, inventory, store, spec_path=spec_path)


def recommendation(store: ParquetStore, name: str, class_name: str) -> ClassRecommendation:
    """The recommendation for the class ``class_name`` of the sweep ``name`` in ``store``."""
    recs = load_recommendations(store, store.get_sweep(name))
    return next(r for r in recs if r.name == class_name)


def copy_store(source: Path, folder: Path) -> Path:
    """A copy of the store at ``source`` as ``folder/store`` (links kept as links), for a test
    that damages or changes it."""
    copy = folder / "store"
    shutil.copytree(source, copy, symlinks=True)
    return copy


def count_parts(store: Path) -> int:
    """The run files of the quick sweep in ``store``."""
    return sum(1 for _ in store.glob("quick/runs/*/*.parquet"))


def stored_configurations(store: Path, sweep: str) -> dict[str, int]:
    """How many times ``store`` holds each configuration of ``sweep``, by its key."""
    configs = ParquetStore(store).configurations(sweep)
    return configs.groupby("config_key").size().to_dict()


def journal_study(store: Path, sweep: str) -> optuna.Study:
    """The Optuna study of ``sweep`` in ``store``, from its journal file."""
    journal = optuna.storages.journal.JournalFileBackend(str(store / sweep / "study.journal"))
    return optuna.load_study(study_name=sweep, storage=optuna.storages.JournalStorage(journal))


def start_quick(store: Path, *extra: str) -> subprocess.Popen:
    """``raidsweep run examples/quick.yaml`` into ``store``, in the background, in a session
    of its own: a kill of its process group reaches ansible-runner too."""
    return start("run", QUICK, "--store", store, *extra, columns=None)


def wait_for_parts(proc: subprocess.Popen, store: Path, n: int, timeout: float = 120) -> None:
    """Until ``store`` holds ``n`` run files of the quick sweep ``proc`` runs."""
    deadline = time.monotonic() + timeout
    while count_parts(store) < n:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "sweep made no progress"
        time.sleep(0.05)


def swept_tiny(folder: Path, name: str, runs: int) -> tuple[Path, Path]:
    """A tiny sweep ``name`` on the simulated array (``tests.support.specs.tiny_sim_spec``)
    swept in this process to its end with ``runs`` runs written, its locks in ``folder``:
    its store's root, and its spec."""
    from tests.support.specs import tiny_sim_spec

    spec_path = tiny_sim_spec(folder, name)
    spec, inventory = load_spec(spec_path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAIDSWEEP_LOCK_DIR", str(folder / "locks"))
        outcome = run_sweep(spec, inventory, ParquetStore(folder / "store"), spec_path=spec_path)
    assert outcome.complete and outcome.runs_written == runs
    return folder / "store", spec_path


def one_cell_two_levels(tmp_path_factory: pytest.TempPathFactory, name: str) -> ParquetStore:
    """A finished sweep ``name`` of RAID 10 and RAID 5 on one cell, two repetitions, on the
    simulated array, its class measuring that cell."""
    folder = tmp_path_factory.mktemp(f"{name}-spec")
    spec = one_cell_sim(name, ["raid10", "raid5"], repetitions=2)
    spec["classes"] = [class_measuring(folder, spec["matrix"])]
    made, outcome = sweep(write_spec(folder, spec, name), tmp_path_factory.mktemp(f"{name}-store"))
    assert outcome.complete
    return made


def tiny_store(folder: Path, name: str) -> Path:
    """``folder/store`` after ``raidsweep run`` of ``tiny_sim_spec`` named ``name`` (no
    extra cells): 2 configurations × 2 cells × 2 repetitions on the simulated array."""
    done = cli(
        "run", tiny_sim_spec(folder, name, extra_cells=False), "--store", folder / "store", "-q"
    )
    assert done.returncode == 0, done.stderr
    return folder / "store"
