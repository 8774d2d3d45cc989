"""Crash anywhere: SIGKILL a sweep at 20 random moments, resume each time, lose nothing.

Every third kill lands early in a resumed start (start-up and recovery, reconfiguration with
Ansible running); the others at stored-run counts spread over the whole sweep (during runs
and store writes); each kill is classified by what the process tree was doing. At the end: every run
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
from sweeper.ansible import HANDOVER_FILE, HANDOVER_PLAYBOOK
from sweeper.store import ParquetStore
from tests.support.campaign import FIGURES
from tests.support.sweeps import count_parts, start_quick

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


def _waiting(cmdline: bytes) -> bool:
    """Whether an ``ansible-playbook`` command line is a play started ahead that still waits
    for its configuration (its private folder holds no handed-over vars yet)."""
    if HANDOVER_PLAYBOOK.encode() not in cmdline:
        return False
    for arg in cmdline.split(b"\0"):
        if arg.startswith(b"@") and arg.endswith(b"/vars.yml"):
            return not (Path(arg[1:].decode()).parent / HANDOVER_FILE).exists()
    return False


def _doing(pid: int, store: Path, parts_at_start: int) -> str:
    """What the sweep was doing at the kill: Ansible running, a store file half-written,
    measuring, or still starting (imports, recovery) with nothing new stored yet."""
    for child in _descendants(pid):
        try:
            cmd = Path(f"/proc/{child}/cmdline").read_bytes()
        except (FileNotFoundError, ProcessLookupError):
            continue
        if b"ansible-playbook" in cmd and not _waiting(cmd):
            return "reconfiguration"
    if any(store.glob("quick/**/.*.tmp")):
        return "store write"
    return "run" if count_parts(store) > parts_at_start else "start-up"


def test_twenty_kills_lose_nothing(tmp_path: Path, quick_store: ParquetStore) -> None:
    store = tmp_path / "store"
    rng = random.Random(20261122)
    # The first start sets the time scale of a start: until its first run is stored.
    proc = start_quick(store, "-q")
    t0 = time.monotonic()
    while count_parts(store) < 1:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.005)
    warm = time.monotonic() - t0
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    phases: Counter[str] = Counter({"run": 1})
    # The other kills: every third early in a resumed start (imports, recovery, Ansible
    # rebuilding the configuration); the rest once the store holds a target number of runs,
    # the targets spread over the whole sweep, with a random sliver after the target so that
    # some land inside a store write.
    targets = sorted(rng.sample(range(60, 1040), KILLS - 1))
    for i, target in enumerate(targets):
        parts = count_parts(store)
        proc = start_quick(store, "-q")
        if i % 3 == 0:
            time.sleep(warm * rng.uniform(0.2, 1.0))
        else:
            deadline = time.monotonic() + 300
            while count_parts(store) < max(target, parts + 1):
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "the sweep made no progress"
                time.sleep(0.005)
            time.sleep(rng.uniform(0, 0.03))
        assert proc.poll() is None, "the sweep finished before the kill: " + str(proc.communicate())
        phases[_doing(proc.pid, store, parts)] += 1
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    before_final = count_parts(store)
    proc = start_quick(store, "-q")
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err

    results = ParquetStore(store)
    runs = results.runs("quick", include_failed=True)
    reference = quick_store.runs("quick")
    assert not runs.duplicated(["config_key", "cell_key", "repetition"]).any()
    assert len(runs) == len(reference) == 1134 and (runs["status"] == "ok").all()
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
