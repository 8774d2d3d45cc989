"""A run file deleted outright from a completed configuration is measured again by the resume;
two workers resuming the sweep at once measure it once.

A finished sweep 'tiny' on the simulated array (RAID 5 and RAID 10 × four cells × two
repetitions, each configuration built by a real Ansible play): one of RAID 5's run files is
then deleted. Nothing is left in its place for a reader to name, but ``raidsweep run`` of the
spec again finds the configuration short of a run its rules ran, builds it again, measures
that run and no other, and says so by name; ``status`` shows the sweep whole again. Two
``raidsweep run --worker`` started at once on the same store, one run file damaged and one
deleted: each is measured by exactly one of them.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from sweeper.store import ParquetStore, RunAddress
from sweeper.store.records import config_folder
from tests.support.cli import cli, finish, start
from tests.support.sweeps import copy_store, stored_configurations, swept_tiny

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("lock_dir")]
SWEEP = "tiny"
RUNS = 16  # 2 configurations × 4 cells × 2 repetitions
RAID5, RAID10 = "raid5/single_rank/wb-ra", "raid10/single_rank/wb-ra"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The finished sweep's store, and its spec."""
    return swept_tiny(tmp_path_factory.mktemp("deleted"), SWEEP, RUNS)


def _run_file(store: Path, config: str) -> tuple[Path, RunAddress]:
    """One of ``config``'s run files, and the run it holds."""
    folder = store / SWEEP / "runs" / config_folder(SWEEP, config)
    victim = sorted(folder.glob("*.parquet"))[1]
    good = pq.read_table(victim).to_pylist()[0]
    return victim, RunAddress(SWEEP, good["config_key"], good["cell_key"], good["repetition"])


def _said(out: str) -> str:
    return " ".join(out.split())


def _status_runs(store: Path) -> str:
    done = cli("status", SWEEP, "--store", store, columns=300)
    assert done.returncode == 0, done.stderr
    return _said(done.stdout)


def test_a_deleted_run_of_a_completed_configuration_is_measured_again(
    pristine: tuple[Path, Path], tmp_path: Path
) -> None:
    source, spec_path = pristine
    store = copy_store(source, tmp_path)
    victim, address = _run_file(store, RAID5)
    victim.unlink()
    builds = stored_configurations(store, SWEEP)
    assert f"{RUNS - 1}/{RUNS}" in _status_runs(store)  # the gap, before the resume

    done = cli("run", spec_path, "--store", store, columns=400)
    out = _said(done.stdout + done.stderr)

    assert done.returncode == 0 and "Traceback" not in out, out
    assert "1 run(s) written" in out and "0 failed" in out, out
    said = (
        f"warning: configuration {RAID5} was completed before run file(s) of it were deleted; "
        f"measured again: {address.cell_key} #{address.repetition}"
    )
    assert said in out, out
    assert victim.is_file()
    assert stored_configurations(store, SWEEP) == builds | {RAID5: builds[RAID5] + 1}
    runs = ParquetStore(store).runs(SWEEP)
    assert len(runs) == RUNS and runs["run_id"].is_unique
    assert f"{RUNS}/{RUNS}" in _status_runs(store)
    # and it is done: the next resume measures and says nothing
    again = cli("run", spec_path, "--store", store, columns=400)
    out = _said(again.stdout + again.stderr)
    assert again.returncode == 0 and "0 run(s) written" in out and "warning" not in out, out


def test_two_workers_resuming_at_once_measure_each_lost_run_once(
    pristine: tuple[Path, Path], tmp_path: Path
) -> None:
    """RAID 5's run file damaged (truncated), one of RAID 10's deleted: both workers read the
    store before either has measured anything, and both find both runs lost. Each
    configuration's lost run is claimed: one worker builds it again and measures it, the
    other passes it by and says nothing of it (not measured, nor not measured again)."""
    source, spec_path = pristine
    store = copy_store(source, tmp_path)
    damaged, first = _run_file(store, RAID5)
    damaged.write_bytes(damaged.read_bytes()[:-300])
    deleted, second = _run_file(store, RAID10)
    deleted.unlink()
    builds = stored_configurations(store, SWEEP)
    workers = [
        start("run", spec_path, "--store", store, "--worker", name, columns=400)
        for name in ("a", "b")
    ]
    outs = []
    for proc in workers:
        code, out = finish(proc)
        outs.append(out)
        assert code == 0 and "Traceback" not in out, out

    said = [w for o in outs for w in o.split("warning: ")[1:]]
    assert not [w for w in said if "not measured again" in w], said
    for address in (first, second):
        run = f"{address.cell_key} #{address.repetition}"
        measured = [w for w in said if w.startswith(f"configuration {address.config_key} ")]
        assert len(measured) == 1 and f"measured again: {run}" in measured[0], said
    written = sum(int(o.split(" run(s) written")[0].rsplit(" ", 1)[1]) for o in outs)
    assert written == 2, outs
    assert stored_configurations(store, SWEEP) == builds | {
        RAID5: builds[RAID5] + 1,
        RAID10: builds[RAID10] + 1,
    }
    results = ParquetStore(store)
    runs = results.runs(SWEEP)
    assert len(runs) == RUNS and runs["run_id"].is_unique
    for address in (first, second):
        assert [a["status"] for a in results.run_attempts(address.run_id)] == ["ok"]
