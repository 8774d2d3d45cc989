"""``raidsweep teardown SPEC`` and the workers of the sweep (``run SPEC --worker NAME``), real
processes on the simulated array (each worker's array is its own state folder, ``array-NAME``):

- while a worker runs, a teardown is refused (exit status 2, naming the worker and its pid,
  in teardown's words) and removes nothing; ``--check`` names the worker and what a teardown
  would remove of what it built; the worker finishes every configuration;
- once no worker runs, a teardown removes what the workers built as well as what the plain
  run built, each said under its name; a second one finds nothing to remove;
- a teardown holds each worker's run lock while it works, so no worker can start under it;
- ``--worker NAME`` removes only that worker's storage, and a worker that never ran the sweep
  from this store is refused (exit status 2, nothing made).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.cli import finish, invoke, start
from tests.support.locks import wait_held
from tests.support.specs import quick_spec, write_spec
from tests.support.sweeps import journal_study, stored_configurations

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("lock_dir")]

#: the simulated array's nine configurations of examples/quick.yaml
NINE = 9


def _spec(tmp_path: Path, name: str) -> Path:
    return write_spec(tmp_path, quick_spec(name=name), name)


def _run(spec: Path, store: Path, *more: str) -> subprocess.Popen[str]:
    return start("run", spec, "--store", store, "-q", *more, columns=None)


def _built(array: Path) -> bool:
    """Whether the simulated array of that state folder holds a configuration."""
    return array.is_dir() and any(array.iterdir())


def _building(array: Path, proc: subprocess.Popen[str]) -> None:
    """Until the worker ``proc`` has built its first configuration in ``array``."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert proc.poll() is None, finish(proc)
        if _built(array):
            return
        time.sleep(0.05)
    raise AssertionError(f"nothing was built in {array}")


def test_a_teardown_beside_a_live_worker_is_refused_and_after_it_removes_its_array(
    tmp_path: Path,
) -> None:
    spec, store = _spec(tmp_path, "busy"), tmp_path / "store"
    array = store / "busy" / "array-a"
    worker = _run(spec, store, "--worker", "a")
    _building(array, worker)
    rc, out = finish(start("teardown", spec, "--store", store, columns=None))
    assert rc == 2, out
    assert "Traceback" not in out, out
    assert f"in use by worker a: pid {worker.pid}" in out, out
    assert "a teardown would remove the storage that worker(s) a measure" in out, out
    assert _built(array)  # nothing was taken from under the worker
    code, checked = invoke("teardown", spec, "--store", store, "--check")
    assert code == 0, checked
    if worker.poll() is None:  # still running: said as a note, with what would be removed
        assert f"note: sweep 'busy' in {store} is in use by worker a" in checked, checked
    assert "worker a: 1 task(s) would change" in checked, checked
    assert _built(array)
    rc, out = finish(worker)
    assert rc == 0, out
    counts = stored_configurations(store, "busy")
    assert len(counts) == NINE and set(counts.values()) == {1}, counts
    # the worker is done: its array is what the sweep leaves built, and teardown removes it
    assert _built(array)
    rc, out = finish(start("teardown", spec, "--store", store, columns=None))
    assert rc == 0, out
    assert "worker a: 1 task(s) changed torn down" in out, out
    assert not _built(array)
    rc, out = finish(start("teardown", spec, "--store", store, columns=None))
    assert rc == 0 and "nothing to remove torn down" in out, out


def test_a_teardown_removes_what_the_workers_and_the_plain_run_built(tmp_path: Path) -> None:
    """A worker killed mid-sweep leaves its array; the plain run that resumes builds its own;
    one teardown removes both, and holds the worker's run lock while it works."""
    spec, store = _spec(tmp_path, "both"), tmp_path / "store"
    folder = store / "both"
    worker = _run(spec, store, "--worker", "a")
    _building(folder / "array-a", worker)
    os.killpg(worker.pid, signal.SIGKILL)
    worker.wait()
    rc, out = finish(_run(spec, store))
    assert rc == 0, out
    assert len(journal_study(store, "both").get_trials()) >= NINE
    assert _built(folder / "array") and _built(folder / "array-a")
    teardown = start("teardown", spec, "--store", store, columns=None)
    # no worker a can start under the teardown: it holds the worker's run lock too
    wait_held(folder, ".run-a.lock", teardown)
    rc, out = finish(teardown)
    assert rc == 0, out
    assert "sweep both: 1 task(s) changed worker a: 1 task(s) changed torn down" in out, out
    assert not _built(folder / "array") and not _built(folder / "array-a")
    # the lock is let go: the worker runs again (nothing left for it to measure)
    rc, out = finish(_run(spec, store, "--worker", "a"))
    assert rc == 0, out


def test_a_teardown_of_one_worker_removes_only_its_array(tmp_path: Path) -> None:
    spec, store = _spec(tmp_path, "one"), tmp_path / "store"
    folder = store / "one"
    # two workers side by side, to the end of the sweep
    a, b = _run(spec, store, "--worker", "a"), _run(spec, store, "--worker", "b")
    assert finish(a)[0] == 0 and finish(b)[0] == 0
    assert _built(folder / "array-a") and _built(folder / "array-b")
    rc, out = finish(start("teardown", spec, "--store", store, "--worker", "a", columns=None))
    assert rc == 0 and "1 task(s) changed torn down" in out, out
    assert not _built(folder / "array-a") and _built(folder / "array-b")
    # a worker that never ran this sweep from this store: nothing of its is there
    rc, out = finish(start("teardown", spec, "--store", store, "--worker", "c", columns=None))
    assert rc == 2, out
    assert "--worker: 1 problem(s)" in out and "worker 'c' never ran sweep 'one'" in out, out
    assert "its workers here: a, b" in out, out
    assert not (folder / ".run-c.lock").exists()
