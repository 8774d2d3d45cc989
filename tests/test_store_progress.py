"""A sweep's progress read from every sweeper's record (``sweeper.store.progress``): several
workers of one sweep each keep their own, and the sweep has finished only when all have."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from sweeper.store import ParquetStore


@pytest.fixture(scope="module")
def dead_pid() -> int:
    """The pid of a process that has ended."""
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(done.stdout)


def _record(state: str, pid: int, at: str) -> dict[str, object]:
    return {"state": state, "pid": pid, "updated_at": at, "runs_total": 12}


def test_one_sweeper_reads_as_it_wrote(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path)
    store.write_progress("s", _record("running", os.getpid(), "1"))
    assert store.read_progress("s") == _record("running", os.getpid(), "1")


@pytest.mark.parametrize(
    ("a", "b", "state"),
    [
        # the first worker ran out of configurations while the second still measured one
        (("finished", "dead", "2"), ("running", "live", "1"), "running"),
        # ... and the second was then killed: its configuration is not measured
        (("finished", "dead", "2"), ("running", "dead", "1"), "interrupted"),
        (("finished", "dead", "1"), ("interrupted", "dead", "2"), "interrupted"),
        (("interrupted", "dead", "1"), ("running", "live", "2"), "running"),
        (("finished", "dead", "1"), ("finished", "dead", "2"), "finished"),
    ],
)
def test_the_sweep_has_finished_only_when_every_worker_has(
    tmp_path: Path, dead_pid: int, a: tuple[str, str, str], b: tuple[str, str, str], state: str
) -> None:
    store = ParquetStore(tmp_path)
    pids = {"live": os.getpid(), "dead": dead_pid}
    for worker, (st, who, at) in (("a", a), ("b", b)):
        store.write_progress("s", _record(st, pids[who], at), worker=worker)
    read = store.read_progress("s")
    assert read is not None and read["state"] == state
    assert read["workers"] == {
        "a": {"state": a[0], "pid": pids[a[1]]},
        "b": {"state": b[0], "pid": pids[b[1]]},
    }
    if state == "running":
        assert read["pid"] == os.getpid()  # the live worker's: readers check it is alive


def test_a_sweeper_without_worker_forgets_ended_workers_only(tmp_path: Path, dead_pid: int) -> None:
    store = ParquetStore(tmp_path)
    store.write_progress("s", _record("running", dead_pid, "1"), worker="killed")
    store.write_progress("s", _record("finished", dead_pid, "2"), worker="done")
    store.write_progress("s", _record("running", os.getpid(), "3"), worker="busy")
    store.forget_ended_workers("s")
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == ["progress-busy.json"]
    assert store.read_progress("s") == _record("running", os.getpid(), "3")


def test_a_damaged_record_is_passed_over(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path)
    store.write_progress("s", _record("finished", 1, "1"), worker="a")
    (tmp_path / "s" / "progress-b.json").write_text('{"state": "run')
    assert store.read_progress("s") == _record("finished", 1, "1")


def test_a_sweepers_evidence_reads_back_as_written() -> None:
    """The progress record's model mirrors ``sweep.stopping``'s dataclasses field for field
    (with stricter types): a field added there and not here would be dropped on reading, a
    type changed there refused."""
    from sweeper.store.progress_record import checked_progress
    from sweeper.sweep.stopping import ClassEvidence, StopDecision

    pick = ClassEvidence(
        name="data_file",
        pick="raid10/host_striped/wb-ra",
        p_beaten=0.25,
        confidence=0.75,
        confident=False,
        fitted=7,
        threat="raid5/host_striped/wb-ra",
        p_threat=0.125,
        unsure="too few configurations",
        predicted_best="raid6/pool_striped/wb-ra",
    )
    decision = StopDecision(False, 5.0, 0.9, 7, 18, (pick,)).record()
    assert checked_progress({"state": "running", "evidence": decision})["evidence"] == decision
