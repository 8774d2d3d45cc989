"""``raidsweep sql`` writes every DuckDB type as DuckDB itself writes it, in every format, and
never a traceback: a UUID, a BIT and a BLOB in JSON once ended in a UnicodeDecodeError, a UUID
beside a BLOB in an OverflowError, a BLOB came out as ``{}`` in JSON and as Python's
``bytearray(b'…')`` in csv. The note that a result was cut is said only after rows were
written.

The queries run on an empty store (the views are there, with no rows): DuckDB makes the values.
"""

from __future__ import annotations

import csv
import io
import json
import re
from decimal import Decimal
from pathlib import Path

import pytest

from tests.support.cli import cli

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
HUGE = "170141183460469231731687303715884105727"
WIDE = "123456789012345678901234567890.12345678"

#: one row of the types pandas' conversion lost or refused, and the ones beside them
QUERY = (
    "SELECT gen_random_uuid() AS u, '1'::BIT AS bit1, '0101'::BIT AS bits, "
    "'\\xff'::BLOB AS ff, 'x'::BLOB AS x, INTERVAL 14 MONTH + INTERVAL 3 DAY AS iv, "
    f"{HUGE}::HUGEINT AS h, {WIDE}::DECIMAL(38,8) AS d, "
    "'nan'::DOUBLE AS n, 'inf'::DOUBLE AS i, '-inf'::FLOAT AS ni, NULL::DOUBLE AS nd, "
    "1.25::DOUBLE AS f, [1.5, 'nan'::DOUBLE] AS l, {'a': 'x,y\"', 'b': NULL} AS s, "
    "'' AS e, NULL::VARCHAR AS nv, 'NaN' AS sv, true AS t, NULL::INTEGER AS ni2, 7 AS seven"
)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sql") / "store"
    root.mkdir()
    return root


def _sql(store: Path, query: str, output: str) -> tuple[int, str, str]:
    proc = cli("sql", "--store", store, query, "--format", output, columns=400)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize(
    "query",
    [
        "SELECT gen_random_uuid() u",
        "SELECT '1'::BIT b",
        "SELECT uuid() u, '\\xff'::BLOB b",
        "SELECT 'x'::BLOB b",
    ],
)
@pytest.mark.parametrize("output", ["table", "csv", "json"])
def test_the_audits_queries_write_every_value(store: Path, query: str, output: str) -> None:
    code, out, said = _sql(store, query, output)
    assert code == 0, said
    assert "bytearray" not in out and "b'" not in out and "{}" not in out, out
    if output == "json":
        row = json.loads(out)
        assert all(v not in (None, {}, "") for v in row.values()), row


def test_json_writes_each_type_whole(store: Path) -> None:
    code, out, said = _sql(store, QUERY, "json")
    assert code == 0, said
    (line,) = out.splitlines()
    row = json.loads(line, parse_float=Decimal)  # valid JSON: no bare NaN
    assert UUID.match(row["u"]), row["u"]
    assert (row["bit1"], row["bits"]) == ("1", "0101")
    assert (row["ff"], row["x"]) == ("\\xFF", "x")  # DuckDB's own text for a BLOB
    assert row["iv"] == "1 year 2 months 3 days"
    assert row["h"] == int(HUGE) and row["d"] == Decimal(WIDE)  # every digit
    assert (row["n"], row["i"], row["ni"], row["nd"]) == ("NaN", "Infinity", "-Infinity", None)
    assert row["f"] == Decimal("1.25") and row["l"] == [Decimal("1.5"), "NaN"]
    assert row["s"] == {"a": 'x,y"', "b": None}
    assert (row["e"], row["nv"], row["sv"]) == ("", None, "NaN")
    assert (row["t"], row["ni2"], row["seven"]) == (True, None, 7)


def test_csv_writes_duckdbs_text_and_tells_null_from_empty(store: Path) -> None:
    code, out, said = _sql(store, QUERY, "csv")
    assert code == 0, said
    head, values = (out.splitlines()[0], out.splitlines()[1])
    (row,) = list(csv.DictReader(io.StringIO(out)))
    assert UUID.match(row["u"]) and (row["bit1"], row["bits"]) == ("1", "0101")
    assert (row["ff"], row["x"], row["iv"]) == ("\\xFF", "x", "1 year 2 months 3 days")
    assert (row["h"], row["d"]) == (HUGE, WIDE)
    assert (row["n"], row["i"], row["ni"], row["f"]) == ("nan", "inf", "-inf", "1.25")
    assert row["l"] == "[1.5, nan]" and row["s"] == "{'a': 'x,y\"', 'b': NULL}"
    assert (row["t"], row["seven"]) == ("true", "7")
    # NULL is an empty field, the empty string a quoted one (as DuckDB's own CSV writes them)
    assert head.endswith(",e,nv,sv,t,ni2,seven") and values.endswith(',"",,NaN,true,,7'), out
    assert ",-inf,,1.25," in values, values  # ni, nd (NULL), f


def test_a_table_shows_nan_apart_from_null(store: Path) -> None:
    query = "SELECT 'nan'::DOUBLE AS n, NULL::DOUBLE AS nd, 2.5::DOUBLE AS f, '\\xff'::BLOB b"
    code, out, said = _sql(store, query, "table")
    assert code == 0, said
    assert out.split() == ["n", "nd", "f", "b", "nan", "NULL", "2.5", "\\xFF"], out


@pytest.mark.parametrize("output", ["csv", "json"])
def test_the_cut_note_only_after_rows(store: Path, output: str) -> None:
    # DuckDB fails in the first chunk: no row went out, nothing was cut
    code, out, said = _sql(store, "SELECT 1 // (10 - i) AS x FROM range(20) t(i)", output)
    assert code == 2 and "Division by zero" in said, said
    assert "rows already written" not in said and out in ("", "x\n"), (out, said)
    # ... and far past its first rows (DuckDB works some 300,000 rows ahead of the reader):
    # those went out, and the note says they are only a start
    query = "SELECT i, 1 // (1000000 - i) AS x FROM range(1100000) t(i)"
    code, out, said = _sql(store, query, output)
    assert code == 2 and "Division by zero" in said, said
    assert len(out.splitlines()) >= 102_400
    assert "(rows already written are only the start of the result)" in " ".join(said.split())


@pytest.mark.parametrize("query", ["SELECT 1 AS a; -- note", "SELECT 1 AS a;\n/* done */;\n"])
def test_a_query_may_end_in_a_semicolon_and_a_comment(store: Path, query: str) -> None:
    code, out, said = _sql(store, query, "csv")
    assert code == 0 and out == "a\n1\n", said


def test_a_full_disk_and_a_query_not_utf8_end_without_a_traceback(store: Path) -> None:
    import subprocess

    from tests.support.paths import RAIDSWEEP

    query = "SELECT i FROM range(300000) t(i)"
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            [str(RAIDSWEEP), "sql", "--store", str(store), query, "--format", "csv"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    said = " ".join(proc.stderr.split())
    assert proc.returncode == 1 and "cannot write the result" in said, said
    assert "No space left on device" in said and "Traceback" not in said, said
    proc = subprocess.run(
        [str(RAIDSWEEP), "sql", "--store", str(store), "-"],
        input=b"SELECT '\xff' AS x",
        capture_output=True,
        check=False,
    )
    said = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == 2 and "Traceback" not in said, said
