"""``raidsweep sql``'s table shows each value and column name as text: a control character
(ESC, which colours the terminal or makes an OSC 8 link; a line break, which splits a row; the
8-bit CSI) or a bidirectional override is written as its escape, so text in the store (an
error a host sent, a note) cannot act on the terminal. csv and json carry the characters as
data. The table once printed them raw.

The queries run on an empty store (the views are there, with no rows): DuckDB makes the values.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.support.cli import cli
from tests.support.paths import RAIDSWEEP

#: ESC colour and clear-screen, an OSC 8 link, a line break, BEL, the 8-bit CSI, an override
VALUE = "a\x1b[31mb\x1b]8;;http://x/\x07link\x1b]8;;\x07\nc\x9bd\u202ee"
QUERY = "SELECT $$" + VALUE + '$$ AS v, [$$x\x1b$$] AS l, 1 AS "h\x1b[2Jh"'


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("sql") / "store"
    root.mkdir()
    return root


def test_a_table_shows_control_characters_as_escapes(store: Path) -> None:
    done = cli("sql", "--store", store, QUERY, columns=400)
    assert done.returncode == 0, done.stderr
    for raw in ("\x1b", "\x07", "\x9b", "\u202e"):
        assert raw not in done.stdout, repr(done.stdout)
    header, row = done.stdout.splitlines()  # the line break is no second row
    assert header.split() == ["v", "l", "h\\x1b[2Jh"]
    assert "a\\x1b[31mb\\x1b]8;;http://x/\\x07link" in row and "\\nc\\x9bd\\u202ee" in row
    assert "x\\x1b" in row


def test_no_rows_names_the_columns_as_escapes(store: Path) -> None:
    done = cli("sql", "--store", store, QUERY + " WHERE false", columns=400)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["v", "l", "h\\x1b[2Jh", "(no rows)"]


def test_csv_and_json_carry_the_characters_as_data(store: Path) -> None:
    done = cli("sql", "--store", store, "SELECT $$" + VALUE + "$$ AS v", "--format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"v": VALUE}
    done = cli("sql", "--store", store, "SELECT $$a\x1b[31mb$$ AS v", "--format", "csv")
    assert done.returncode == 0 and done.stdout == "v\na\x1b[31mb\n", done.stderr


@pytest.mark.parametrize("by", ["argument", "stdin"])
def test_a_query_that_is_not_utf8_is_named_with_its_byte(store: Path, by: str) -> None:
    query = "SELECT 'caf\udce9' AS v"  # Latin-1 'é': byte 0xe9 on its own
    args = [str(RAIDSWEEP), "sql", "--store", str(store), query if by == "argument" else "-"]
    stdin = os.fsencode(query) if by == "stdin" else b""
    done = subprocess.run(args, input=stdin, capture_output=True, check=False)
    stderr = done.stderr.decode(errors="backslashreplace")
    assert done.returncode == 2, stderr
    assert "the query is not UTF-8 text: byte \\xe9 at character 12" in stderr
    assert "surrogate" not in stderr and "Traceback" not in stderr
    assert not done.stdout
