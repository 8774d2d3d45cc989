"""A store whose path holds the characters DuckDB globs by reads its own runs alone, never a
neighbour's whose name the pattern would match (``s[1]`` beside ``s1``)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from sweeper.store.reading import literal_name, query_files

SCHEMA = pa.schema([("iops", pa.float64())])


@pytest.mark.parametrize(
    ("ours", "neighbour"),
    [("s[1]", "s1"), ("a*", "ab"), ("b?", "bx"), ("c[!x]", "cy"), ("d{e,f}", "de")],
)
def test_a_name_with_glob_characters_reads_that_file_alone(
    tmp_path: Path, ours: str, neighbour: str
) -> None:
    mine = tmp_path / ours / "run.parquet"
    theirs = tmp_path / neighbour / "run.parquet"
    for path, iops in ((mine, 1.0), (theirs, 2.0)):
        path.parent.mkdir()
        pq.write_table(pa.table({"iops": [iops]}, schema=SCHEMA), path)
    table = query_files([mine], SCHEMA, "SELECT iops, filename FROM parts", None)
    assert table.column("iops").to_pylist() == [1.0]
    assert table.column("filename").to_pylist() == [str(mine)]


def test_a_plain_name_is_left_as_it_is() -> None:
    assert literal_name(Path("/data/store/quick/runs/a/b.parquet")) == (
        "/data/store/quick/runs/a/b.parquet"
    )
