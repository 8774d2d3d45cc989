"""Contract of the results store: every backend passes the same tests (add it to BACKENDS)."""

from __future__ import annotations

import os
import subprocess
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from sweeper.errors import StoreError
from sweeper.store import ParquetStore, ResultsStore, RunAddress

BACKENDS = {"parquet": ParquetStore}


@pytest.fixture(params=sorted(BACKENDS))
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ResultsStore:
    return BACKENDS[request.param](tmp_path / "store")


def run_row(config: str = "raid10/single_rank/wb-ra", cell: str = "randread/8k/qd1x1",
            rep: int = 1, status: str = "ok", iops: float = 1000.0) -> dict:  # fmt: skip
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

    def test_sweep_records_refuse_another_spec(self, store: ResultsStore) -> None:
        store.create_sweep("s1", {"sweep_id": "s1", "fingerprint": "aaa", "created_at": "1"})
        again = store.create_sweep(
            "s1", {"sweep_id": "s1", "fingerprint": "aaa", "created_at": "2"}
        )
        assert again["created_at"] == "1"
        with pytest.raises(StoreError, match="different spec"):
            store.create_sweep("s1", {"sweep_id": "s1", "fingerprint": "bbb"})
        assert [s["sweep_id"] for s in store.list_sweeps()] == ["s1"]

    def test_progress_round_trip(self, store: ResultsStore) -> None:
        assert store.read_progress("s1") is None
        store.write_progress("s1", {"state": "running", "runs_total": 10})
        store.write_progress("s1", {"state": "finished", "runs_total": 10})
        assert store.read_progress("s1") == {"state": "finished", "runs_total": 10}

    def test_configuration_records(self, store: ResultsStore) -> None:
        now = datetime.now(UTC)
        row = {"sweep_id": "s1", "config_key": "raid5/single_rank/wb-ra", "attempt": 0,
               "status": "successful", "ansible_stdout": "PLAY RECAP", "changed_tasks": 2,
               "started_at": now, "finished_at": now}  # fmt: skip
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
