"""Results store as immutable Parquet parts queried through DuckDB.

Each run is one Parquet file written to a temporary name, flushed, then hard-linked to its
final name: a reader sees a run whole or not at all, a writer never holds a lock across a
sweep, and a second write of the same address finds the name taken and does nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from glob import iglob as _iglob
from pathlib import Path
from typing import Any

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from sweeper.errors import StoreError
from sweeper.processes import pid_alive
from sweeper.store.base import ResultsStore
from sweeper.store.records import CONFIG_SCHEMA, RUN_SCHEMA, RunAddress

BULKY = ("job_file", "fio_json", "fio_stderr", "disclosure")


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes, *, replace: bool) -> bool:
    """Write ``data`` to ``path`` whole; with ``replace=False`` an existing file wins."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # The writer's pid in the name lets a later writer remove what a killed one left behind.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{os.getpid()}-", suffix=".tmp")
    try:
        os.fchmod(fd, 0o644)  # mkstemp's 0600 would hide results from other readers
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if replace:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                return False
        _fsync_dir(path.parent)
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def _table_bytes(row: dict[str, Any], schema: pa.Schema) -> bytes:
    unknown = set(row) - set(schema.names)
    if unknown:
        raise ValueError(f"unknown columns for the store: {sorted(unknown)}")
    table = pa.Table.from_pylist([row], schema=schema)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


class ParquetStore(ResultsStore):
    """``<root>/<sweep>/runs/*.parquet``, ``configurations/*.parquet``, ``sweep.json``."""

    def __init__(self, root: Path | str):
        # Absolute, because playbooks and subprocesses run from other working directories.
        self.root = Path(root).absolute()

    # sweeps -------------------------------------------------------------
    def create_sweep(self, sweep_id: str, record: dict[str, Any]) -> dict[str, Any]:
        path = self.root / sweep_id / "sweep.json"
        existing = self.get_sweep(sweep_id)
        if existing is not None:
            if existing.get("fingerprint") != record.get("fingerprint"):
                raise StoreError(
                    f"sweep {sweep_id!r} already exists in {self.root} with a different spec "
                    f"(fingerprint {existing.get('fingerprint')} vs {record.get('fingerprint')}); "
                    "give the new spec another name, or remove the old sweep's folder"
                )
            return existing
        data = json.dumps(record, indent=2, sort_keys=True, default=str).encode()
        atomic_write_bytes(path, data, replace=False)
        return self.get_sweep(sweep_id) or record

    def get_sweep(self, sweep_id: str) -> dict[str, Any] | None:
        path = self.root / sweep_id / "sweep.json"
        try:
            return json.loads(path.read_text())
        except FileNotFoundError:
            return None

    def list_sweeps(self) -> list[dict[str, Any]]:
        if not self.root.is_dir():
            return []
        out = []
        for p in sorted(self.root.glob("*/sweep.json")):
            with contextlib.suppress(FileNotFoundError, json.JSONDecodeError):
                out.append(json.loads(p.read_text()))
        return sorted(out, key=lambda r: r.get("created_at", ""), reverse=True)

    # runs ---------------------------------------------------------------
    def _config_dir(self, sweep_id: str, config_key: str) -> Path:
        # One folder per configuration: reading one configuration's runs opens only its parts.
        return self.root / sweep_id / "runs" / RunAddress(sweep_id, config_key, "", 0).run_id[:16]

    def _run_path(self, address: RunAddress) -> Path:
        return self._config_dir(address.sweep_id, address.config_key) / f"{address.run_id}.parquet"

    def put_run(self, row: dict[str, Any]) -> bool:
        address = RunAddress(row["sweep_id"], row["config_key"], row["cell_key"], row["repetition"])
        row = dict(row, run_id=address.run_id)
        path = self._run_path(address)
        if row["status"] == "ok":
            if path.exists():
                return False
        else:
            # Failed attempts are kept beside the address, never in its place.
            stamp = row["finished_at"].strftime("%Y%m%dT%H%M%S%f")
            path = path.with_name(f"{address.run_id}.failed-{stamp}.parquet")
        return atomic_write_bytes(path, _table_bytes(row, RUN_SCHEMA), replace=False)

    def has_run(self, address: RunAddress) -> bool:
        return self._run_path(address).exists()

    def done_addresses(self, sweep_id: str) -> set[RunAddress]:
        df = self._query(
            sweep_id, "runs", "SELECT config_key, cell_key, repetition FROM parts WHERE status='ok'"
        )
        return {
            RunAddress(sweep_id, r.config_key, r.cell_key, int(r.repetition))
            for r in df.itertuples()
        }

    def _glob(self, sweep_id: str, table: str, config_key: str | None = None) -> str | None:
        if table == "runs":
            folder = (
                self._config_dir(sweep_id, config_key)
                if config_key
                else self.root / sweep_id / "runs" / "*"
            )
        else:
            folder = self.root / sweep_id / table
        pattern = str(folder / "*.parquet")
        if not any(Path(p).is_file() for p in _iglob(pattern)):
            return None
        return pattern

    def _query(
        self,
        sweep_id: str,
        table: str,
        sql: str,
        params: list[Any] | None = None,
        config_key: str | None = None,
    ) -> pd.DataFrame:
        schema = RUN_SCHEMA if table == "runs" else CONFIG_SCHEMA
        glob = self._glob(sweep_id, table, config_key)
        con = duckdb.connect()
        try:
            if glob is None:
                con.register("parts", schema.empty_table())
            else:
                # Read through the API, not SQL text: the path never becomes part of a query.
                # Unioned with the current schema's empty table, so that parts written by an
                # older raidsweep (without newer columns) read as nulls there.
                files = con.read_parquet(glob, union_by_name=True)
                con.register("current", schema.empty_table())
                files.create_view("files")
                con.sql("CREATE VIEW parts AS SELECT * FROM files UNION ALL BY NAME "
                        "SELECT * FROM current")  # fmt: skip
            return con.sql(sql, params=params or None).to_arrow_table().to_pandas()
        finally:
            con.close()

    def runs(
        self, sweep_id: str, *, include_failed: bool = False, config_key: str | None = None
    ) -> pd.DataFrame:
        cols = ", ".join(n for n in RUN_SCHEMA.names if n not in BULKY)
        where = "" if include_failed else "WHERE status = 'ok'"
        return self._query(
            sweep_id,
            "runs",
            f"SELECT {cols} FROM parts {where} "  # noqa: S608 - column names are ours
            "QUALIFY row_number() OVER (PARTITION BY run_id, status, finished_at) = 1 "
            "ORDER BY config_key, cell_key, repetition",
            config_key=config_key,
        )

    def run_detail(self, run_id: str) -> dict[str, Any] | None:
        if not re.fullmatch(r"[0-9a-f]{24}", run_id):
            return None
        for path in self.root.glob(f"*/runs/*/{run_id}.parquet"):
            return pq.read_table(path).to_pylist()[0]
        # No stored run at that address: its latest failed attempt, if any.
        failed = sorted(self.root.glob(f"*/runs/*/{run_id}.failed-*.parquet"))
        return pq.read_table(failed[-1]).to_pylist()[0] if failed else None

    # configurations -----------------------------------------------------
    def put_configuration(self, row: dict[str, Any]) -> bool:
        name = f"{RunAddress(row['sweep_id'], row['config_key'], '', 0).run_id}-{row['attempt']}"
        path = self.root / row["sweep_id"] / "configurations" / f"{name}.parquet"
        return atomic_write_bytes(path, _table_bytes(row, CONFIG_SCHEMA), replace=False)

    def configurations(self, sweep_id: str) -> pd.DataFrame:
        return self._query(
            sweep_id, "configurations", "SELECT * FROM parts ORDER BY started_at, attempt"
        )

    def remove_stale_temporaries(self, sweep_id: str) -> int:
        """Delete temporary files of writers that no longer run (killed mid-write)."""
        removed = 0
        for tmp in (self.root / sweep_id).rglob(".*.tmp"):
            pid_text = tmp.name[1:].split("-", 1)[0]
            if pid_text.isdigit() and not pid_alive(int(pid_text)):
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
                    removed += 1
        return removed

    # progress -----------------------------------------------------------
    def write_progress(self, sweep_id: str, progress: dict[str, Any]) -> None:
        data = json.dumps(progress, indent=1, default=str).encode()
        atomic_write_bytes(self.root / sweep_id / "progress.json", data, replace=True)

    def read_progress(self, sweep_id: str) -> dict[str, Any] | None:
        try:
            return json.loads((self.root / sweep_id / "progress.json").read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return None
