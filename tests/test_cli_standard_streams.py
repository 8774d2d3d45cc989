"""Commands started with a standard stream closed or failing: cron and service managers
close standard input (``<&-``), a script may close standard output (``>&-``), and a disk
fills (``>/dev/full``). A closed standard input reads as empty (not a terminal: nothing is
asked); standard output that is closed or cannot be written is named, exit status 1, never a
traceback nor exit 0 with nothing written. Once, ``run`` and ``report`` failed with a
traceback when standard input was closed, ``status`` and ``recommend --json`` exited 0 with
nothing written when standard output was, and every command ended in a traceback on a full
disk."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.paths import RAIDSWEEP
from tests.support.specs import tiny_sim_spec

SWEEP = "streams"


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    folder = tmp_path_factory.mktemp("streams")
    spec = tiny_sim_spec(folder, SWEEP)
    env = dict(
        os.environ,
        RAIDSWEEP_STORE=str(folder / "store"),
        RAIDSWEEP_LOCK_DIR=str(folder / "locks"),
        COLUMNS="120",
    )
    done = subprocess.run(
        [str(RAIDSWEEP), "run", str(spec), "-q"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return env | {"SPEC": str(spec), "FOLDER": str(folder)}


def _shell(env: dict[str, str], redirect: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``raidsweep ARGS`` with ``redirect`` (``<&-``, ``>&-``, ``>/dev/full``) in bash; its
    standard error (and its output where it is not redirected)."""
    script = f'"$0" "$@" {redirect}'
    return subprocess.run(
        ["bash", "-c", script, str(RAIDSWEEP), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_run_with_standard_input_closed_runs_without_asking(world: dict[str, str]) -> None:
    done = _shell(world, "<&-", "run", world["SPEC"], "--check")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "nothing was changed" in done.stdout


def test_report_with_standard_input_closed_writes_it_whole(world: dict[str, str]) -> None:
    out = Path(world["FOLDER"]) / "closed-stdin.html"
    done = _shell(world, "<&-", "report", SWEEP, "-o", str(out))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert out.read_text().rstrip().endswith("</html>")


def test_sql_with_standard_input_closed_reads_an_empty_query(world: dict[str, str]) -> None:
    done = _shell(world, "<&-", "sql", "-")
    assert done.returncode == 2 and "the query is empty" in done.stderr, done.stderr


def test_sql_reads_at_most_a_mebibyte_of_query(world: dict[str, str]) -> None:
    done = subprocess.run(
        [str(RAIDSWEEP), "sql", "-"],
        input="--" + "x" * (1024 * 1024) + "\nSELECT 1",
        env=world,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "longer than 1,048,576 characters" in done.stderr


COMMANDS = {
    "status": ["status"],
    "recommend --json": ["recommend", SWEEP, "--json"],
    "curves": ["curves", SWEEP],
    "disclose": ["disclose", SWEEP],
    "compare": ["compare", SWEEP, SWEEP, "--all"],
    "sql table": ["sql", "SELECT count(*) AS n FROM runs"],
    "sql csv": ["sql", "SELECT count(*) AS n FROM runs", "--format", "csv"],
}
WHY = {">/dev/full": "No space left on device", ">&-": "it is closed"}


@pytest.mark.parametrize("redirect", sorted(WHY))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_output_that_cannot_be_written_is_named(
    world: dict[str, str], command: str, redirect: str
) -> None:
    done = _shell(world, redirect, *COMMANDS[command])
    assert done.returncode == 1, done.stderr
    assert "standard output" in done.stderr and WHY[redirect] in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_a_timeout_shorter_than_the_query_s_start_still_stops_it(world: dict[str, str]) -> None:
    for _ in range(3):  # the timer once fired before DuckDB began, and the query ran on
        done = subprocess.run(
            [
                str(RAIDSWEEP),
                *("sql", "SELECT sum(i) FROM range(30000000000) t(i)", "--timeout", "0.001"),
            ],
            env=world,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 2, done.stdout + done.stderr
        assert "ran past --timeout" in done.stderr
