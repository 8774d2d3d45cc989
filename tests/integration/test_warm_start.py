"""Warm start (study.warm_start): a real optimize-mode sweep on the simulated array reads a
previous sweep from another store (another array profile) and measures that sweep's best
configurations per class first; a warm start that names nothing usable is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from optuna.trial import TrialState

from recommender.classes import load_classes
from recommender.scoring import rank_classes
from tests.support.cli import cli
from tests.support.specs import quick_base, write_spec
from tests.support.sweeps import journal_study, sweep

pytestmark = pytest.mark.integration

SPACE = {
    "raid_level": ["raid5", "raid6", "raid10"],
    "layout": ["single_rank", "host_stripe"],
    "ranks": [2, 4],
    "stripe_kib": [64],
    "cache_policy": ["wb-ra", "wt-ra"],
}


def _spec(name: str, profile: str, study: dict[str, Any]) -> dict[str, Any]:
    spec = quick_base() | {"name": name, "config_space": SPACE, "study": study}
    spec["platform_options"] = {"profile": profile}
    spec["matrix"] |= {"patterns": ["write", "randrw70"], "block_sizes": ["4k", "8k"]}
    return spec


def test_a_warm_start_measures_the_previous_sweeps_picks_first(tmp_path: Path) -> None:
    (tmp_path / "rehearsal").mkdir()
    before = write_spec(tmp_path / "rehearsal", _spec("flash", "allflash-nvme", {}), "flash")
    previous, _ = sweep(before, tmp_path / "rehearsal" / "store")
    ranked = rank_classes(previous.runs("flash"), load_classes(["redo_log", "data_file"]))
    picks = list(dict.fromkeys(ranked.groupby("class", sort=False)["config_key"].first()))

    study = {
        "mode": "optimize",
        "seed": 1,
        "budget": 4,
        "warm_start": {"store": "rehearsal/store", "sweep": "flash"},
    }
    path = write_spec(tmp_path, _spec("disk", "ds8800-like", study), "disk")
    store, outcome = sweep(path, tmp_path / "store")
    assert outcome.configurations_done == 4
    trials = journal_study(tmp_path / "store", "disk").get_trials(states=(TrialState.COMPLETE,))
    order = [t.user_attrs["config_key"] for t in sorted(trials, key=lambda t: t.number)]
    assert order[: len(picks)] == picks
    # the previous sweep's store is read, never written
    assert set(previous.runs("flash")["config_key"]) == set(ranked["config_key"])
    assert "disk" not in {r["sweep_id"] for r in previous.list_sweeps()}


@pytest.mark.parametrize(
    ("warm", "problem"),
    [
        ({"store": "nowhere", "sweep": "flash"}, "study.warm_start.store: no store at"),
        ({"store": "other", "sweep": "flash"}, "study.warm_start.sweep: no sweep 'flash'"),
    ],
)
def test_a_warm_start_that_names_nothing_usable_is_refused(
    tmp_path: Path, warm: dict[str, str], problem: str
) -> None:
    (tmp_path / "other").mkdir()
    study = {"mode": "optimize", "budget": 2, "warm_start": warm}
    path = write_spec(tmp_path, _spec("disk", "ds8800-like", study), "disk")
    done = cli("run", path, "--store", tmp_path / "store", "--check")
    assert done.returncode == 2, done.stdout + done.stderr
    assert problem in done.stdout + done.stderr
    assert not (tmp_path / "store").exists()


def test_a_warm_start_needs_optimize_mode(tmp_path: Path) -> None:
    (tmp_path / "other").mkdir()
    study = {"mode": "grid", "warm_start": {"store": "other", "sweep": "flash"}}
    path = write_spec(tmp_path, _spec("disk", "ds8800-like", study), "disk")
    done = cli("run", path, "--store", tmp_path / "store", "--check")
    assert done.returncode == 2 and "study.warm_start: a warm start needs mode: optimize" in (
        done.stdout + done.stderr
    )
