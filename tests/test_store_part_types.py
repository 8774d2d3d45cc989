"""A run part whose columns are not what raidsweep writes (a column of another type, a column
that names a run missing) is damaged: a reading command leaves it out with a warning naming
the file, the column, the type found and the type raidsweep writes, reads every other run,
and changes nothing in the store; ``disclose`` of a run held only there exits 2 naming it.
A column raidsweep does not know (a newer version's) or an integer of another width reads.

Each case damages a real store: a small sweep on the simulated array, run by the installed
command, and the commands run as a user runs them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sweeper.store import ParquetStore
from sweeper.store.snapshot import SNAPSHOT, fingerprint, write_snapshot
from tests.support.cli import cli, on_store
from tests.support.files import folder_contents
from tests.support.sweeps import copy_store, tiny_store

SWEEP = "tiny"
RUNS = 8  # 2 configurations × 2 cells × 2 repetitions


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished sweep on the simulated array, run by ``raidsweep run``."""
    return tiny_store(tmp_path_factory.mktemp("part-types"), SWEEP)


@pytest.fixture
def store(pristine: Path, tmp_path: Path) -> Path:
    return copy_store(pristine, tmp_path)


def run_files(store: Path) -> list[Path]:
    return sorted((store / SWEEP / "runs").rglob("*.parquet"))


def rewrite(path: Path, change) -> None:  # noqa: ANN001 - a function of a table
    pq.write_table(change(pq.read_table(path)), path)


def retyped(column: str, kind: pa.DataType):  # noqa: ANN201 - a function of a table
    def change(table: pa.Table) -> pa.Table:
        i = table.schema.get_field_index(column)
        return table.set_column(i, pa.field(column, kind), table.column(column).cast(kind))

    return change


def left_out(store: Path, victim: Path, said: str, tmp_path: Path) -> None:
    """Every reading command reads the sweep without ``victim``, warns ``said`` naming it,
    and leaves the store as it was."""
    before = folder_contents(store)
    for command in (
        ("recommend", SWEEP),
        ("report", SWEEP, "-o", str(tmp_path / "report.html")),
        ("sql", "SELECT count(*) AS n FROM runs", "--format", "csv"),
    ):
        code, out = on_store(store, *command)
        assert code == 0, (command, out)
        assert f"warning: {victim}: damaged, {said}; left out" in out, (command, out)
    assert f"n {RUNS - 1}" in out
    assert folder_contents(store) == before


@pytest.mark.parametrize(
    ("column", "kind", "said"),
    [
        ("iops", pa.string(), "column 'iops' is string where raidsweep writes double"),
        ("repetition", pa.string(), "column 'repetition' is string where raidsweep writes int32"),
        ("steady", pa.string(), "column 'steady' is string where raidsweep writes bool"),
        (
            "finished_at",
            pa.string(),
            "column 'finished_at' is string where raidsweep writes timestamp[us, tz=UTC]",
        ),
        ("block_size", pa.float64(), "column 'block_size' is double where raidsweep writes int64"),
    ],
)
def test_a_run_file_of_another_type_is_left_out_and_named(
    store: Path, tmp_path: Path, column: str, kind: pa.DataType, said: str
) -> None:
    victim = run_files(store)[0]
    rewrite(victim, retyped(column, kind))
    left_out(store, victim, said, tmp_path)
    before = folder_contents(store)
    code, out = on_store(store, "disclose", victim.stem)
    assert code == 2 and f"error: run {victim.stem} cannot be shown: {victim}: damaged" in out
    assert said in out and "restore it from a copy" in out, out
    assert folder_contents(store) == before


@pytest.mark.parametrize("column", ["run_id", "finished_at"])
def test_a_run_file_without_a_column_that_names_its_run_is_left_out(
    store: Path, tmp_path: Path, column: str
) -> None:
    victim = run_files(store)[-1]
    rewrite(victim, lambda t: t.drop_columns([column]))
    left_out(store, victim, f"column {column!r} is missing", tmp_path)
    code, out = on_store(store, "disclose", victim.stem)
    assert code == 2 and f"{victim}: damaged, column {column!r} is missing" in out, out


def test_columns_a_newer_raidsweep_adds_or_widens_read_beside_a_damaged_file(
    store: Path, tmp_path: Path
) -> None:
    """A file with a column raidsweep does not know, and one holding an integer column in
    64 bits, read whole; a file of another type beside them is the only one left out."""
    newer, wider, victim = run_files(store)[:3]
    rewrite(newer, lambda t: t.append_column("queue_model", pa.array(["x"] * t.num_rows)))
    rewrite(wider, retyped("repetition", pa.int64()))
    rewrite(victim, retyped("iops", pa.string()))
    left_out(store, victim, "column 'iops' is string where raidsweep writes double", tmp_path)
    code, out = on_store(store, "sql", "SELECT count(*) AS n FROM runs WHERE repetition = 2")
    assert code == 0 and out.count("warning:") == 1, out
    for path in (newer, wider):
        code, out = on_store(store, "disclose", path.stem)
        assert code == 0 and f"run_id: {path.stem}" in out, out


def test_a_compacted_part_of_another_type_is_left_out_and_named(
    store: Path, tmp_path: Path
) -> None:
    results = ParquetStore(store)
    results.compact(SWEEP)
    parts = sorted((store / SWEEP / "compacted").glob("*.parquet"))
    assert len(parts) == 2 and not run_files(store)
    victim = parts[0]
    held = pq.read_table(victim, columns=["run_id"]).column("run_id").to_pylist()
    rewrite(victim, retyped("iops", pa.string()))
    before = folder_contents(store)
    code, out = on_store(store, "recommend", SWEEP)
    said = f"warning: {victim}: damaged, column 'iops' is string where raidsweep writes double"
    assert code == 0 and said in out, out
    _, out = on_store(store, "sql", "SELECT count(*) AS n FROM runs", "--format", "csv")
    assert f"n {RUNS - len(held)}" in out
    code, out = on_store(store, "disclose", held[0])
    assert code == 2 and f"cannot be shown: {victim}: damaged, column 'iops'" in out, out
    assert folder_contents(store) == before


def test_an_unreadable_run_file_is_named_by_disclose(store: Path) -> None:
    """A truncated run file was left out of reads already; ``disclose`` of its run said no
    such run, and now names the file."""
    victim = run_files(store)[1]
    victim.write_bytes(victim.read_bytes()[:100])
    before = folder_contents(store)
    code, out = on_store(store, "disclose", victim.stem)
    assert code == 2 and f"{victim}: damaged, not a whole Parquet file" in out, out
    assert folder_contents(store) == before


def test_a_snapshot_of_another_type_is_not_read(store: Path) -> None:
    """A snapshot an older raidsweep wrote from a damaged part (its fingerprint that of the
    files there are, its figures text) is passed over for the parts, all of them good."""
    path = store / SWEEP / SNAPSHOT
    table = pq.read_table(path)
    results = ParquetStore(store)
    print_ = fingerprint(store, results._run_files(SWEEP))
    assert print_ is not None
    damaged = retyped("iops", pa.string())(table.replace_schema_metadata(None))
    write_snapshot(path, damaged, print_, [])
    before = folder_contents(store)
    code, out = on_store(store, "recommend", SWEEP)
    assert code == 0 and "warning" not in out, out
    _, out = on_store(store, "sql", "SELECT count(*), sum(iops) > 0 FROM runs", "--format", "csv")
    assert out.endswith(f"{RUNS},true"), out  # DuckDB's own text for a boolean
    assert folder_contents(store) == before


def test_compaction_leaves_a_damaged_run_file_as_it_is(store: Path) -> None:
    """A sweep's compaction merges the good run files and leaves a damaged one in place,
    out of its part (it had failed on it, or merged it into a part of text figures)."""
    victim = run_files(store)[0]
    rewrite(victim, retyped("iops", pa.string()))
    data = victim.read_bytes()
    results = ParquetStore(store)
    assert results.compact(SWEEP) == RUNS - 1
    assert run_files(store) == [victim] and victim.read_bytes() == data
    runs = results.runs(SWEEP)
    assert len(runs) == RUNS - 1 and runs["iops"].dtype == "float64"
    assert len(results.damaged) == 1 and str(victim) in results.damaged[0]


def test_sql_names_the_damaged_files_of_every_sweep(pristine: Path, tmp_path: Path) -> None:
    """Two sweeps, a damaged file in each: ``sql`` reads both and names both files (it named
    the last sweep's alone)."""
    store = copy_store(pristine, tmp_path)
    shutil.copytree(pristine / SWEEP, store / "other", symlinks=True)
    record = store / "other" / "sweep.json"
    record.write_text(record.read_text().replace(f'"{SWEEP}"', '"other"'))
    damaged = [run_files(store)[0], sorted((store / "other" / "runs").rglob("*.parquet"))[0]]
    for path in damaged:
        rewrite(path, retyped("iops", pa.string()))
    out = cli("sql", "select sweep_id, count(*) from runs group by 1", "--store", store)
    assert out.returncode == 0, out.stderr
    said = " ".join(out.stderr.split())
    for path in damaged:
        assert f"{path}: damaged, column 'iops' is string" in said, said
