"""``raidsweep sql`` on a compacted store: the README's own query sees every run, compacted or
not; the views carry every sweep; the query reaches no file; bad queries exit 2; a result
streams out whole in csv and json, a table shows its first rows; a query stops at its
timeout or at Ctrl-C."""

from __future__ import annotations

import io
import re
import shlex
import shutil
import signal
import time
from pathlib import Path

import pandas as pd
import pytest

from sweeper.cli.sql import TABLE_ROWS
from sweeper.store import ParquetStore
from tests.support.cli import cli, finish, start
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


#: a query that would run for hours: DuckDB sums 10^11 numbers
ENDLESS = "SELECT sum(i % 7) FROM range(100000000000) t(i)"


def test_a_query_past_its_timeout_is_stopped(compacted: ParquetStore) -> None:
    began = time.monotonic()
    result = cli("sql", "--store", compacted.root, ENDLESS, "--timeout", "1.5", columns=200)
    assert result.returncode == 2, result.stdout
    assert "ran past --timeout 1.5 s" in result.stderr and result.stdout == ""
    assert time.monotonic() - began < 60


@pytest.mark.parametrize("value", ["0", "-1", "nan"])
def test_a_timeout_must_be_some_seconds(compacted: ParquetStore, value: str) -> None:
    result = cli("sql", "--store", compacted.root, "SELECT 1", "--timeout", value, columns=200)
    assert result.returncode == 2 and "--timeout" in result.stderr
    assert "above 0" in result.stderr and result.stdout == ""


@pytest.mark.parametrize("output", ["table", "csv"])
def test_ctrl_c_stops_a_query_with_status_130(compacted: ParquetStore, output: str) -> None:
    proc = start("sql", "--store", compacted.root, ENDLESS, "--format", output)
    time.sleep(4)  # the command has started and the query runs
    assert proc.poll() is None
    proc.send_signal(signal.SIGINT)
    status, text = finish(proc)
    assert status == 130 and "interrupted" in text and "Traceback" not in text


def test_a_table_shows_its_first_rows_and_says_so(compacted: ParquetStore) -> None:
    query = "SELECT i, i * 2 AS twice FROM range(25000) t(i)"
    result = cli("sql", "--store", compacted.root, query, columns=200)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1 + TABLE_ROWS and lines[0].split() == ["i", "twice"]
    assert lines[-1].split() == [str(TABLE_ROWS - 1), str(2 * (TABLE_ROWS - 1))]
    assert f"the first {TABLE_ROWS:,} rows" in result.stderr and "--format csv" in result.stderr


def test_a_table_of_every_row_says_nothing_more(compacted: ParquetStore) -> None:
    result = cli("sql", "--store", compacted.root, f"FROM range({TABLE_ROWS}) t(i)", columns=200)
    assert result.returncode == 0 and result.stderr == ""
    assert len(result.stdout.splitlines()) == 1 + TABLE_ROWS


@pytest.mark.parametrize("output", ["csv", "json"])
def test_csv_and_json_write_every_row_in_order(compacted: ParquetStore, output: str) -> None:
    # 250,000 rows are many of DuckDB's chunks: the header comes once, no row is lost.
    rows = 250_000
    query = "SELECT i, 'r' || i AS name, i / 4 AS quarter FROM range(250000) t(i)"
    result = cli("sql", "--store", compacted.root, query, "--format", output, columns=200)
    assert result.returncode == 0, result.stderr
    frame = (
        pd.read_csv(io.StringIO(result.stdout))
        if output == "csv"
        else pd.read_json(io.StringIO(result.stdout), lines=True)
    )
    assert list(frame.columns) == ["i", "name", "quarter"]
    assert frame["i"].tolist() == list(range(rows))
    assert (frame["name"] == "r" + frame["i"].astype(str)).all()
    assert frame["quarter"].tolist() == pytest.approx([i / 4 for i in range(rows)])


@pytest.mark.parametrize(
    "output, expected",
    [("table", "x\ny\n(no rows)\n"), ("csv", "x,y\n"), ("json", "")],
)
def test_no_rows_still_names_the_columns(
    compacted: ParquetStore, output: str, expected: str
) -> None:
    query = "SELECT 1 AS x, 2 AS y WHERE false"
    result = cli("sql", "--store", compacted.root, query, "--format", output, columns=200)
    assert result.returncode == 0 and result.stdout == expected, result.stdout


def test_a_table_prints_null_and_fits_the_terminal(compacted: ParquetStore) -> None:
    """SQL's NULL reads NULL in every column type (pandas wrote None, NaN or <NA>), and a
    table wider than the terminal continues below instead of running past it."""
    query = (
        "SELECT cell_key, steady, telemetry_flag, iops, write_lat_p99_ms, config_key, "
        "NULL::INTEGER AS n FROM runs WHERE write_lat_p99_ms IS NULL LIMIT 3"
    )
    result = cli("sql", "--store", compacted.root, query, columns=80)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, result.stdout
    assert "NULL" in result.stdout
    for word in ("None", "NaN", "<NA>"):
        assert word not in result.stdout, result.stdout
