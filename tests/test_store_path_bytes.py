"""A store whose name is not UTF-8 text (``--store $'/tmp/st\\xff'``): the commands that hand
the store's path to Ansible (``run``, ``run --check``, ``plan``, ``teardown``) refuse it with
exit status 2 naming ``--store`` and the problem, before anything is read or made; the
commands that only read the store (``status``) take it, as they did."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from sweeper.locking import target_locks
from tests.support.paths import RAIDSWEEP
from tests.support.specs import tiny_sim_spec

#: the byte 0xff, which no UTF-8 text holds, as Python spells it in a path (surrogateescape)
NOT_UTF8 = "st\udcff"


def _raidsweep(
    args: list[str | Path], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [os.fsencode(str(RAIDSWEEP)), *(os.fsencode(str(a)) for a in args)],
        cwd=cwd,
        env=os.environ | {"COLUMNS": "400"} | (env or {}),
        capture_output=True,
        text=True,
        errors="backslashreplace",
        timeout=300,
        check=False,
    )


@pytest.fixture(autouse=True)
def _private_locks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAIDSWEEP_LOCK_DIR", str(tmp_path / "locks"))


@pytest.mark.parametrize(
    "args",
    [["run", "--quiet"], ["run", "--check"], ["plan"], ["teardown"], ["teardown", "--check"]],
    ids=["run", "run --check", "plan", "teardown", "teardown --check"],
)
@pytest.mark.parametrize("given", ["--store", "RAIDSWEEP_STORE"])
def test_a_store_named_in_bytes_is_refused_before_anything_is_made(
    tmp_path: Path, args: list[str], given: str
) -> None:
    spec = tiny_sim_spec(tmp_path, "tiny")
    parent = tmp_path / "stores"
    parent.mkdir()
    store = parent / NOT_UTF8
    if given == "--store":
        result = _raidsweep([args[0], spec, *args[1:], "--store", store], tmp_path)
    else:
        result = _raidsweep([args[0], spec, *args[1:]], tmp_path, {"RAIDSWEEP_STORE": str(store)})
    out = result.stdout + result.stderr
    flat = " ".join(result.stderr.replace("│", " ").split())
    assert result.returncode == 2, out
    assert "Traceback" not in out, out
    assert "--store" in flat and "RAIDSWEEP_STORE" in flat, flat
    assert f"'{parent}/st\\xff' is not UTF-8 text" in flat, flat
    assert list(parent.iterdir()) == []  # no store folder
    assert not (tmp_path / "locks").exists()  # no lock taken, none looked for
    assert not (tmp_path / "raidsweep-data").exists()


def test_status_still_reads_such_a_store(tmp_path: Path) -> None:
    store = tmp_path / NOT_UTF8
    result = _raidsweep(["status", "--store", store], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no sweeps in" in result.stdout
    assert not store.exists()


def test_a_target_lock_is_named_for_a_path_that_is_not_utf8(tmp_path: Path) -> None:
    """A target identity holds a path, and a path need not be UTF-8: its lock file is named
    from its bytes (two such paths, two locks), never a UnicodeEncodeError."""
    one, two = target_locks([f"sim:{tmp_path}/a\udcff", f"sim:{tmp_path}/a\udcfe"])
    assert one != two and one.parent == tmp_path / "locks"
