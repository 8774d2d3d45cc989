"""Small things a user meets at the command line: an error that quotes the user's own text
shows its control characters as escapes (a path with ESC once coloured the terminal red), a
run id copied in upper case is the run, a sweep record naming no sweep says so, and the
target guard's sentences read right ("a device", "an existing file")."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from sweeper.errors import StoreError
from sweeper.store.sweep_record_check import sweep_record
from sweeper.target import target_problems
from tests.support.paths import RAIDSWEEP
from tests.support.specs import tiny_sim_spec


def _raidsweep(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(RAIDSWEEP), *args],
        env=dict(os.environ, COLUMNS="200", **(env or {})),
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.mark.parametrize("mark", ["\x1b[31m", "\u202e", "\x07", "\x9b"])
def test_an_error_shows_the_user_s_control_characters_as_escapes(tmp_path: Path, mark: str) -> None:
    done = _raidsweep("run", str(tmp_path / f"x{mark}y.yaml"))
    assert done.returncode == 2, done.stderr
    assert mark not in done.stderr
    assert repr(mark)[1:-1] in done.stderr and "file not found" in done.stderr


def test_a_run_id_in_upper_case_is_the_run(tmp_path: Path) -> None:
    spec = tiny_sim_spec(tmp_path, "upper")
    env = {"RAIDSWEEP_STORE": str(tmp_path / "store"), "RAIDSWEEP_LOCK_DIR": str(tmp_path / "l")}
    assert _raidsweep("run", str(spec), "-q", env=env).returncode == 0
    ids = _raidsweep("sql", "SELECT run_id FROM runs LIMIT 1", "--format", "csv", env=env)
    run_id = ids.stdout.split()[-1]
    done = _raidsweep("disclose", run_id.upper(), "--format", "json", env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["run_id"] == run_id


def test_a_sweep_record_that_names_no_sweep_says_so(tmp_path: Path) -> None:
    path = tmp_path / "s1" / "sweep.json"
    with pytest.raises(StoreError, match="names no sweep") as caught:
        sweep_record(path, {"spec": {}})
    assert "None" not in str(caught.value)


def test_the_target_guard_says_an_existing_file(tmp_path: Path) -> None:
    target = tmp_path / "data.img"
    target.write_bytes(b"x" * 4096)
    said = [m for _, m in target_problems(str(target), allow=[], file_size=None)]
    assert any("is an existing file not in the allow-list" in m for m in said), said
    assert not any("an device" in m for m in said)


@pytest.mark.skipif(not Path("/dev/loop0").is_block_device(), reason="no loop device here")
def test_the_target_guard_says_a_device() -> None:
    said = [m for _, m in target_problems("/dev/loop0", allow=[], file_size=None)]
    assert any("/dev/loop0 is a device not in the allow-list" in m for m in said), said


@pytest.mark.parametrize("given", ["/dev/zero", "classes/mine"])
def test_a_class_path_without_suffix_is_named_as_a_path(given: str) -> None:
    from recommender.classes import shipped_class_names, unknown_class

    problem = unknown_class(given, shipped_class_names())
    assert problem is not None and "named with its suffix (.yaml)" in problem, problem


def test_status_at_80_columns_cuts_nothing(tmp_path: Path) -> None:
    name = "a-sweep-whose-name-runs-to-the-longest-a-name-may-be-".ljust(64, "x")
    spec = tiny_sim_spec(tmp_path, name)
    env = {"RAIDSWEEP_STORE": str(tmp_path / "store"), "RAIDSWEEP_LOCK_DIR": str(tmp_path / "l")}
    assert _raidsweep("run", str(spec), "-q", env=env).returncode == 0
    done = subprocess.run(
        [str(RAIDSWEEP), "status"],
        env=dict(os.environ, COLUMNS="80", **env),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert name in done.stdout and "…" not in done.stdout, done.stdout
    assert max(map(len, done.stdout.splitlines())) <= 80
