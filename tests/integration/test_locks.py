"""One sweep, one writer; one storage target, one sweep: real processes, real locks.

- two ``raidsweep run`` of one spec on one store, started together: exactly one runs, the
  other exits 2 naming the holder's host and pid, and no configuration is built twice;
- two different sweeps (other names, other stores) on one local target, also when the second
  spells the target through a symlink: the second exits 2 naming the first; a sweep on
  another target runs beside it;
- a sweep killed with SIGKILL while it holds its locks: the next run proceeds and resumes;
- workers of one shared study: distinct workers run side by side, the same worker twice not;
- a teardown while a sweep drives the storage is refused.
"""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path

import pytest

from sweeper.locking import LockHeld, hold, lock_record
from sweeper.store import ParquetStore
from tests.support.campaign import FIGURES
from tests.support.cli import finish as _finish
from tests.support.cli import start as _start
from tests.support.locks import holding_process, wait_held
from tests.support.specs import local_spec, quick_fio_matrix, six_configurations
from tests.support.sweeps import journal_study, stored_configurations

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("lock_dir")]
SEEN: dict[str, str] = {}


def _sim_spec(tmp_path: Path, name: str) -> Path:
    return six_configurations(tmp_path, name, ["4k", "8k"])


def _local_spec(tmp_path: Path, name: str, target: Path, runtime: str = "2s") -> Path:
    options = {"target": str(target), "file_size": "16m", "fill": False}
    matrix = quick_fio_matrix(
        "randread", "randwrite", engine="psync", runtime=runtime, working_set="16m"
    )
    return local_spec(tmp_path, name, options, matrix)


def test_two_runs_of_one_sweep_exactly_one_runs(tmp_path: Path) -> None:
    spec = _sim_spec(tmp_path, "twice")
    store = tmp_path / "store"
    a = _start("run", str(spec), "--store", str(store), "-q")
    b = _start("run", str(spec), "--store", str(store), "-q")
    (rc_a, out_a), (rc_b, out_b) = _finish(a), _finish(b)
    assert sorted([rc_a, rc_b]) == [0, 2], (out_a, out_b)
    winner, loser = (a, out_b) if rc_a == 0 else (b, out_a)
    assert f"sweep 'twice' in {store}" in loser, loser
    assert f"in use by pid {winner.pid} on host {socket.gethostname()}" in loser, loser
    assert "raidsweep run twice" in loser and "Traceback" not in loser
    # Each configuration built once, no trial failed, and nothing left for a resume to do.
    counts = stored_configurations(store, "twice")
    assert len(counts) == 6 and set(counts.values()) == {1}, counts
    states = {t.state.name for t in journal_study(store, "twice").trials}
    assert states == {"COMPLETE"}, states
    rc, out = _finish(_start("run", str(spec), "--store", str(store), "-q"))
    assert rc == 0 and "0 run(s) written" in out, out
    assert set(stored_configurations(store, "twice").values()) == {1}
    SEEN["two runs of one sweep"] = (
        "one ran, the other exit 2 naming host and pid, 6 of 6 built once"
    )
    _figures()


def test_two_sweeps_on_one_target(tmp_path: Path, lock_dir: Path) -> None:
    target = tmp_path / "t.img"
    first = _start(
        "run",
        str(_local_spec(tmp_path, "first", target, "15s")),
        "--store",
        str(tmp_path / "s1"),
        "-q",
    )
    wait_held(lock_dir, "*.lock", first)
    # The same target, by its own name and through a symlink, from another sweep and store.
    link = tmp_path / "link.img"
    link.symlink_to(target)
    refused = []
    for name, spelling in (("second", target), ("third", link)):
        store = tmp_path / f"s-{name}"
        rc, out = _finish(
            _start("run", str(_local_spec(tmp_path, name, spelling)), "--store", str(store), "-q")
        )
        assert rc == 2, out
        assert f"storage target local:path:{target}" in out, out
        assert f"in use by pid {first.pid}" in out and "raidsweep run first" in out, out
        assert not (store / name / "runs").exists()
        refused.append(name)
    # Another target runs beside the first.
    rc, out = _finish(
        _start(
            "run",
            str(_local_spec(tmp_path, "other", tmp_path / "o.img")),
            "--store",
            str(tmp_path / "s-other"),
            "-q",
        )
    )
    assert rc == 0, out
    assert first.poll() is None, "the first sweep was still running"
    rc, out = _finish(first)
    assert rc == 0, out
    SEEN["two sweeps on one target"] = (
        f"{len(refused)} refused (same path, symlink), a sweep on another target ran beside"
    )
    _figures()


def test_a_teardown_under_a_running_sweep_is_refused(tmp_path: Path, lock_dir: Path) -> None:
    target = tmp_path / "t.img"
    spec = _local_spec(tmp_path, "busy", target, "4s")
    store = tmp_path / "s"
    sweep = _start("run", str(spec), "--store", str(store), "-q")
    wait_held(lock_dir, "*.lock", sweep)
    rc, out = _finish(_start("teardown", str(spec), "--store", str(store)))
    assert rc == 2 and f"in use by pid {sweep.pid}" in out, out
    assert target.exists()
    assert _finish(sweep)[0] == 0


def test_a_killed_sweep_leaves_no_lock_behind(tmp_path: Path, lock_dir: Path) -> None:
    spec = _local_spec(tmp_path, "killed", tmp_path / "t.img", "4s")
    store = tmp_path / "s"
    proc = _start("run", str(spec), "--store", str(store), "-q")
    wait_held(lock_dir, "*.lock", proc)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    rc, out = _finish(_start("run", str(spec), "--store", str(store), "-q"))
    assert rc == 0, out
    assert len(ParquetStore(store).runs("killed")) == 2
    SEEN["killed holder"] = "SIGKILL while holding: the next run took the locks and resumed"
    _figures()


def test_workers_distinct_run_side_by_side_the_same_twice_not(
    tmp_path: Path, lock_dir: Path
) -> None:
    spec = _sim_spec(tmp_path, "workers")
    store = tmp_path / "store"
    args = ["run", str(spec), "--store", str(store), "-q"]
    one, two = _start(*args, "--worker", "w1"), _start(*args, "--worker", "w2")
    assert _finish(one)[0] == 0 and _finish(two)[0] == 0
    # The same worker twice: the second, started while the first holds its locks, exits 2.
    args = ["run", str(_sim_spec(tmp_path, "again")), "--store", str(store), "-q"]
    holder = _start(*args, "--worker", "w3")
    wait_held(lock_dir, "*.lock", holder)
    rc, out = _finish(_start(*args, "--worker", "w3"))
    assert rc == 2, out
    assert "sweep 'again' (worker w3)" in out and f"in use by pid {holder.pid}" in out, out
    assert _finish(holder)[0] == 0
    assert set(stored_configurations(store, "workers").values()) == {1}


def test_a_holder_on_another_host_is_named_with_what_to_do(tmp_path: Path) -> None:
    """A lock file on a shared filesystem held from another machine: the message names that
    host and says it cannot be checked from here."""
    lock = tmp_path / "shared.lock"
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from sweeper.locking import hold, lock_record\n"
        "record = lock_record('raidsweep run far') | {'host': 'far-away', 'pid': 4242}\n"
        f"with hold({{Path({str(lock)!r}): 'the shared thing'}}, record):\n"
        "    print('held', flush=True)\n"
        "    time.sleep(60)\n"
    )
    proc = holding_process(script)
    try:
        with pytest.raises(LockHeld) as info:
            with hold({lock: "the shared thing"}, lock_record("raidsweep run near")):
                pass
        text = str(info.value)
        assert "the shared thing" in text and "pid 4242 on host far-away" in text
        assert "another host" in text and str(lock) in text
    finally:
        proc.kill()
        proc.wait()
    # Its process gone, the lock is free; the record it left is reported as stale.
    # Its process gone, the lock is free again (the record of a holder on another host
    # cannot be judged from here, so it is not called stale).
    with hold({lock: "the shared thing"}, lock_record("raidsweep run near")) as stale:
        assert stale == []
    SEEN["holder on another host"] = "named, with what to do"
    _figures()


def _figures() -> None:
    FIGURES["fault campaign: concurrent use"] = [f"{k}: {v}" for k, v in sorted(SEEN.items())]
