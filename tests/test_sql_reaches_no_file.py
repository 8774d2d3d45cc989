"""``raidsweep sql`` reaches no file: not even DuckDB's temporary folder (``.tmp`` in the
current folder), which DuckDB keeps allowed after external access is turned off; a query
once wrote, listed and read files there (through a link, anywhere)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.cli import cli

QUERIES = {
    "write": "COPY (SELECT 'owned' AS x) TO '{tmp}/y.csv'",
    "list": "SELECT * FROM glob('{tmp}/*')",
    "read": "SELECT * FROM read_csv('{tmp}/seen.csv')",
}


@pytest.mark.parametrize("what", sorted(QUERIES))
def test_the_temporary_folder_is_out_of_reach(tmp_path: Path, what: str) -> None:
    store = tmp_path / "store"
    store.mkdir()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "seen.csv").write_text("x\nsecret\n")
    (tmp_path / ".tmp").symlink_to(elsewhere)
    query = QUERIES[what].format(tmp=tmp_path / ".tmp")
    done = cli("sql", "--store", store, "--format", "csv", query, cwd=tmp_path)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "secret" not in done.stdout and "seen.csv" not in done.stdout
    assert sorted(p.name for p in elsewhere.iterdir()) == ["seen.csv"]
    assert sorted(p.name for p in store.iterdir()) == []
