"""``raidsweep sql`` on a compacted store: the README's own query sees every run, compacted or
not; the views carry every sweep; the query reaches no file; bad queries exit 2."""

from __future__ import annotations

import io
import re
import shlex
import shutil
from pathlib import Path

import pandas as pd
import pytest

from sweeper.store import ParquetStore
from tests.support.cli import cli
from tests.support.paths import ROOT

pytestmark = pytest.mark.integration


def readme_query() -> str:
    """The query of the README's ``raidsweep sql`` example, as the shell would pass it."""
    text = (ROOT / "README.md").read_text()
    block = re.search(r"```sh\n(\.venv/bin/raidsweep sql .*?)\n```", text, re.S)
    assert block, "the README shows no raidsweep sql example"
    words = shlex.split(block.group(1).replace("\\\n", " "))
    assert words[:2] == [".venv/bin/raidsweep", "sql"]
    (query,) = words[2:]
    return query


@pytest.fixture(scope="module")
def compacted(quick_store: ParquetStore, tmp_path_factory: pytest.TempPathFactory) -> ParquetStore:
    """A copy of the quick sweep with 8 of its 9 configurations compacted (the case in which
    a glob over run files found one configuration)."""
    root = tmp_path_factory.mktemp("compacted") / "store"
    shutil.copytree(quick_store.root, root)
    store = ParquetStore(root)
    keys = sorted(store.runs("quick")["config_key"].unique())
    merged = sum(store.compact("quick", k) for k in keys[:8])
    assert merged == 8 * 126
    assert len(list((root / "quick" / "runs").glob("*/*.parquet"))) == 126
    return store


def test_the_readme_query_sees_every_run(compacted: ParquetStore) -> None:
    result = cli("sql", "--store", compacted.root, readme_query(), "--format", "csv")
    assert result.returncode == 0, result.stderr
    got = pd.read_csv(io.StringIO(result.stdout))
    runs = compacted.runs("quick")
    expected = runs.groupby(["config_key", "cell_key"], as_index=False)["iops"].mean()
    assert len(got) == len(expected) == 9 * runs["cell_key"].nunique()
    assert list(got["config_key"]) == list(expected["config_key"])
    assert got.iloc[:, 2].tolist() == pytest.approx(expected["iops"].tolist())


def test_the_views_hold_every_attempt_and_configuration(compacted: ParquetStore) -> None:
    query = "SELECT (SELECT count(*) FROM runs), (SELECT count(DISTINCT config_key) FROM configurations)"
    result = cli("sql", "--store", compacted.root, query, "--format", "csv")
    assert result.returncode == 0, result.stderr
    runs, configs = result.stdout.splitlines()[1].split(",")
    assert int(runs) == len(compacted.runs("quick", include_failed=True)) == 1134
    assert int(configs) == 9


def test_timestamps_come_back_as_python_datetimes(compacted: ParquetStore) -> None:
    """fetchall() on the store's timestamps with time zone works in the project's environment."""
    import duckdb

    con = duckdb.connect()
    files = [str(p) for p in (compacted.root / "quick" / "compacted").glob("*.parquet")]
    (value,) = con.read_parquet(files[:1]).project("max(finished_at)").fetchall()[0]
    assert value.tzinfo is not None and value.utcoffset().total_seconds() == 0


@pytest.mark.parametrize(
    "query, problem",
    [
        ("SELECT * FROM read_csv('/etc/hostname')", "file system operations are disabled"),
        ("COPY (SELECT 1) TO '/tmp/raidsweep-sql-test.csv'", "disabled"),
        ("SET enable_external_access = true", "configuration"),
        ("SELECT nonsense FROM runs", "nonsense"),
        ("   ", "empty"),
    ],
)
def test_a_query_that_cannot_run_exits_2(compacted: ParquetStore, query: str, problem: str) -> None:
    result = cli("sql", "--store", compacted.root, query, columns=200)
    assert result.returncode == 2, result.stdout
    assert problem in result.stderr and result.stdout == ""
    assert not Path("/tmp/raidsweep-sql-test.csv").exists()


def test_a_missing_store_exits_2(tmp_path: Path) -> None:
    result = cli("sql", "--store", tmp_path / "nowhere", "SELECT 1", columns=200)
    assert result.returncode == 2 and "no results store" in result.stderr
