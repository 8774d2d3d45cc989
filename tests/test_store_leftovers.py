"""The store's leftovers, without a sweep: what a read leaves out is named with its place (a
run's own file, a failed attempt's, a configuration's part), so that a resumed sweep can
measure the lost runs of a configuration it had completed (``sweep.lost``); a run file is
judged once per ``has_run``; a sweep's and a progress record are read and checked once while
they stay as they are; and raidsweep's own files are recognised by their footers' columns
without Arrow parsing them, every other file still judged by Arrow."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import sweeper.store.progress as progress_module
import sweeper.store.sweeps as sweeps_module
from sweeper.errors import StoreError
from sweeper.spec import SweepSpec, load_spec
from sweeper.spec.matrix import DynamicRepetitions
from sweeper.store import (
    CONFIG_SCHEMA,
    RUN_SCHEMA,
    ParquetStore,
    RunAddress,
    footer,
    trust,
    wholeness,
)
from sweeper.store.base import LeftOut, StoredRuns
from sweeper.store.records import config_folder
from sweeper.sweep.lost import Settled, addresses, lost_runs
from sweeper.sweep.plan import planned_cells
from tests.support.specs import tiny_sim_spec
from tests.test_store import A, B, fill, run_row

# the store: what a read leaves out, and where ----------------------------------------------


def _folder_files(store: ParquetStore, config: str) -> list[Path]:
    return sorted((store.root / "s1" / "runs" / config_folder("s1", config)).glob("*.parquet"))


def test_a_read_names_each_file_it_leaves_out_with_its_place(tmp_path: Path) -> None:
    """A's runs compacted into a part that is then damaged; of B's run files one truncated,
    one holding another run, and a failed attempt's file that is garbage: each is left out
    and named with whose place it is; the good runs are done, the others are not."""
    store = ParquetStore(tmp_path / "store")
    fill(store)
    store.compact("s1", A)
    (part,) = (store.root / "s1" / "compacted").glob("*.parquet")
    part.write_bytes(part.read_bytes()[:-50])
    ok = [f for f in _folder_files(store, B) if ".failed-" not in f.name]
    truncated, swapped = ok[0], ok[1]
    truncated.write_bytes(truncated.read_bytes()[:100])
    swapped.write_bytes(ok[2].read_bytes())
    failed = truncated.with_name(f"{truncated.stem}.failed-20250101T000000000000.parquet")
    failed.write_bytes(b"not parquet" * 10)

    stored = store.stored_runs("s1")

    assert len(stored.done) == 4 and all(a.config_key == B for a in stored.done)
    assert {a.run_id for a in stored.done}.isdisjoint({truncated.stem, swapped.stem})
    by_path = {f.path: f for f in stored.left_out}
    assert set(by_path) == {part, truncated, swapped, failed}
    assert by_path[part].part and by_path[part].run_id is None
    assert by_path[part].folder == config_folder("s1", A)
    assert by_path[truncated].run_id == truncated.stem and not by_path[truncated].part
    assert "not a whole Parquet file" in by_path[truncated].problem
    assert by_path[swapped].run_id == swapped.stem
    assert "not the run its place in the store is for" in by_path[swapped].problem
    assert by_path[failed].run_id is None and not by_path[failed].part
    assert [f.path for f in stored.left_out_of("s1", A)] == [part]
    # each said in ``damaged`` too, as every read says it; done_addresses reads the same
    assert all(any(str(path) in line for line in store.damaged) for path in by_path)
    assert store.done_addresses("s1") == stored.done


def test_done_counts_no_run_a_reader_leaves_out(tmp_path: Path) -> None:
    """A file holding another run than its place's is left out by readers: neither the run
    of its place nor the one it holds is done for that file (done_addresses counted the one
    it holds, a run no reader reads, so a resume never measured it)."""
    store = ParquetStore(tmp_path / "store")
    fill(store)
    files = [f for f in _folder_files(store, A) if ".failed-" not in f.name]
    held = pq.read_table(files[0]).to_pylist()[0] | {"cell_key": "read/1m/qd1x1", "repetition": 9}
    pq.write_table(pa.Table.from_pylist([held], schema=RUN_SCHEMA), files[0])
    elsewhere = RunAddress("s1", A, "read/1m/qd1x1", 9)
    done = store.done_addresses("s1")
    assert len(done) == 11 and elsewhere not in done
    assert files[0].stem not in {a.run_id for a in done}
    assert elsewhere.run_id not in set(store.runs("s1")["run_id"]) and not store.has_run(elsewhere)


def test_compaction_leaves_a_file_holding_another_run_in_place(tmp_path: Path) -> None:
    """Merged, the copied run would read from the part and the run whose place it is would
    be lost without a word; left in place, readers name it and a resume measures its run."""
    store = ParquetStore(tmp_path / "store")
    fill(store)
    files = [f for f in _folder_files(store, A) if ".failed-" not in f.name]
    files[0].write_bytes(files[1].read_bytes())
    store.compact("s1", A)
    assert files[0].exists() and not files[1].exists()
    stored = store.stored_runs("s1")
    assert [f.path for f in stored.left_out] == [files[0]]
    assert len(stored.done) == 11


def test_compaction_passes_over_a_damaged_part(tmp_path: Path) -> None:
    """A damaged part of a configuration does not stop its compaction (it stopped it with
    the part's error): the run files are merged into a new part, the damaged one stays."""
    store = ParquetStore(tmp_path / "store")
    fill(store)
    store.compact("s1", A)
    (part,) = (store.root / "s1" / "compacted").glob("*.parquet")
    part.write_bytes(b"garbage" * 20)
    assert store.put_run(run_row(config=A, cell="randread/8k/qd1x1", rep=1))
    assert store.compact("s1", A) == 1
    assert part.exists()
    assert RunAddress("s1", A, "randread/8k/qd1x1", 1) in store.done_addresses("s1")


# has_run: one judgement per check ---------------------------------------------------------


def _fresh_caches() -> None:
    wholeness._verdict.cache_clear()
    wholeness._part_keys.cache_clear()
    wholeness._WRITTEN.clear()


@pytest.mark.parametrize("damaged", [False, True])
def test_has_run_judges_the_run_file_once(tmp_path: Path, damaged: bool) -> None:
    """has_run judged the file in the run's place as a run (its columns) and then again as
    keys (its run id, status, end): two reads and checks of the same footer per check."""
    store = ParquetStore(tmp_path / "store")
    row = run_row()
    assert store.put_run(row)
    address = RunAddress("s1", row["config_key"], row["cell_key"], 1)
    (path,) = _folder_files(store, row["config_key"])
    if damaged:
        path.write_bytes(path.read_bytes()[:-30])
    _fresh_caches()
    assert store.has_run(address) is not damaged
    assert wholeness._verdict.cache_info().misses == 1


def test_a_run_file_damaged_past_its_columns_is_no_run(tmp_path: Path) -> None:
    """The footer's columns whole (the file is recognised as raidsweep's without Arrow),
    what follows them not: each reader still finds it damaged, names it and reads the rest;
    has_run does not count it; compaction leaves it where it is."""
    store = ParquetStore(tmp_path / "store")
    fill(store)
    ok = [f for f in _folder_files(store, A) if ".failed-" not in f.name]
    victim = ok[0]
    data = bytearray(victim.read_bytes())
    footer_at = len(data) - 8 - int.from_bytes(data[-8:-4], "little")
    start = footer_at + len(footer._columns_prefix(RUN_SCHEMA))
    data[start : start + 64] = b"\xff" * 64
    victim.write_bytes(bytes(data))
    _fresh_caches()
    assert footer._recognised(str(victim)) == RUN_SCHEMA  # its columns are as written

    runs = store.runs("s1")
    assert len(runs) == 11 and victim.stem not in set(runs["run_id"])
    assert any(str(victim) in line and "damaged" in line for line in store.damaged)
    row = pq.read_table(ok[1]).to_pylist()[0]
    address = RunAddress("s1", A, row["cell_key"], 1)
    victim_address = next(
        RunAddress("s1", A, c, r)
        for c in ("randread/8k/qd1x1", "write/4k/qd1x1")
        for r in (1, 2, 3)
        if RunAddress("s1", A, c, r).run_id == victim.stem
    )
    assert store.has_run(address) and not store.has_run(victim_address)
    with pytest.raises(StoreError, match="not a whole Parquet file"):
        store.run_detail(victim.stem)
    store.compact("s1", A)
    assert victim.exists()
    assert victim_address not in store.done_addresses("s1")


# raidsweep's own files recognised by their columns ------------------------------------------


def test_own_files_are_recognised_and_others_are_not(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path / "store")
    fill(store)
    store.compact("s1", A)
    (part,) = (store.root / "s1" / "compacted").glob("*.parquet")
    run_file = _folder_files(store, B)[0]
    assert footer._recognised(str(part)) == RUN_SCHEMA
    assert footer._recognised(str(run_file)) == RUN_SCHEMA
    config = tmp_path / "config.parquet"
    pq.write_table(CONFIG_SCHEMA.empty_table(), config)
    assert footer._recognised(str(config)) == CONFIG_SCHEMA
    # another type in one column, a column fewer, another order: Arrow judges them
    table = pq.read_table(run_file)
    others = {
        "retyped": table.set_column(
            table.schema.get_field_index("iops"), "iops", pa.array(["1"], pa.string())
        ),
        "fewer": table.drop(["steady"]),
        "reordered": table.select(list(reversed(table.column_names))),
    }
    for name, other in others.items():
        path = tmp_path / f"{name}.parquet"
        pq.write_table(other, path)
        assert footer._recognised(str(path)) is None, name
    _fresh_caches()
    retyped = tmp_path / "retyped.parquet"
    problem = trust.part_problem(retyped, trust.RUN_LAYOUT)
    assert problem == "damaged, column 'iops' is string where raidsweep writes double"
    for name in ("garbage", "empty"):
        path = tmp_path / f"{name}.parquet"
        path.write_bytes(b"PAR1 not parquet PAR1" if name == "garbage" else b"")
        assert footer._recognised(str(path)) is None
        assert "not a whole Parquet file" in (trust.part_problem(path, trust.RUN_LAYOUT) or "")


# records read and checked once while they stay as they are ----------------------------------


def _counting(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    calls: list[int] = []
    original = getattr(module, name)

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def _record(description: str) -> dict:
    return {"sweep_id": "s1", "fingerprint": "f", "spec": {}, "description": description}


def test_a_sweep_record_is_checked_once_while_it_stays_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks = _counting(monkeypatch, sweeps_module, "sweep_record")
    store = ParquetStore(tmp_path / "store")
    store.create_sweep("s1", _record("first"))  # written, then read back as the record
    first = store.get_sweep("s1")
    assert first is not None and first["description"] == "first"
    first["description"] = "changed by a caller"  # a copy of its own
    again = ParquetStore(tmp_path / "store").get_sweep("s1")
    assert again is not None and again["description"] == "first"
    assert len(checks) == 1
    # written anew: read and checked anew
    path = tmp_path / "store" / "s1" / "sweep.json"
    path.write_text(path.read_text().replace('"first"', '"second"'))
    third = store.get_sweep("s1")
    assert third is not None and third["description"] == "second" and len(checks) == 2
    # damaged: refused each time it is read
    path.write_text('{"sweep_id": "s1"}')
    for _ in range(2):
        with pytest.raises(StoreError, match="damaged"):
            store.get_sweep("s1")


def test_a_progress_record_is_checked_once_while_it_stays_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ParquetStore(tmp_path / "store")
    store.create_sweep("s1", _record("x"))
    store.write_progress("s1", {"state": "running", "pid": 1, "runs_total": 8})
    checks = _counting(monkeypatch, progress_module, "checked_progress")
    assert (store.read_progress("s1") or {}).get("runs_total") == 8
    assert (store.read_progress("s1") or {}).get("runs_total") == 8
    assert len(checks) == 1
    store.write_progress("s1", {"state": "running", "pid": 1, "runs_total": 9})
    assert (store.read_progress("s1") or {}).get("runs_total") == 9 and len(checks) == 2
    path = tmp_path / "store" / "s1" / "progress.json"
    path.write_text('{"state": "done"}')
    for _ in range(2):
        assert store.read_progress("s1") is None
        assert any(str(path) in line and "damaged" in line for line in store.damaged)


# the sweep: which runs of a settled configuration are lost ----------------------------------


@pytest.fixture
def spec(tmp_path: Path) -> SweepSpec:
    """The tiny sweep: RAID 5 and 10, four cells, two repetitions."""
    loaded, _ = load_spec(tiny_sim_spec(tmp_path, "tiny"))
    return loaded


RAID5, RAID10 = "raid5/single_rank/wb-ra", "raid10/single_rank/wb-ra"


def _all(spec: SweepSpec, key: str) -> set[RunAddress]:
    return set(addresses(spec, planned_cells(spec), key).values())


def _run_file(address: RunAddress, problem: str = "damaged") -> LeftOut:
    folder = config_folder(address.sweep_id, address.config_key)
    return LeftOut(
        Path(f"/s/runs/{folder}/{address.run_id}.parquet"), problem, folder, address.run_id
    )


def test_a_damaged_run_of_a_completed_configuration_is_lost_alone(spec: SweepSpec) -> None:
    cells = planned_cells(spec)
    every = _all(spec, RAID5) | _all(spec, RAID10)
    assert len(every) == 16
    victim = sorted(_all(spec, RAID5))[3]
    stored = StoredRuns(every - {victim}, [_run_file(victim)])
    settled = [Settled(RAID10, True), Settled(RAID5, True)]
    (lost,), notes = lost_runs(spec, cells, stored, settled)
    assert lost.key == RAID5 and lost.runs == lost.required == {victim} and notes == []
    # a pruned configuration's run file alike; one not settled is the loop's to measure
    (lost,), _ = lost_runs(spec, cells, stored, [Settled(RAID5, False)])
    assert lost.runs == {victim}
    assert lost_runs(spec, cells, stored, [Settled(RAID10, True)]) == ([], [])
    # the run is stored elsewhere (a part): nothing is lost
    assert lost_runs(spec, cells, StoredRuns(every, [_run_file(victim)]), settled) == ([], [])


def test_files_that_tell_no_lost_run(spec: SweepSpec) -> None:
    cells = planned_cells(spec)
    every = _all(spec, RAID5)
    folder = config_folder("tiny", RAID5)
    stray = LeftOut(Path(f"/s/runs/{folder}/{'0' * 24}.parquet"), "damaged", folder, "0" * 24)
    failed = LeftOut(Path(f"/s/runs/{folder}/x.failed-1.parquet"), "damaged", folder)
    lost, notes = lost_runs(spec, cells, StoredRuns(every, [stray, failed]), [Settled(RAID5, True)])
    assert lost == []
    (note,) = notes
    assert note.startswith(f"{stray.path}: the configuration {RAID5} was completed")
    assert "nothing is measured again" in note


def test_a_damaged_part_loses_the_runs_stored_nowhere_else(spec: SweepSpec) -> None:
    """Which runs a damaged part held cannot be told: a completed configuration's runs that
    the store no longer holds, but those of its stopped curves (never run), are measured
    again; a pruned configuration's are not (how far it went cannot be told), and it is said."""
    cells = planned_cells(spec)
    every = _all(spec, RAID5)
    folder = config_folder("tiny", RAID5)
    part = LeftOut(Path(f"/s/compacted/{folder}.1.parquet"), "damaged", folder, part=True)
    read = next(a for a in every if a.cell_key.startswith("randread"))
    stopped = next(c.curve for c in cells if c.key.startswith("randwrite"))
    stored = StoredRuns({read}, [part])
    (lost,), notes = lost_runs(spec, cells, stored, [Settled(RAID5, True, frozenset({stopped}))])
    assert notes == []
    expected = {a for a in every if a != read and not a.cell_key.startswith("randwrite")}
    assert lost.runs == lost.required == expected and lost.files == [part]
    # every run of it read from elsewhere (a crash left its run files beside the part)
    assert lost_runs(spec, cells, StoredRuns(every, [part]), [Settled(RAID5, True)]) == ([], [])
    lost_, (note,) = lost_runs(spec, cells, stored, [Settled(RAID5, False)])
    assert lost_ == [] and note.startswith(f"{part.path}: the configuration {RAID5} was pruned")


def test_dynamic_repetitions_may_be_measured_again_but_need_not(spec: SweepSpec) -> None:
    matrix = spec.matrix.model_copy(update={"dynamic_repetitions": DynamicRepetitions(max=4)})
    dynamic = spec.model_copy(update={"matrix": matrix})
    cells = planned_cells(dynamic)
    every = _all(dynamic, RAID5)
    assert max(a.repetition for a in every) == 4 and len(every) == 16
    folder = config_folder("tiny", RAID5)
    part = LeftOut(Path(f"/s/compacted/{folder}.1.parquet"), "damaged", folder, part=True)
    (lost,), _ = lost_runs(dynamic, cells, StoredRuns(set(), [part]), [Settled(RAID5, True)])
    assert lost.runs == every
    assert lost.required == {a for a in every if a.repetition <= 2}
