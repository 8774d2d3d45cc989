"""What the sweep keeps in memory of its store reads as the store itself would."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pandas as pd

from sweeper.ansible import PlayResult
from sweeper.configuration import Configuration
from sweeper.fio import DirectionStats, FioResult
from sweeper.spec import Matrix, load_spec
from sweeper.store import ParquetStore, RunAddress
from sweeper.study import open_sweep_study
from sweeper.sweep.books import KnownRuns
from sweeper.sweep.measure import ConfigurationRuns
from sweeper.sweep.records import Attempt, RunContext, run_row
from sweeper.workload import WorkloadCell
from tests.support.paths import QUICK
from tests.support.runs import output

SWEEP = "quick"
MATRIX = Matrix(patterns=["randread"], block_sizes=["8k"], runtime="10s", ramp="1s")
CONTEXT = RunContext("sim", MATRIX, Path("hosts.yml"), {"load_hosts": [{"hostname": "here"}]})
PLAY = PlayResult("successful", 0, 1, None, None, "", 0.1)
FINISHED = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def a_run(config_key: str, cell_key: str, rep: int, iops: float, ok: bool = True) -> dict:
    cell = WorkloadCell.parse(cell_key)
    stats = DirectionStats(iops, iops / 100, 1.0, 1.0, 2.0, None, None, None, 10)
    parsed = FioResult(stats, None, {}, "fio-3.33", 1) if ok else None
    attempt = Attempt(
        output(stdout="{}", array_time_s=11.0),
        parsed,
        None if ok else "fio exited 1",
        FINISHED,
        1.0,
    )
    address = RunAddress(SWEEP, config_key, cell.key, rep)
    finished = FINISHED + timedelta(seconds=rep)
    return run_row(
        CONTEXT, Configuration.from_key(config_key), cell, address, attempt, PLAY, finished
    )


def with_id(row: dict) -> dict:
    address = RunAddress(row["sweep_id"], row["config_key"], row["cell_key"], row["repetition"])
    return dict(row, run_id=address.run_id)


R5 = "raid5/single_rank/wb-ra"
R10 = "raid10/single_rank/wb-ra"


def test_a_configurations_runs_in_memory_are_what_the_store_reads(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path)
    earlier = [a_run(R5, "randread/8k/qd1x1", 1, 900.0), a_run(R5, "write/4k/qd1x16", 2, 50.0)]
    for row in earlier:
        store.put_run(row)
    runs = ConfigurationRuns(store.runs(SWEEP, config_key=R5))
    later = [
        a_run(R5, "randread/8k/qd1x1", 2, 910.0),
        a_run(R5, "write/4k/qd1x16", 1, 55.0),
        a_run(R5, "randread/8k/qd1x1", 3, 920.0),
    ]
    for row in later:
        store.put_run(row)
        runs.add(with_id(row))
    store.put_run(a_run(R5, "randread/8k/qd1x1", 4, 0.0, ok=False))  # never among ok runs
    pd.testing.assert_frame_equal(runs.frame(), store.runs(SWEEP, config_key=R5))
    assert runs.iops() == {
        "randread/8k/qd1x1": {1: 900.0, 2: 910.0, 3: 920.0},
        "write/4k/qd1x16": {1: 55.0, 2: 50.0},
    }


def test_a_configuration_new_to_the_store_reads_the_same_from_memory(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path)
    runs = ConfigurationRuns(store.runs(SWEEP, config_key=R10))
    assert runs.frame().empty and runs.iops() == {}
    row = a_run(R10, "randread/8k/qd1x1/ws10", 1, 700.0)
    store.put_run(row)
    runs.add(with_id(row))
    pd.testing.assert_frame_equal(runs.frame(), store.runs(SWEEP, config_key=R10))


def test_known_runs_follow_this_sweeper_and_the_others_sharing_the_study(tmp_path: Path) -> None:
    spec, _ = load_spec(QUICK)
    store = ParquetStore(tmp_path / "store")
    study = open_sweep_study(spec, tmp_path / "study")
    store.put_run(a_run(R5, "randread/8k/qd1x1", 1, 900.0))
    known = KnownRuns(store, SWEEP, study)
    pd.testing.assert_frame_equal(known.runs(), store.runs(SWEEP))

    # this sweeper measured raid10: what it measured is put, the store is not read again
    mine = study.ask()
    known.mine(mine.number)
    frame = ConfigurationRuns(store.runs(SWEEP, config_key=R10))
    row = a_run(R10, "randread/8k/qd1x1", 1, 800.0)
    store.put_run(row)
    frame.add(with_id(row))
    known.put(R10, frame.frame())
    study.tell(mine, [1.0] * len(spec.classes))
    known.sync(study)
    pd.testing.assert_frame_equal(known.runs(), store.runs(SWEEP))
    assert set(known.runs({R10})["config_key"]) == {R10}

    # another sweeper finished raid6: seen through the study, read from the store once
    r6 = "raid6/single_rank/wb-ra"
    store.put_run(a_run(r6, "randread/8k/qd1x1", 1, 700.0))
    assert r6 not in set(known.runs()["config_key"])
    other = study.ask()
    other.set_user_attr("config_key", r6)
    study.tell(other, [1.0] * len(spec.classes))
    known.sync(study)
    pd.testing.assert_frame_equal(known.runs(), store.runs(SWEEP))
    assert known.runs({R5, r6})["config_key"].tolist() == [R5, r6]
