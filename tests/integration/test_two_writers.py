"""Two writers of one sweep, through the installed command (`.venv/bin/raidsweep`), real
processes and real locks:

- two `raidsweep run` of one spec on one store, started together: exactly one runs, the
  other exits 2 naming the holder's host, pid and since when, before it changed anything:
  each configuration stored once, no failed trial, and a resume afterwards has nothing to do;
- while a sweep runs, `run --check` and `plan` change nothing and say who is at work;
- workers sharing a study on PostgreSQL: distinct workers on their own storage run side by
  side, the same worker twice is refused (exit 2) and leaves the study as it was.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import time
from pathlib import Path
from typing import Any

import optuna
import pytest
from optuna.trial import TrialState

from sweeper.store import ParquetStore
from tests.support.cli import finish as _finish
from tests.support.cli import start as _start
from tests.support.locks import wait_held
from tests.support.specs import six_configurations
from tests.support.sweeps import journal_study, stored_configurations

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("lock_dir")]
HOST = socket.gethostname()


def _spec(tmp_path: Path, name: str, sizes: int = 3, **study: Any) -> Path:
    """A sim sweep of six configurations that takes some seconds (more with more of the
    ``sizes`` block sizes 4k, 8k, 16k, 32k, 64k, 128k and 256k)."""
    block_sizes = ["4k", "8k", "16k", "32k", "64k", "128k", "256k"][:sizes]
    return six_configurations(tmp_path, name, block_sizes, **study)


def test_two_runs_started_together_exactly_one_runs(tmp_path: Path) -> None:
    spec, store = _spec(tmp_path, "together"), tmp_path / "store"
    a, b = (_start("run", str(spec), "--store", str(store), "-q") for _ in range(2))
    started = time.monotonic()
    (rc_a, out_a), (rc_b, out_b) = _finish(a), _finish(b)
    took = time.monotonic() - started
    assert sorted([rc_a, rc_b]) == [0, 2], (out_a, out_b)
    winner, loser = (a, out_b) if rc_a == 0 else (b, out_a)
    assert f"in use by pid {winner.pid} on host {HOST} (raidsweep run together, since " in loser
    assert "wait for it to finish, or stop it" in loser and f"kill {winner.pid}" in loser
    assert "Traceback" not in loser and "Cannot tell" not in loser
    # No configuration built twice, none marked failed by the second run.
    counts = stored_configurations(store, "together")
    assert len(counts) == 6 and set(counts.values()) == {1}, counts
    states = [t.state for t in journal_study(store, "together").trials]
    assert states == [TrialState.COMPLETE] * 6, states
    runs = ParquetStore(store).runs("together")
    assert len(runs) == 6 * 2 * 3 * 2 * 2
    assert not runs.duplicated(["config_key", "cell_key", "repetition"]).any()
    # The same spec again: a resume with nothing left to do.
    rc, out = _finish(_start("run", str(spec), "--store", str(store), "-q"))
    assert rc == 0 and "0 run(s) written" in out, out
    assert set(stored_configurations(store, "together").values()) == {1}
    print(f"two runs started together: one ran ({took:.1f} s), one refused, 6 of 6 built once")


def test_a_look_while_a_sweep_runs_says_who_changes_nothing(tmp_path: Path) -> None:
    spec, store = _spec(tmp_path, "busy", sizes=7), tmp_path / "store"
    sweep = _start("run", str(spec), "--store", str(store), "-q")
    wait_held(store / "busy", ".run.lock", sweep)
    journal_file = store / "busy" / "study.journal"
    deadline = time.monotonic() + 60
    while not (journal_file.exists() and journal_file.stat().st_size) and sweep.poll() is None:
        assert time.monotonic() < deadline, "the sweep never started its study"
        time.sleep(0.02)
    # Held still (it and its plays) while the four commands look, however fast it runs: a
    # stopped process holds its lock as a running one does.
    os.killpg(sweep.pid, signal.SIGSTOP)
    try:
        journal = journal_file.read_bytes()
        rc, out = _finish(_start("run", str(spec), "--store", str(store), "--check"))
        assert rc == 0 and "nothing was changed (--check)" in out, out
        assert f"note: sweep 'busy' in {store} is in use by pid {sweep.pid} on host {HOST}" in out
        rc, out = _finish(_start("plan", str(spec), "--store", str(store), "--limit", "1"))
        assert f"in use by pid {sweep.pid} on host {HOST}" in out, out
        # A second run is refused before its first play: the study is as the sweep left it.
        rc, out = _finish(_start("run", str(spec), "--store", str(store), "-q"))
        assert rc == 2 and f"in use by pid {sweep.pid}" in out, out
        assert journal_file.read_bytes() == journal
    finally:
        os.killpg(sweep.pid, signal.SIGCONT)
    assert _finish(sweep)[0] == 0
    assert not any(t.state == TrialState.FAIL for t in journal_study(store, "busy").trials)
    # Once it has finished, a look says nothing of it.
    rc, out = _finish(_start("run", str(spec), "--store", str(store), "--check"))
    assert rc == 0 and "in use by" not in out, out


def test_a_sweep_killed_with_sigkill_blocks_nothing(tmp_path: Path) -> None:
    spec, store = _spec(tmp_path, "killed"), tmp_path / "store"
    sweep = _start("run", str(spec), "--store", str(store), "-q")
    wait_held(store / "killed", ".run.lock", sweep)
    time.sleep(1)  # into its first configuration
    os.killpg(sweep.pid, signal.SIGKILL)  # it and its play: nothing runs its cleanup
    sweep.wait(timeout=30)
    assert json.loads((store / "killed" / ".run.lock").read_text())["pid"] == sweep.pid
    rc, out = _finish(_start("run", str(spec), "--store", str(store), "--check"))
    assert rc == 0 and "in use by" not in out, out  # a holder that is gone holds nothing
    rc, out = _finish(_start("run", str(spec), "--store", str(store), "-q"))
    assert rc == 0, out
    assert "took over a lock left by a process that is gone" in out, out
    assert f"pid {sweep.pid} on host {HOST} (raidsweep run killed" in out, out
    assert set(stored_configurations(store, "killed")) == {
        t.user_attrs["config_key"]
        for t in journal_study(store, "killed").trials
        if t.state == TrialState.COMPLETE
    }
    assert len(stored_configurations(store, "killed")) == 6


def test_postgres_workers_distinct_run_the_same_twice_not(
    tmp_path: Path,
    postgres: str,  # noqa: F811
) -> None:
    spec = _spec(tmp_path, "pgworkers", storage=postgres)
    store = tmp_path / "store"
    args = ["run", str(spec), "--store", str(store), "-q", "--worker"]
    first = _start(*args, "w1")
    wait_held(store / "pgworkers", ".run-w1.lock", first)
    again = _start(*args, "w1")  # the same worker: refused
    other = _start(*args, "w2")  # another worker, its own (simulated) array: runs
    rc, out = _finish(again)
    assert rc == 2, out
    assert f"sweep 'pgworkers' (worker w1) in {store}" in out, out
    assert f"in use by pid {first.pid} on host {HOST} (raidsweep run pgworkers --worker w1" in out
    assert _finish(first)[0] == 0 and _finish(other)[0] == 0
    study = optuna.load_study(study_name="pgworkers", storage=postgres)
    done = study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
    keys = [t.user_attrs["config_key"] for t in done]
    # every trial's number, worker, state and configuration: what a configuration measured
    # twice needs to be explained
    trials = [
        (t.number, t.user_attrs.get("worker"), t.state.name, t.user_attrs.get("config_key"))
        for t in study.get_trials(deepcopy=False)
    ]
    assert len(keys) == len(set(keys)) == 6, trials
    # The refused worker failed nothing of the first's (it stopped before recovering).
    failed = study.get_trials(deepcopy=False, states=(TrialState.FAIL,))
    assert not [t for t in failed if "being measured" not in t.user_attrs.get("error", "")]
    assert set(stored_configurations(store, "pgworkers").values()) == {1}


def _status(store: Path, sweep: str) -> dict[str, Any]:
    rc, out = _finish(_start("status", sweep, "--store", str(store), "--json"))
    assert rc == 0, out
    return next(s for s in json.loads(out)["sweeps"] if s["sweep"] == sweep)


def _measuring(store: Path, sweep: str, worker: str) -> bool:
    """Whether ``worker`` measures a configuration of ``sweep`` now (its study being made
    meanwhile is not there yet)."""
    try:
        trials = journal_study(store, sweep).get_trials(deepcopy=False)
    except (KeyError, FileNotFoundError):
        return False
    return any(
        t.state == TrialState.RUNNING and t.user_attrs.get("worker") == worker for t in trials
    )


def test_a_worker_killed_mid_configuration_leaves_the_sweep_interrupted(tmp_path: Path) -> None:
    """Two workers on one store (the study in its journal file): the second is killed while it
    measures a configuration, the first runs out of configurations and ends. The sweep has not
    finished (the first's ``finished`` had been the sweep's); the killed worker resumes its own
    configuration and then it has."""
    spec, store = _spec(tmp_path, "workers"), tmp_path / "store"
    args = ["run", str(spec), "--store", str(store), "-q", "--worker"]
    first, second = _start(*args, "a"), _start(*args, "b")
    wait_held(store / "workers", ".run-b.lock", second)
    deadline = time.monotonic() + 120
    while not _measuring(store, "workers", "b"):
        assert time.monotonic() < deadline and second.poll() is None, _finish(second)
        time.sleep(0.05)
    os.killpg(second.pid, signal.SIGKILL)
    second.wait(timeout=30)
    assert _finish(first)[0] == 0
    seen = _status(store, "workers")
    assert seen["state"] == "interrupted", seen
    assert seen["configurations_done"] < seen["configurations_total"] == 6, seen
    rc, out = _finish(_start(*args, "b"))
    assert rc == 0, out
    seen = _status(store, "workers")
    assert seen["state"] == "finished" and seen["configurations_done"] == 6, seen
