"""Crash anywhere: SIGKILL a sweep at 20 random moments, resume each time, lose nothing.

The moments are drawn around the time a start takes to reach its first run, so kills land in
start-up and recovery, in reconfiguration (Ansible running), during runs and during store
writes; each kill is classified by what the process group was doing. At the end: every run
present exactly once, every file in the store whole, the study consistent, and the ranking
identical to the uninterrupted sweep of the same spec and seed.
"""

from __future__ import annotations

import os
import random
import signal
import time
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from recommender.data import load_rankings
from sweeper.store import ParquetStore
from tests.campaign import FIGURES
from tests.integration.test_resume import count_parts, start

pytestmark = pytest.mark.integration
KILLS = 20


def _descendants(pid: int) -> set[int]:
    parent: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except (FileNotFoundError, ProcessLookupError):
                continue
            parent[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {c for c, p in parent.items() if p in frontier} - found
        found |= frontier
    return found


def _doing(pid: int, store: Path, parts_at_start: int) -> str:
    """What the sweep was doing at the kill: Ansible running, a store file half-written,
    measuring, or still starting (imports, recovery) with nothing new stored yet."""
    for child in _descendants(pid):
        try:
            cmd = Path(f"/proc/{child}/cmdline").read_bytes()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if b"ansible-playbook" in cmd:
            return "reconfiguration"
    if any(store.glob("quick/**/.*.tmp")):
        return "store write"
    return "run" if count_parts(store) > parts_at_start else "start-up"


def test_twenty_kills_lose_nothing(tmp_path: Path, quick_store: ParquetStore) -> None:
    store = tmp_path / "store"
    rng = random.Random(20261122)
    # The first start sets the scale: how long a start takes to its first run, and how fast
    # runs are stored afterwards (so that the kills spread over most of the sweep).
    proc = start(store, "-q")
    t0 = time.monotonic()
    while count_parts(store) < 1:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    warm = time.monotonic() - t0
    while count_parts(store) < 40:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    sweep_s = 1080 * (time.monotonic() - t0 - warm) / 40
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    phases: Counter[str] = Counter({"run": 1})
    for _ in range(KILLS - 1):
        parts = count_parts(store)
        proc = start(store, "-q")
        time.sleep(warm * rng.uniform(0.3, 1.0) + rng.uniform(0, 1.2 * sweep_s / KILLS))
        assert proc.poll() is None, "the sweep finished before the kill: " + str(proc.communicate())
        phases[_doing(proc.pid, store, parts)] += 1
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    before_final = count_parts(store)
    proc = start(store, "-q")
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err

    results = ParquetStore(store)
    runs = results.runs("quick", include_failed=True)
    reference = quick_store.runs("quick")
    assert not runs.duplicated(["config_key", "cell_key", "repetition"]).any()
    assert len(runs) == len(reference) == 1080 and (runs["status"] == "ok").all()
    # Every file whole: each Parquet part reads, nothing half-written is left behind.
    parts = list(store.rglob("*.parquet"))
    for part in parts:
        pq.read_metadata(part)
    assert not list(store.rglob(".*.tmp"))
    # The study: every configuration completed once, nothing left running.
    import optuna
    from optuna.trial import TrialState

    from sweeper.study import STUDY_FILE

    study = optuna.load_study(
        study_name="quick",
        storage=optuna.storages.JournalStorage(
            optuna.storages.journal.JournalFileBackend(str(results.sweep_dir("quick") / STUDY_FILE))
        ),
    )
    done = [t.user_attrs["config_key"] for t in study.get_trials(states=(TrialState.COMPLETE,))]
    assert sorted(done) == sorted(set(reference["config_key"]))
    assert not study.get_trials(states=(TrialState.RUNNING,))
    # The same measurements, so the same ranking as the sweep never interrupted.
    mine = runs.set_index(["config_key", "cell_key", "repetition"])["iops"].sort_index()
    theirs = reference.set_index(["config_key", "cell_key", "repetition"])["iops"].sort_index()
    assert mine.equals(theirs)
    ranked, _ = load_rankings(results, results.get_sweep("quick"))
    expected, _ = load_rankings(quick_store, quick_store.get_sweep("quick"))
    cols = ["class", "rank", "config_key", "score"]
    assert ranked[cols].reset_index(drop=True).equals(expected[cols].reset_index(drop=True))
    FIGURES["fault campaign: crash anywhere"] = [
        f"kills survived: {sum(phases.values())} of {KILLS} "
        f"({', '.join(f'{k} {v}' for k, v in sorted(phases.items()))})",
        f"runs stored before the last resume: {before_final}; after: {len(runs)} of "
        f"{len(reference)}; runs lost: 0; duplicated: 0",
        f"store files checked whole: {len(parts)}; ranking identical to the uninterrupted sweep",
    ]
