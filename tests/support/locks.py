"""Locks for the tests: a lock folder private to a test, waiting until a process holds a lock
(its record written in), another process that holds what a script locks, and the local
platform's lock identity of a target."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.cli import finish
from tests.support.paths import LOCAL_INVENTORY


@pytest.fixture
def lock_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The machine-wide lock folder, private to the test (the processes inherit it); a module
    whose every test wants it names it in ``pytestmark`` (``usefixtures``)."""
    folder = tmp_path / "locks"
    monkeypatch.setenv("RAIDSWEEP_LOCK_DIR", str(folder))
    return folder


def wait_held(
    folder: Path, pattern: str, proc: subprocess.Popen[str], timeout_s: float = 120
) -> None:
    """Until ``proc`` holds a lock in ``folder`` whose name matches ``pattern`` (its record
    is written in)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert proc.poll() is None, finish(proc)
        for path in folder.glob(pattern):
            text = path.read_text()
            if text and json.loads(text).get("pid") == proc.pid:
                return
        time.sleep(0.05)
    raise AssertionError("the sweep never took its lock")


def holding_process(script: str) -> subprocess.Popen[str]:
    """Python running ``script`` in another process, once the script has printed ``held``
    (it holds what it locks by then); its stdout is a pipe."""
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return proc


def local_identity(target: Path | str, state: Path) -> set[str]:
    """The local platform's lock identity of ``target`` (``LocalPlatform.target_identity``:
    what its sweep locks), its state in ``state``."""
    from sweeper.platforms import get_platform

    platform = get_platform("local", {"target": str(target)}, state, LOCAL_INVENTORY)
    return set(platform.target_identity())
