"""Pruning: a configuration that cannot be best for any class stops early, with its reason."""

from __future__ import annotations

from pathlib import Path

import optuna
import pytest
import yaml
from optuna.trial import TrialState

from recommender.classes import load_classes
from recommender.scoring import rank_classes
from sweeper.store import ParquetStore
from sweeper.study import STUDY_FILE
from tests.support.paths import ROOT
from tests.support.specs import quick_base, write_spec
from tests.support.sweeps import sweep

pytestmark = pytest.mark.integration


def _sweep(tmp_path: Path, name: str, prune: bool) -> tuple[ParquetStore, object]:
    (tmp_path / "random_reads.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "random_reads",
                "description": "8k random reads at 16 jobs, no limits",
                "metric": "iops",
                "cells": [{"cell": "randread/8k/qd1x16", "weight": 1}],
            }
        )
    )
    spec = quick_base()
    spec |= {"name": name, "inventory": str(ROOT / "inventories/sim/hosts.yml")}
    spec["classes"] = ["random_reads.yaml"]
    spec["study"] |= {"prune": prune}
    return sweep(write_spec(tmp_path, spec, name), tmp_path / "store")


def test_pruned_sweep_finds_the_same_best_with_fewer_runs(tmp_path: Path) -> None:
    full_store, full = _sweep(tmp_path, "full", prune=False)
    store, pruned = _sweep(tmp_path, "pruned", prune=True)
    assert not full.configurations_pruned and pruned.configurations_pruned
    wclass = load_classes([str(tmp_path / "random_reads.yaml")])
    ranked = rank_classes(full_store.runs("full"), wclass).set_index("config_key")
    # Nothing pruned was the true best; the single ranks (but the very first configuration,
    # with nothing to compare to) serve random reads from one rank's drives and are all cut.
    assert all(ranked.loc[k, "rank"] > 1 for k in pruned.configurations_pruned)
    singles = {k for k in ranked.index if "single_rank" in k} - {"raid5/single_rank/wb-ra"}
    assert singles <= set(pruned.configurations_pruned)
    assert all(
        r.startswith("random_reads: at most ") and "lower bound" in r
        for r in pruned.configurations_pruned.values()
    )
    assert pruned.runs_written < full.runs_written
    assert pruned.array_s < full.array_s
    best_full = rank_classes(full_store.runs("full"), wclass).iloc[0]["config_key"]
    best_pruned = rank_classes(store.runs("pruned"), wclass).iloc[0]["config_key"]
    assert best_pruned == best_full
    # The study says which were pruned and why.
    study = optuna.load_study(
        study_name="pruned",
        storage=optuna.storages.JournalStorage(
            optuna.storages.journal.JournalFileBackend(
                str(tmp_path / "store" / "pruned" / STUDY_FILE)
            )
        ),
    )
    cut = study.get_trials(states=(TrialState.PRUNED,))
    assert {t.user_attrs["config_key"] for t in cut} == set(pruned.configurations_pruned)
    assert all(t.user_attrs["pruned"].startswith("after ") for t in cut)
    # Resuming does not bring pruned configurations back.
    _, again = _sweep(tmp_path, "pruned", prune=True)
    assert again.runs_written == 0 and not again.configurations_pruned
