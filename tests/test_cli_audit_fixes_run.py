"""``raidsweep run``'s exit status when configurations fail: a sweep whose every
configuration failed exited 0, as if it had measured them.

Now: 0 when every configuration it tried was measured (or pruned); 1 when configurations
failed and the sweep has measured none (nothing to rank), naming them and where their logs
are; 3 (``PARTLY_FAILED``) when some failed and others were measured; 130 when interrupted,
whatever failed; 1 when it stopped on a problem, as before.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
import typer

from sweeper.sweep.progress import Outcome
from tests.support.cli import cli
from tests.support.specs import failing_play_spec

FAILED = {"raid5/single_rank/wb-ra": "Ansible task 'Build' failed on host array: no such disk"}


def _exit(outcome: Outcome, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    from sweeper.cli.run import _print_outcome

    try:
        _print_outcome("s1", Path("spec.yaml"), outcome, Path("/data/store"))
    except typer.Exit as done:
        status = done.exit_code
    else:
        status = 0
    captured = capsys.readouterr()
    return status, " ".join((captured.out + captured.err).split())


def test_every_configuration_failed_exits_1_naming_them_and_their_logs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, said = _exit(Outcome("s1", configurations_failed=dict(FAILED)), capsys)
    assert status == 1, said
    assert "no configuration was measured" in said and "raid5/single_rank/wb-ra" in said, said
    assert "FROM configurations WHERE sweep_id = 's1' AND status = 'failed'" in said, said
    assert "FROM runs WHERE sweep_id = 's1' AND status = 'failed'" in said, said
    assert "--store /data/store" in said and "run raidsweep run spec.yaml again" in said, said


@pytest.mark.parametrize(
    "measured",
    [{"configurations_done": 2}, {"runs_stored_before": 42}, {"configurations_pruned": {"k": "x"}}],
    ids=["completed now", "measured before", "pruned"],
)
def test_some_failed_others_measured_exits_3(
    measured: dict, capsys: pytest.CaptureFixture[str]
) -> None:
    from sweeper.cli.run import PARTLY_FAILED

    status, said = _exit(Outcome("s1", configurations_failed=dict(FAILED), **measured), capsys)
    assert status == PARTLY_FAILED == 3, said
    assert "1 configuration(s) failed (raid5/single_rank/wb-ra)" in said, said
    assert "no configuration was measured" not in said and "their logs" in said, said


def test_nothing_failed_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, said = _exit(Outcome("s1", configurations_done=9, runs_written=1134), capsys)
    assert status == 0 and "failed (" not in said, said


def test_interrupted_stays_130_and_stopped_stays_1(capsys: pytest.CaptureFixture[str]) -> None:
    interrupted = Outcome("s1", configurations_failed=dict(FAILED), interrupted=True)
    assert _exit(interrupted, capsys)[0] == 130
    stopped = Outcome("s1", configurations_done=3, configurations_failed=dict(FAILED))
    stopped.stopped = "the store's disk is full"
    status, said = _exit(stopped, capsys)
    assert status == 1 and "stopped: the store's disk is full" in said, said


@pytest.mark.integration
def test_a_sweep_whose_every_play_fails_exits_1_and_its_logs_are_where_it_says(
    tmp_path: Path,
) -> None:
    """A real play that fails (its module interpreter is not there), run as a user runs it;
    the command the message gives shows the play's output."""
    path = failing_play_spec(tmp_path, "all-failed")
    store = tmp_path / "store"
    proc = cli("run", path, "--store", store, "-q", timeout=300, columns=400)
    said = " ".join(proc.stderr.split())
    assert proc.returncode == 1, (proc.stdout, said)
    assert "no configuration was measured" in said and "raid10/single_rank/wb-ra" in said, said
    assert "Traceback" not in said
    # the first command the message names, run as given
    start = said.index("raidsweep sql ") + len("raidsweep sql ")
    words = shlex.split(said[start : said.index(")", start)])
    logs = cli("sql", *words, "--format", "json")
    assert logs.returncode == 0, logs.stderr
    (row,) = [json.loads(line) for line in logs.stdout.splitlines()]
    assert row["config_key"] == "raid10/single_rank/wb-ra"
    assert "/nonexistent/python3" in row["error"] and "PLAY" in row["ansible_stdout"]
