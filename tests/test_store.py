"""Contract of the results store: every backend passes the same tests (add it to BACKENDS)."""

from __future__ import annotations

import os
import subprocess
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sweeper.errors import StoreError
from sweeper.spec import load_spec
from sweeper.store import ParquetStore, ResultsStore, RunAddress
from sweeper.store.snapshot import SNAPSHOT
from sweeper.study import STUDY_FILE
from sweeper.sweep import run_sweep
from tests.support.paths import QUICK

BACKENDS = {"parquet": ParquetStore}


@pytest.fixture(params=sorted(BACKENDS))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ResultsStore:
    return BACKENDS[request.param](tmp_path / "store")


def run_row(
    config: str = "raid10/single_rank/wb-ra",
    cell: str = "randread/8k/qd1x1",
    rep: int = 1,
    status: str = "ok",
    iops: float = 1000.0,
) -> dict:
    now = datetime.now(UTC)
    return {
        "sweep_id": "s1",
        "config_key": config,
        "cell_key": cell,
        "repetition": rep,
        "status": status,
        "error": None if status == "ok" else "fio exited 1: boom",
        "platform": "sim",
        "raid_level": config.split("/")[0],
        "layout": config.split("/")[1],
        "ranks": 1,
        "cache_policy": "wb-ra",
        "pattern": cell.split("/")[0],
        "block_size": 8192,
        "iodepth": 1,
        "numjobs": 1,
        "engine": "psync",
        "read_iops": iops if status == "ok" else None,
        "iops": iops if status == "ok" else None,
        "mbps": iops * 8192 / 1e6 if status == "ok" else None,
        "runtime_s": 60.0,
        "ramp_s": 5.0,
        "array_time_s": 65.0,
        "started_at": now,
        "finished_at": now,
        "wall_s": 0.01,
        "fio_json": '{"jobs": []}',
        "job_file": "[global]\n",
    }


A = "raid10/single_rank/wb-ra"
B = "raid5/single_rank/wb-ra"


def fill(store: ResultsStore) -> None:
    """Two configurations of six runs each, and a failed attempt in the first."""
    for config in (A, B):
        for cell in ("randread/8k/qd1x1", "write/4k/qd1x1"):
            for rep in (1, 2, 3):
                assert store.put_run(run_row(config=config, cell=cell, rep=rep, iops=100.0 * rep))
    assert store.put_run(run_row(config=A, cell="read/1m/qd1x1", status="failed"))


def assert_same_runs(got: pd.DataFrame, expected: pd.DataFrame) -> None:
    key = ["run_id", "status", "finished_at"]
    assert not got.duplicated(key).any(), "a run read twice"
    pd.testing.assert_frame_equal(
        got.sort_values(key).reset_index(drop=True),
        expected.sort_values(key).reset_index(drop=True),
    )


def run_files(store: ParquetStore) -> list[Path]:
    return sorted(store.root.glob("*/runs/*/*.parquet"))


def crash_after_part_written(store: ResultsStore, config: str, keep: int) -> None:
    """The state a compaction killed after writing its part leaves: the part, and ``keep`` of
    the run files it merged still in place."""
    assert isinstance(store, ParquetStore)
    folder = store.root / "s1" / "runs" / store._config_dir_name("s1", config)
    saved = {p.name: p.read_bytes() for p in sorted(folder.glob("*.parquet"))[:keep]}
    assert len(saved) == keep
    store.compact("s1", config)
    for name, data in saved.items():
        (folder / name).write_bytes(data)


class TestStoreContract:
    def test_empty_store_reads_empty(self, store: ResultsStore) -> None:
        assert store.list_sweeps() == []
        assert store.runs("s1").empty
        assert store.configurations("s1").empty
        assert store.done_addresses("s1") == set()

    def test_put_run_then_read(self, store: ResultsStore) -> None:
        assert store.put_run(run_row()) is True
        runs = store.runs("s1")
        assert len(runs) == 1
        assert runs["iops"].iloc[0] == 1000.0
        assert "fio_json" not in runs.columns  # bulky raw columns stay out of tables
        detail = store.run_detail(runs["run_id"].iloc[0])
        assert detail is not None and detail["fio_json"] == '{"jobs": []}'

    def test_same_address_twice_is_a_no_op(self, store: ResultsStore) -> None:
        assert store.put_run(run_row(iops=1000.0)) is True
        assert store.put_run(run_row(iops=2000.0)) is False
        runs = store.runs("s1")
        assert len(runs) == 1 and runs["iops"].iloc[0] == 1000.0

    def test_addresses(self, store: ResultsStore) -> None:
        for rep in (1, 2, 3):
            store.put_run(run_row(rep=rep))
        store.put_run(run_row(cell="write/4k/qd1x1"))
        done = store.done_addresses("s1")
        assert RunAddress("s1", "raid10/single_rank/wb-ra", "randread/8k/qd1x1", 2) in done
        assert len(done) == 4
        assert store.has_run(RunAddress("s1", "raid10/single_rank/wb-ra", "write/4k/qd1x1", 1))
        assert not store.has_run(RunAddress("s1", "raid10/single_rank/wb-ra", "write/4k/qd1x1", 2))

    def test_failed_runs_are_kept_apart(self, store: ResultsStore) -> None:
        store.put_run(run_row(status="failed"))
        assert store.runs("s1").empty
        assert not store.has_run(
            RunAddress("s1", "raid10/single_rank/wb-ra", "randread/8k/qd1x1", 1)
        )
        everything = store.runs("s1", include_failed=True)
        assert list(everything["status"]) == ["failed"]
        assert everything["error"].iloc[0] == "fio exited 1: boom"
        # a later good run at the same address is stored as well
        assert store.put_run(run_row()) is True
        assert len(store.runs("s1", include_failed=True)) == 2

    def test_runs_of_one_configuration(self, store: ResultsStore) -> None:
        store.put_run(run_row(config="raid5/single_rank/wb-ra"))
        store.put_run(run_row(config="raid10/single_rank/wb-ra"))
        only = store.runs("s1", config_key="raid5/single_rank/wb-ra")
        assert list(only["config_key"]) == ["raid5/single_rank/wb-ra"]

    @pytest.mark.parametrize("include_failed", [False, True])
    @pytest.mark.parametrize("compacted", [False, True])
    def test_a_read_of_some_columns_is_the_whole_read_cut(
        self, store: ResultsStore, include_failed: bool, compacted: bool
    ) -> None:
        fill(store)
        if compacted:
            store.compact("s1", A)  # one configuration in a part, the other in run files
        whole = store.runs("s1", include_failed=include_failed)
        for columns in (["iops", "config_key"], ["mbps"], ["steady", "finished_at", "error"]):
            some = store.runs("s1", include_failed=include_failed, columns=columns)
            pd.testing.assert_frame_equal(some, whole[columns])
        one = store.runs("s1", config_key=B, columns=["repetition"])
        pd.testing.assert_frame_equal(one, store.runs("s1", config_key=B)[["repetition"]])

    @pytest.mark.parametrize("columns", [["iops", "fio_json"], ["no_such"], ["iops", "iops"]])
    def test_a_read_of_columns_it_has_not_is_refused(
        self, store: ResultsStore, columns: list[str]
    ) -> None:
        fill(store)
        with pytest.raises(StoreError, match="cannot be read as columns"):
            store.runs("s1", columns=columns)

    def test_sweep_records_refuse_another_spec(self, store: ResultsStore) -> None:
        record = {"sweep_id": "s1", "fingerprint": "aaa", "created_at": "1", "spec": {}}
        store.create_sweep("s1", record)
        again = store.create_sweep("s1", record | {"created_at": "2"})
        assert again["created_at"] == "1"
        with pytest.raises(StoreError, match="different spec"):
            store.create_sweep("s1", record | {"fingerprint": "bbb"})
        assert [s["sweep_id"] for s in store.list_sweeps()] == ["s1"]

    def test_a_resumed_sweep_takes_the_environment_its_spec_states(
        self, store: ResultsStore
    ) -> None:
        """Facts outside the fingerprint (the fabric) stated on a resume reach the record;
        everything else stays as registered."""
        first = {"sweep_id": "s1", "fingerprint": "aaa", "created_at": "1", "spec": {"x": 1}}
        store.create_sweep("s1", first)
        stated = {"fabric": "two switches"}
        again = store.create_sweep(
            "s1", first | {"created_at": "2", "spec": {"x": 1, "environment": stated}}
        )
        assert again["created_at"] == "1" and again["spec"] == {"x": 1, "environment": stated}
        assert store.get_sweep("s1")["spec"]["environment"] == stated
        # a resume that states nothing new leaves the record as it is
        assert store.create_sweep("s1", again | {"created_at": "3"})["created_at"] == "1"

    def test_a_resumed_sweep_takes_the_description_its_spec_gives(
        self, store: ResultsStore
    ) -> None:
        """A description mended on resume is the record's (and so the reports'); the
        measured facts stay as registered."""
        first = {
            "sweep_id": "s1",
            "fingerprint": "aaa",
            "created_at": "1",
            "description": "old words",
            "spec": {"x": 1, "description": "old words"},
        }
        store.create_sweep("s1", first)
        mended = first | {"created_at": "2", "spec": {"x": 1, "description": "new words"}}
        again = store.create_sweep("s1", mended)
        assert again["created_at"] == "1" and again["description"] == "new words"
        assert store.get_sweep("s1")["spec"] == {"x": 1, "description": "new words"}

    def test_progress_round_trip(self, store: ResultsStore) -> None:
        assert store.read_progress("s1") is None
        store.write_progress("s1", {"state": "running", "runs_total": 10})
        store.write_progress("s1", {"state": "finished", "runs_total": 10})
        assert store.read_progress("s1") == {"state": "finished", "runs_total": 10}

    def test_configuration_records(self, store: ResultsStore) -> None:
        now = datetime.now(UTC)
        row = {
            "sweep_id": "s1",
            "config_key": "raid5/single_rank/wb-ra",
            "attempt": 0,
            "status": "successful",
            "ansible_stdout": "PLAY RECAP",
            "changed_tasks": 2,
            "started_at": now,
            "finished_at": now,
        }
        assert store.put_configuration(row) is True
        assert store.put_configuration(row) is False
        configs = store.configurations("s1")
        assert list(configs["changed_tasks"]) == [2]

    def test_unknown_column_is_refused_before_writing(self, store: ResultsStore) -> None:
        with pytest.raises(ValueError, match="unknown columns"):
            store.put_run(run_row() | {"bogus": 1})
        assert store.runs("s1").empty

    def test_reader_sees_only_whole_runs_while_a_writer_writes(self, store: ResultsStore) -> None:
        total = 300
        errors: list[BaseException] = []
        seen: list[int] = []
        done = threading.Event()

        def writer() -> None:
            try:
                for i in range(total):
                    store.put_run(run_row(cell=f"randread/{4 * (i % 8 + 1)}k/qd1x{i // 8 + 1}"))
            except BaseException as exc:  # pragma: no cover - reported below
                errors.append(exc)
            finally:
                done.set()

        t = threading.Thread(target=writer)
        t.start()
        while not done.is_set():
            try:
                runs = store.runs("s1")
            except BaseException as exc:
                errors.append(exc)
                break
            # a whole run has every figure; a partial file would miss some or fail to read
            assert runs["iops"].notna().all() and runs["cell_key"].is_unique
            seen.append(len(runs))
        t.join()
        assert not errors, errors
        assert seen == sorted(seen), "a reader never sees runs disappear"
        assert len(store.runs("s1")) == total
        assert len(seen) > 1

    def test_no_temporary_files_left(self, store: ResultsStore) -> None:
        for rep in range(1, 6):
            store.put_run(run_row(rep=rep))
        leftovers = [p for p in Path(store.root).rglob("*") if p.name.endswith(".tmp")]
        assert leftovers == []

    # compaction ---------------------------------------------------------
    def test_compaction_keeps_every_run_once(self, store: ResultsStore) -> None:
        fill(store)
        before = store.runs("s1", include_failed=True)
        done = store.done_addresses("s1")
        assert store.compact("s1", A) == 7  # six runs and the failed attempt
        after = store.runs("s1", include_failed=True)
        assert_same_runs(after, before)
        assert store.done_addresses("s1") == done and len(done) == 12
        assert list(after["status"]).count("failed") == 1
        assert store.runs("s1", include_failed=False)["run_id"].is_unique
        assert len(store.runs("s1", config_key=A)) == 6
        address = RunAddress("s1", A, "randread/8k/qd1x1", 2)
        assert store.has_run(address)
        assert not store.has_run(RunAddress("s1", A, "randread/8k/qd1x1", 9))
        detail = store.run_detail(address.run_id)
        assert detail is not None and detail["fio_json"] == '{"jobs": []}'
        assert detail["repetition"] == 2 and detail["status"] == "ok"
        # a compacted run's address is taken: writing it again stores nothing
        assert store.put_run(run_row(config=A, rep=2, iops=5.0)) is False
        assert_same_runs(store.runs("s1", include_failed=True), before)
        # the other configuration, then both again: nothing left to do
        assert store.compact("s1") == 6
        assert store.compact("s1") == 0 and store.compact("s1", A) == 0
        assert_same_runs(store.runs("s1", include_failed=True), before)

    def test_failed_attempt_inside_a_part(self, store: ResultsStore) -> None:
        store.put_run(run_row(config=A, status="failed"))
        store.compact("s1", A)
        address = RunAddress("s1", A, "randread/8k/qd1x1", 1)
        assert not store.has_run(address)
        assert store.runs("s1").empty
        detail = store.run_detail(address.run_id)
        assert detail is not None and detail["status"] == "failed"
        # the run that later succeeds is stored, and is what the detail shows
        assert store.put_run(run_row(config=A)) is True
        assert store.has_run(address)
        assert list(store.runs("s1", include_failed=True)["status"]) == ["failed", "ok"]
        detail = store.run_detail(address.run_id)
        assert detail is not None and detail["status"] == "ok"

    def test_runs_stored_after_compaction_are_seen(self, store: ResultsStore) -> None:
        fill(store)
        store.compact("s1")
        before = store.runs("s1", include_failed=True)
        # a resumed sweep's or an extra repetition, into a compacted configuration
        assert store.put_run(run_row(config=A, rep=4, iops=4.0)) is True
        assert store.has_run(RunAddress("s1", A, "randread/8k/qd1x1", 4))
        runs = store.runs("s1", include_failed=True)
        assert len(runs) == len(before) + 1 and 4.0 in set(runs["iops"])
        assert store.compact("s1", A) == 1
        assert_same_runs(store.runs("s1", include_failed=True), runs)
        assert len(store.done_addresses("s1")) == 13

    def test_crash_between_part_and_removal(self, store: ResultsStore) -> None:
        """The part written, the run files not (all or some) removed: every run once, and the
        next compaction finishes the job without writing the runs again."""
        fill(store)
        before = store.runs("s1", include_failed=True)
        crash_after_part_written(store, A, keep=4)
        assert_same_runs(store.runs("s1", include_failed=True), before)
        assert len(store.done_addresses("s1")) == 12
        assert store.has_run(RunAddress("s1", A, "write/4k/qd1x1", 3))
        rid = RunAddress("s1", A, "randread/8k/qd1x1", 1).run_id
        detail = store.run_detail(rid)
        assert detail is not None and detail["status"] == "ok"
        assert store.put_run(run_row(config=A, rep=1)) is False
        version = store.version("s1")
        assert store.compact("s1", A) == 4
        assert store.version("s1") != version  # the files it removed are a change to see
        assert_same_runs(store.runs("s1", include_failed=True), before)
        assert store.compact("s1", A) == 0

    def test_reader_during_compaction(self, store: ResultsStore) -> None:
        """A reader in a loop while configurations fill and are compacted: never an error,
        never a run twice, never a run lost."""
        configs = [
            f"{r}/single_rank/{c}"
            for r in ("raid1", "raid5", "raid6", "raid10")
            for c in ("wb-ra", "wt-ra")
        ]
        stored = 0
        errors: list[BaseException] = []
        reads: list[int] = []
        floor = [0]  # runs stored before the read began
        done = threading.Event()

        def reader() -> None:
            while not done.is_set():
                at_least = floor[0]
                try:
                    runs = store.runs("s1")
                    addresses = store.done_addresses("s1")
                    assert runs["run_id"].is_unique, "a run read twice"
                    assert len(runs) >= at_least and len(addresses) >= at_least, "a run lost"
                    assert runs["iops"].notna().all()
                except BaseException as exc:
                    errors.append(exc)
                    return
                reads.append(len(runs))

        t = threading.Thread(target=reader)
        t.start()
        try:
            for round_ in range(3):
                for config in configs:
                    for i in range(6):
                        store.put_run(
                            run_row(config=config, cell=f"read/{i + 1}k/qd1x1", rep=round_ + 1)
                        )
                        stored += 1
                        floor[0] = stored
                    store.compact("s1", config)
                    if errors:
                        break
        finally:
            done.set()
            t.join()
        assert not errors, errors
        assert reads == sorted(reads) and len(reads) > 1
        assert len(store.runs("s1")) == stored == 144

    def test_compaction_between_listing_and_reading(self, store: ResultsStore) -> None:
        """The narrowest window: the run files listed, then compacted away before the read
        opens them. The read starts again and finds them in the part."""
        if not isinstance(store, ParquetStore):
            pytest.skip("a layout of files is particular to the Parquet store")
        fill(store)
        before = store.runs("s1", include_failed=True)

        class CompactsWhileListed(ParquetStore):
            listed = 0

            def _files(self, *args: Any, **kwargs: Any) -> list[Path]:
                files = super()._files(*args, **kwargs)
                if not self.listed:
                    ParquetStore(self.root).compact("s1")  # another process, at this instant
                self.listed += 1
                return files

        racing = CompactsWhileListed(store.root)
        assert_same_runs(racing.runs("s1", include_failed=True), before)
        assert racing.listed == 2  # the first listing failed to read and was made again

    def test_sweep_compacts_only_when_large(self, store: ResultsStore) -> None:
        if not isinstance(store, ParquetStore):
            pytest.skip("the threshold is the Parquet store's")
        small = ParquetStore(store.root, compact_after_runs=14)
        fill(small)
        assert small.compact("s1", A, only_if_large=True) == 0  # 13 files: stays as it is
        small.put_run(run_row(config=B, rep=4))
        assert small.compact("s1", A, only_if_large=True) == 14  # large now: every one
        assert run_files(small) == []
        small.put_run(run_row(config=B, rep=5))
        assert small.compact("s1", A, only_if_large=True) == 0
        assert small.compact("s1", B, only_if_large=True) == 1  # from then on, as they finish
        assert len(small.runs("s1")) == 14

    def test_version_follows_every_change(self, store: ResultsStore) -> None:
        seen = {store.version("s1")}
        store.put_run(run_row(config=A))
        seen.add(store.version("s1"))
        store.compact("s1")
        seen.add(store.version("s1"))
        store.put_run(run_row(config=A, rep=2))
        seen.add(store.version("s1"))
        assert len(seen) == 4
        assert store.version("s1") == store.version("s1")


def test_temporaries_of_dead_writers_are_removed(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path / "store")
    store.put_run(run_row())
    folder = next((tmp_path / "store" / "s1" / "runs").iterdir())
    dead = subprocess.run(["true"], check=True)  # a pid that has certainly exited
    del dead
    stale = folder / ".999999999-abc.tmp"  # no such pid
    stale.write_bytes(b"partial")
    mine = folder / f".{os.getpid()}-xyz.tmp"  # a live writer's file stays
    mine.write_bytes(b"in flight")
    assert store.remove_stale_temporaries("s1") == 1
    assert not stale.exists() and mine.exists()
    assert len(store.runs("s1")) == 1


def test_temporaries_of_a_killed_compaction_are_removed(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path / "store")
    fill(store)
    store.compact("s1", A)
    stale = tmp_path / "store" / "s1" / "compacted" / ".999999999-abc.tmp"
    stale.write_bytes(b"half a part")
    assert store.remove_stale_temporaries("s1") == 1 and not stale.exists()
    assert len(store.runs("s1", include_failed=True)) == 13


def test_files_a_killed_compaction_left_are_merged_once_they_are_many(tmp_path: Path) -> None:
    # A sweep killed while compacting the whole sweep for the first time: A's part written,
    # B's six files still loose. A sweep then compacted only the configuration it had just
    # measured, so B's files stayed loose for good (a resume with nothing to measure
    # compacted nothing at all).
    store = ParquetStore(tmp_path / "store", compact_after_runs=6)
    fill(store)
    store.compact("s1", A)
    assert len(run_files(store)) == 6  # B's
    store.put_run(run_row(config=A, cell="read/1m/qd1x1", rep=2))
    assert store.compact("s1", A, only_if_large=True) == 7  # seven loose: every one
    assert run_files(store) == []
    assert len(store.runs("s1", include_failed=True)) == 14
    # below the threshold, only the configuration asked for, as before
    store.put_run(run_row(config=B, cell="read/1m/qd1x1", rep=1))
    store.put_run(run_row(config=A, cell="read/1m/qd1x1", rep=3))
    assert store.compact("s1", A, only_if_large=True) == 1 and len(run_files(store)) == 1


def test_compaction_leaves_one_part_per_configuration(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path / "store")
    fill(store)
    store.compact("s1")
    assert run_files(store) == []
    parts = sorted((tmp_path / "store" / "s1" / "compacted").glob("*.parquet"))
    assert len(parts) == 2
    assert sum(pq.read_metadata(p).num_rows for p in parts) == 13
    assert not list((tmp_path / "store").rglob("*.tmp"))


@pytest.mark.integration
def test_a_large_sweep_compacts_as_it_goes(tmp_path: Path, quick_store: ParquetStore) -> None:
    """A real sweep whose store counts as large early on: it compacts each configuration as
    it finishes and reads the same runs as a sweep that did not; started again with its study
    forgotten (every configuration to measure anew), it finds every compacted run stored and
    runs none of them again."""
    spec, inventory = load_spec(QUICK)
    store = ParquetStore(tmp_path / "store", compact_after_runs=200)
    outcome = run_sweep(spec, inventory, store, spec_path=QUICK)
    assert outcome.complete and outcome.runs_written == 1134
    assert run_files(store) == []  # the last configuration too: compacted as it finished
    parts = sorted((store.root / "quick" / "compacted").glob("*.parquet"))
    assert len(parts) == 9  # one per configuration
    cols = ["run_id", "config_key", "cell_key", "repetition", "iops", "read_lat_p99_ms"]
    mine, reference = store.runs("quick")[cols], quick_store.runs("quick")[cols]
    assert mine["run_id"].is_unique
    pd.testing.assert_frame_equal(mine, reference)  # same seed, same figures
    (store.sweep_dir("quick") / STUDY_FILE).unlink()
    again = run_sweep(spec, inventory, store, spec_path=QUICK)
    assert again.complete and again.runs_written == 0 and again.runs_skipped == 1134
    assert len(store.runs("quick", include_failed=True)) == 1134


@pytest.mark.parametrize("old_first", [True, False])
def test_parts_of_an_older_schema_read_by_name(tmp_path: Path, old_first: bool) -> None:
    """A part written by an older raidsweep (a column fewer) beside current ones: whichever
    is listed first, every run reads, the missing column as null, the others intact."""
    store = ParquetStore(tmp_path / "store")
    for i, config in enumerate(("raid5/single_rank/wb-ra", "raid6/single_rank/wb-ra")):
        store.put_run(run_row(config=config, iops=1000.0 + i))
    files = sorted((tmp_path / "store" / "s1" / "runs").rglob("*.parquet"))
    old = files[0] if old_first else files[-1]
    table = pq.read_table(old)
    pq.write_table(table.drop(["steady"]), old)  # as written before the column existed
    runs = store.runs("s1").set_index("config_key")
    assert sorted(runs["iops"]) == [1000.0, 1001.0]
    old_key = table.column("config_key")[0].as_py()
    assert runs.loc[old_key, "steady"] is None or pd.isna(runs.loc[old_key, "steady"])


def test_a_swapped_run_is_left_out_of_a_read_of_some_columns(tmp_path: Path) -> None:
    """A run file holding another run is left out and named, though none of the columns
    asked for names a run."""
    store = ParquetStore(tmp_path / "store")
    fill(store)
    victim, source = run_files(store)[0], run_files(store)[-1]
    victim.write_bytes(source.read_bytes())
    runs = store.runs("s1", columns=["iops"])
    assert len(runs) == 11 and len(store.damaged) == 1
    assert str(victim) in store.damaged[0] and "not the run its place" in store.damaged[0]
    pd.testing.assert_frame_equal(runs, store.runs("s1")[["iops"]])


def _without_snapshot(store: ParquetStore, **kwargs: Any) -> pd.DataFrame:
    """The careful read of the parts, as if there were no snapshot."""
    path = store.root / "s1" / SNAPSHOT
    saved = path.read_bytes()
    path.unlink()
    try:
        return store.runs("s1", **kwargs)
    finally:
        path.write_bytes(saved)
        os.utime(path)


def test_a_snapshot_reads_as_the_parts_do(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path / "store")
    fill(store)
    store.compact("s1", A)
    swapped = run_files(store)[0]  # of B: a run file holding another run, said from both
    swapped.write_bytes(run_files(store)[-1].read_bytes())
    assert store.snapshot("s1") == 12  # 13 records, the swapped one left out
    for kwargs in ({}, {"include_failed": True}, {"columns": ["iops", "cell_key"]}):
        parts = _without_snapshot(store, **kwargs)
        said = list(store.damaged)
        assert len(said) == 1 and "not the run its place" in said[0]
        pd.testing.assert_frame_equal(store.runs("s1", **kwargs), parts)
        assert store.damaged == said


def test_a_snapshot_is_not_used_once_the_store_holds_other_files(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path / "store")
    fill(store)
    store.compact("s1")  # the whole sweep: a snapshot as well
    assert (store.root / "s1" / SNAPSHOT).exists()
    assert len(store.runs("s1")) == 12
    # A run stored since: read from the parts, with it.
    assert store.put_run(run_row(config=A, cell="read/1m/qd1x1", rep=1, iops=7.0))
    assert len(store.runs("s1")) == 13
    store.compact("s1")
    # A part edited in place (same name, its modification time set back): its figures are
    # read, not the snapshot's.
    part = sorted((store.root / "s1" / "compacted").glob("*.parquet"))[0]
    was = part.stat()
    table = pq.read_table(part)
    iops = table.column("iops").to_pylist()
    pq.write_table(
        table.set_column(
            table.schema.get_field_index("iops"),
            "iops",
            pa.array([v * 2 if v else v for v in iops]),
        ),
        part,
    )
    os.utime(part, ns=(was.st_atime_ns, was.st_mtime_ns))
    assert sorted(store.runs("s1")["iops"]) == sorted(_without_snapshot(store)["iops"])
    assert store.runs("s1")["iops"].sum() > store.runs("s1", config_key=B)["iops"].sum() * 2


def test_a_sweep_that_finished_leaves_a_snapshot(tmp_path: Path) -> None:
    store = ParquetStore(tmp_path / "store")
    fill(store)
    store.write_progress("s1", {"state": "running"})
    assert not (store.root / "s1" / SNAPSHOT).exists()
    store.write_progress("s1", {"state": "finished"})
    assert (store.root / "s1" / SNAPSHOT).exists()
    pd.testing.assert_frame_equal(
        store.runs("s1", include_failed=True), _without_snapshot(store, include_failed=True)
    )
