"""A resumed sweep finds the runs a completed configuration must have that the store holds
no more (their files deleted outright: nothing left out names them) and measures them again;
never a pruned configuration's, a run that failed, nor a run its rules would not have run (a
stopped curve's higher cells, a dynamic repetition the rule may not have asked for). Two
sweepers measuring a configuration's lost runs at once: one claims them, the other passes."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
import yaml

from sweeper.locking import claim, holder_of, lock_record
from sweeper.spec import SweepSpec, load_spec
from sweeper.spec.matrix import DynamicRepetitions
from sweeper.store import RunAddress
from sweeper.store.base import LeftOut, StoredRuns
from sweeper.store.records import config_folder
from sweeper.sweep.lost import (
    Lost,
    Settled,
    addresses,
    claim_lock,
    good_record,
    lost_runs,
    ran,
    recorded_good,
)
from sweeper.sweep.measure import Sweep, ran_later
from sweeper.sweep.plan import planned_cells
from tests.support.specs import tiny_sim_spec

RAID5, RAID10 = "raid5/single_rank/wb-ra", "raid10/single_rank/wb-ra"


@pytest.fixture
def spec(tmp_path: Path) -> SweepSpec:
    """The tiny sweep: RAID 5 and 10, four cells, two repetitions."""
    loaded, _ = load_spec(tiny_sim_spec(tmp_path, "tiny"))
    return loaded


@pytest.fixture
def curves(tmp_path: Path) -> SweepSpec:
    """The tiny sweep with curves of three points each (1x1, 1x4, 1x16 I/Os in flight)."""
    path = tiny_sim_spec(tmp_path, "curves", extra_cells=False)
    data = yaml.safe_load(path.read_text())
    data["matrix"]["concurrency"] = ["1x1", "1x4", "1x16"]
    path.write_text(yaml.safe_dump(data))
    loaded, _ = load_spec(path)
    return loaded


def _dynamic(spec: SweepSpec, most: int = 4) -> SweepSpec:
    matrix = spec.matrix.model_copy(update={"dynamic_repetitions": DynamicRepetitions(max=most)})
    return spec.model_copy(update={"matrix": matrix})


def _all(spec: SweepSpec, key: str) -> set[RunAddress]:
    return set(addresses(spec, planned_cells(spec), key).values())


def _fixed(spec: SweepSpec, key: str) -> set[RunAddress]:
    return {a for a in _all(spec, key) if a.repetition <= spec.matrix.repetitions}


def test_a_deleted_run_of_a_completed_configuration_is_lost(spec: SweepSpec) -> None:
    cells = planned_cells(spec)
    every = _all(spec, RAID5) | _all(spec, RAID10)
    victim = sorted(_all(spec, RAID5))[3]
    stored = StoredRuns(every - {victim})
    settled = [Settled(RAID10, True), Settled(RAID5, True)]
    (lost,), notes = lost_runs(spec, cells, stored, settled)
    assert notes == [] and lost.key == RAID5 and lost.files == []
    assert lost.runs == lost.required == lost.deleted == {victim}
    assert (
        lost.said() == f"configuration {RAID5} was completed before run file(s) of it were deleted"
    )
    # every run stored: nothing
    assert lost_runs(spec, cells, StoredRuns(every), settled) == ([], [])
    # pruned (here after its first cell): never filled in, the runs it never measured not lost
    first = {a for a in _all(spec, RAID5) if a.cell_key == cells[0].key}
    assert lost_runs(spec, cells, StoredRuns(first), [Settled(RAID5, False)]) == ([], [])
    assert lost_runs(spec, cells, StoredRuns(every - {victim}), [Settled(RAID5, False)]) == (
        [],
        [],
    )


def test_a_run_that_failed_is_not_lost(spec: SweepSpec) -> None:
    cells = planned_cells(spec)
    every = _all(spec, RAID5)
    failed, deleted = sorted(every)[:2]
    stored = StoredRuns(every - {failed, deleted})
    (lost,), _ = lost_runs(spec, cells, stored, [Settled(RAID5, True)], {RAID5: {failed}})
    assert lost.runs == lost.required == {deleted}
    assert lost_runs(spec, cells, stored, [Settled(RAID5, True)], {RAID5: {failed, deleted}}) == (
        [],
        [],
    )


def test_damaged_and_deleted_runs_of_one_configuration_are_measured_together(
    spec: SweepSpec,
) -> None:
    cells = planned_cells(spec)
    every = _all(spec, RAID5)
    damaged, deleted = sorted(every)[:2]
    folder = config_folder("tiny", RAID5)
    file = LeftOut(Path(f"/s/runs/{folder}/{damaged.run_id}.parquet"), "x", folder, damaged.run_id)
    stored = StoredRuns(every - {damaged, deleted}, [file])
    (lost,), _ = lost_runs(spec, cells, stored, [Settled(RAID5, True)])
    assert lost.required == {damaged, deleted} and lost.deleted == {deleted}
    assert lost.files == [file]
    assert lost.said() == (
        f"configuration {RAID5} was completed before its run file(s) {file.path} were damaged "
        "and others deleted"
    )
    # pruned: the damaged run file's own run alone (the deleted one cannot be told from
    # one never run)
    (lost,), _ = lost_runs(spec, cells, stored, [Settled(RAID5, False)])
    assert lost.required == {damaged} and lost.deleted == set()


def _curve(spec: SweepSpec, pattern: str) -> list[RunAddress]:
    """The runs of ``pattern``'s curve of RAID 5, from the fewest I/Os in flight."""
    return sorted(
        (a for a in _fixed(spec, RAID5) if a.cell_key.startswith(pattern)),
        key=lambda a: (int(a.cell_key.split("/")[2].split("x")[1]), a.repetition),
    )


def test_a_stopped_curve_is_filled_in_up_to_where_it_stopped(curves: SweepSpec) -> None:
    """The randwrite curve stopped after 1x4 (its 1x16 never run): a deleted run of 1x1 or
    of 1x4 is lost, 1x16's are not; the randread curve went to its end."""
    cells = planned_cells(curves)
    reads, writes = _curve(curves, "randread"), _curve(curves, "randwrite")
    assert len(reads) == len(writes) == 6  # three points × two repetitions
    stopped = next(c.curve for c in cells if c.key.startswith("randwrite"))
    config = Settled(RAID5, True, frozenset({stopped}))
    ran_writes = set(writes[:4])
    every = set(reads) | ran_writes
    assert lost_runs(curves, cells, StoredRuns(every), [config]) == ([], [])
    for victim in (writes[0], writes[3], reads[5]):
        (lost,), _ = lost_runs(curves, cells, StoredRuns(every - {victim}), [config])
        assert lost.runs == lost.required == {victim}, victim
    # the highest point's runs all gone: where the curve stopped cannot be told
    assert lost_runs(curves, cells, StoredRuns(every - set(writes[2:4])), [config]) == ([], [])
    # not stopped: its 1x16 runs are lost too
    (lost,), _ = lost_runs(curves, cells, StoredRuns(every), [Settled(RAID5, True)])
    assert lost.required == set(writes[4:])


def test_dynamic_repetitions_are_lost_where_a_later_one_shows_they_ran(spec: SweepSpec) -> None:
    """Two fixed repetitions, up to four while the IOPS vary: a third deleted while a fourth
    is stored was run; a fourth missing after a third may not have been (the rule decides,
    once the configuration is built for a run that surely was)."""
    dynamic = _dynamic(spec)
    cells = planned_cells(dynamic)
    cell = cells[0].key
    every = {a for a in _all(dynamic, RAID5) if a.cell_key != cell or a.repetition <= 4}
    config = Settled(RAID5, True)
    third = RunAddress("tiny", RAID5, cell, 3)
    fourth = RunAddress("tiny", RAID5, cell, 4)
    (lost,), _ = lost_runs(dynamic, cells, StoredRuns(every - {third}), [config])
    assert lost.required == {third} and lost.runs == {third}
    # the fourth missing: none surely run, nothing measured
    assert lost_runs(dynamic, cells, StoredRuns(every - {fourth}), [config]) == ([], [])
    may, sure = ran(dynamic, cells, config, {(a.cell_key, a.repetition) for a in every - {fourth}})
    assert may == {fourth} and sure == set()
    # a fixed repetition gone with it: both measured where the rule asks (the fourth may be)
    first = RunAddress("tiny", RAID5, cell, 1)
    (lost,), _ = lost_runs(dynamic, cells, StoredRuns(every - {first, fourth}), [config])
    assert lost.required == {first} and lost.runs == {first, fourth}


def test_measuring_again_reaches_a_repetition_a_later_one_shows_was_run(spec: SweepSpec) -> None:
    dynamic = _dynamic(spec, most=5)
    cell = planned_cells(dynamic)[0]
    sweep = Sweep(dynamic, None, [], [], None, None, None)  # type: ignore[arg-type]
    done = {RunAddress("tiny", RAID5, cell.key, r) for r in (1, 2, 4)}
    assert ran_later(sweep, RAID5, cell, 3, done)  # the fourth is stored: the third ran
    assert not ran_later(sweep, RAID5, cell, 4, done)
    assert not ran_later(sweep, RAID10, cell, 3, done)


def test_the_lost_runs_of_a_configuration_are_claimed_by_one(tmp_path: Path) -> None:
    """A second sweeper (here, a second open of the lock) finds the claim held and passes
    the work by; once let go, the claim is free again and names nobody."""
    path = claim_lock(tmp_path / "tiny", RAID5)
    assert path.parent == tmp_path / "tiny" / ".lost-runs"
    assert claim_lock(tmp_path / "tiny", RAID10) != path
    record = lock_record("raidsweep run tiny", sweep="tiny", worker="a")
    with claim(path, "lost runs", record) as first:
        assert first
        assert holder_of(path) is not None
        with claim(path, "lost runs", record | {"worker": "b"}) as second:
            assert not second
        assert holder_of(path) is not None  # the second took nothing from the first
    assert holder_of(path) is None
    with claim(path, "lost runs", record) as again:
        assert again


def test_lost_says_what_became_of_its_files() -> None:
    folder = config_folder("tiny", RAID5)
    part = LeftOut(Path(f"/s/compacted/{folder}.1.parquet"), "damaged", folder, part=True)
    lost = Lost(RAID5, True, files=[part])
    assert lost.said() == (
        f"configuration {RAID5} was completed before its run file(s) {part.path} were damaged"
    )


def test_the_good_runs_recorded_at_completion_decide_what_was_lost(curves: SweepSpec) -> None:
    """A configuration that recorded its good runs when it completed: each missing is lost,
    whatever the store's failed attempts and the curve's stop would have the rules say (a run
    that failed, was measured again and succeeded; a stopped curve's highest point)."""
    cells = planned_cells(curves)
    reads, writes = _curve(curves, "randread"), _curve(curves, "randwrite")
    stopped = next(c.curve for c in cells if c.key.startswith("randwrite"))
    ran_writes = set(writes[:4])
    every = set(reads) | ran_writes
    good = frozenset((a.cell_key, a.repetition) for a in every)
    config = Settled(RAID5, True, frozenset({stopped}), good)
    assert lost_runs(curves, cells, StoredRuns(every), [config]) == ([], [])
    # the highest point reached, both its runs gone: lost, where the rules cannot tell
    top = set(writes[2:4])
    (lost,), _ = lost_runs(curves, cells, StoredRuns(every - top), [config])
    assert lost.runs == lost.required == lost.deleted == top
    # a run with a failed attempt stored, recorded good: it succeeded later; lost
    victim = reads[0]
    failed = {RAID5: {victim}}
    (lost,), _ = lost_runs(curves, cells, StoredRuns(every - {victim}), [config], failed)
    assert lost.required == {victim}
    # never recorded good (it failed for good): not lost
    short = Settled(
        RAID5, True, frozenset({stopped}), good - {(victim.cell_key, victim.repetition)}
    )
    assert lost_runs(curves, cells, StoredRuns(every - {victim}), [short], failed) == ([], [])
    # the cells never run past the stop are not in the record: never lost
    may, sure = ran(curves, cells, config, {(a.cell_key, a.repetition) for a in every})
    assert may == sure == set()


def test_the_good_runs_record_counts_where_the_repetitions_run_one_to_n() -> None:
    """The record is a count per cell where its good runs are repetitions 1..n (a matrix of
    thousands of cells stays small in Optuna's storage), the list where one is missing; both
    read back as the runs they name, and so does the list form of earlier records."""
    rows = [("randread/8k", r) for r in (1, 2, 3)] + [("write/4k", r) for r in (1, 3)]
    rows += [("read/64k", 2)]
    runs = pd.DataFrame(rows, columns=["cell_key", "repetition"])
    record = good_record(runs)
    assert record == {"randread/8k": 3, "read/64k": [2], "write/4k": [1, 3]}
    assert recorded_good(record) == frozenset(rows)
    listed = {"randread/8k": [1, 2, 3], "write/4k": [1, 3], "read/64k": [2]}
    assert recorded_good(listed) == frozenset(rows)
    assert recorded_good({"randread/8k": True}) == frozenset()
    assert good_record(runs.iloc[:0]) == {}
