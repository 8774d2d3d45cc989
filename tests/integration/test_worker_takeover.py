"""Workers of one shared study (a journal beside one store) and the sweepers that take over a
dead worker's configuration: a live worker's configuration is never taken from it.

Real ``raidsweep run`` processes on the simulated array:

- a run without ``--worker`` started while ``--worker a`` measures a configuration is refused
  (exit status 2, naming worker a and its pid), changes nothing, and worker a finishes
  every configuration, each measured once;
- a worker killed mid-configuration: a run without ``--worker`` fails and re-queues its
  trial and measures that configuration again;
- a worker that never ran from this store (one of another machine) is left its trial, said
  in a warning, and resumes it itself;
- a worker whose trial another process marks failed stops with a message, not a traceback.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import optuna
import pytest
from optuna.trial import TrialState

from sweeper.study import JOURNAL_LOCK_FILE, STUDY_FILE, JournalFlock
from tests.support.cli import finish, invoke, start
from tests.support.specs import quick_spec, write_spec
from tests.support.sweeps import stored_configurations

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("lock_dir")]

#: the simulated array's nine configurations of examples/quick.yaml (a few seconds each)
NINE = 9


def _spec(tmp_path: Path, name: str) -> Path:
    return write_spec(tmp_path, quick_spec(name=name), name)


def _study(store: Path, name: str) -> optuna.Study:
    """The sweep's study as raidsweep opens it (its journal's appends locked alike)."""
    folder = store / name
    lock = JournalFlock(folder / JOURNAL_LOCK_FILE)
    backend = optuna.storages.journal.JournalFileBackend(
        str(folder / STUDY_FILE),
        lock_obj=lock,  # type: ignore[arg-type]
    )
    return optuna.load_study(study_name=name, storage=optuna.storages.JournalStorage(backend))


def _measuring(
    store: Path, name: str, worker: str, proc: subprocess.Popen[str]
) -> optuna.trial.FrozenTrial:
    """The trial ``worker`` measures, once it measures one (a second has passed in it)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, finish(proc)
        if (store / name / STUDY_FILE).is_file():
            for t in _study(store, name).get_trials(states=(TrialState.RUNNING,)):
                if t.user_attrs.get("worker") == worker and "config_key" in t.user_attrs:
                    return t
        time.sleep(0.05)
    raise AssertionError(f"worker {worker} never measured a configuration")


def _run(spec: Path, store: Path, *more: str) -> subprocess.Popen[str]:
    return start("run", spec, "--store", store, "-q", *more, columns=None)


def test_a_run_without_worker_beside_a_live_worker_is_refused(tmp_path: Path) -> None:
    spec, store = _spec(tmp_path, "beside"), tmp_path / "store"
    worker = _run(spec, store, "--worker", "a")
    trial = _measuring(store, "beside", "a", worker)
    plain = _run(spec, store)
    rc, out = finish(plain)
    assert rc == 2, out
    assert "Traceback" not in out, out
    assert f"in use by worker a: pid {worker.pid}" in out, out
    assert "--worker NAME" in out, out
    # --check changes nothing and says the same, as a note (while the worker still runs)
    code, checked = invoke("run", spec, "--store", store, "--check")
    assert code == 0, checked
    if worker.poll() is None:
        assert f"note: sweep 'beside' in {store} is in use by worker a" in " ".join(
            checked.split()
        ), checked
    # nothing of the sweep changed: its trial is still the worker's, being measured
    now = _study(store, "beside").trials[trial.number]
    assert now.state in (TrialState.RUNNING, TrialState.COMPLETE), now.state
    rc, out = finish(worker)
    assert rc == 0, out
    assert "Traceback" not in out, out
    assert not (store / "beside" / "array").exists()  # the plain run built nothing
    assert stored_configurations(store, "beside") == dict.fromkeys(
        stored_configurations(store, "beside"), 1
    )
    assert len(stored_configurations(store, "beside")) == NINE
    done = _study(store, "beside").get_trials(states=(TrialState.COMPLETE,))
    assert {t.user_attrs["worker"] for t in done} == {"a"} and len(done) == NINE
    assert not _study(store, "beside").get_trials(states=(TrialState.FAIL,))


def test_a_dead_workers_configuration_is_resumed_by_a_run_without_worker(
    tmp_path: Path,
) -> None:
    spec, store = _spec(tmp_path, "dead"), tmp_path / "store"
    worker = _run(spec, store, "--worker", "a")
    lost = _measuring(store, "dead", "a", worker)
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait()
    rc, out = finish(_run(spec, store))
    assert rc == 0, out
    study = _study(store, "dead")
    assert study.trials[lost.number].state == TrialState.FAIL
    done = study.get_trials(states=(TrialState.COMPLETE,))
    assert sorted(t.user_attrs["config_key"] for t in done) == sorted(
        set(t.user_attrs["config_key"] for t in done)
    )
    assert lost.user_attrs["config_key"] in {t.user_attrs["config_key"] for t in done}
    assert len(done) == NINE


def test_a_worker_of_another_machine_is_left_its_configuration(tmp_path: Path) -> None:
    spec, store = _spec(tmp_path, "far"), tmp_path / "store"
    worker = _run(spec, store, "--worker", "far")
    kept = _measuring(store, "far", "far", worker)
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait()
    # as if it had run on another machine with its own store: no run lock of it here
    (store / "far" / ".run-far.lock").unlink()
    rc, out = finish(_run(spec, store))
    assert rc == 0, out
    assert "worker far measures were left to it" in out, out
    key = kept.user_attrs["config_key"]
    study = _study(store, "far")
    assert study.trials[kept.number].state == TrialState.RUNNING
    assert key not in {
        t.user_attrs.get("config_key") for t in study.get_trials(states=(TrialState.COMPLETE,))
    }
    # the worker, run again, resumes it
    rc, out = finish(_run(spec, store, "--worker", "far"))
    assert rc == 0, out
    study = _study(store, "far")
    assert study.trials[kept.number].state == TrialState.FAIL
    done = {t.user_attrs["config_key"] for t in study.get_trials(states=(TrialState.COMPLETE,))}
    assert key in done and len(done) == NINE


def test_a_worker_whose_trial_is_failed_elsewhere_stops_with_a_message(tmp_path: Path) -> None:
    spec, store = _spec(tmp_path, "taken"), tmp_path / "store"
    worker = _run(spec, store, "--worker", "a")
    # another process (an older raidsweep, a sweeper of another machine) fails it
    for _ in range(NINE):
        trial = _measuring(store, "taken", "a", worker)
        try:
            _study(store, "taken").tell(trial.number, state=TrialState.FAIL)
            break
        except ValueError:  # the worker told it complete first (a slow machine): the next
            continue
    else:
        raise AssertionError("the worker completed every trial before it could be failed")
    rc, out = finish(worker)
    assert rc == 1, out
    assert "Traceback" not in out and "Cannot tell" not in out, out
    key = trial.user_attrs["config_key"]
    assert f"another process marked configuration {key} failed while worker a measured it" in (
        out
    ), out
    assert "run again to resume" in out or "again to resume" in out, out
