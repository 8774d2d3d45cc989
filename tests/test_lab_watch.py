"""A lab VM started by a test session is stopped when the session ends however it ends
(tests/support/lab_watch.py): killed by a timeout's SIGKILL, or its process group sent
SIGTERM. A stand-in for QEMU is a real process whose argv[0] is ``qemu-system-x86_64`` and
whose arguments name the lab's pidfile, as ``Lab`` checks before it signals anything."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sweeper.lab import Lab
from tests.support.lab import ROOT, watched

#: a test session that watches FOLDER's lab, says so, then waits to be killed
SESSION = (
    "import sys, time\n"
    "from pathlib import Path\n"
    "from tests.support.lab import watch\n"
    "watcher = watch(Path(sys.argv[1]))\n"
    "print(watcher.pid, flush=True)\n"
    "time.sleep(600)\n"
)


def _fake_qemu(folder: Path) -> subprocess.Popen[bytes]:
    """A process ``Lab`` takes for the folder's QEMU, its pid in the pidfile."""
    folder.mkdir(exist_ok=True)
    pidfile = folder / "qemu.pid"
    proc = subprocess.Popen(
        [
            "bash",
            "-c",
            'exec -a qemu-system-x86_64 "$0" -c "import time; time.sleep(600)" "$1"',
            sys.executable,
            str(pidfile),
        ],
        start_new_session=True,
        stderr=subprocess.DEVNULL,
    )
    pidfile.write_text(f"{proc.pid}\n")
    deadline = time.monotonic() + 10  # until bash has become the stand-in
    while Lab(folder)._pid() != proc.pid and time.monotonic() < deadline:
        time.sleep(0.05)
    return proc


def _gone(proc: subprocess.Popen[bytes], within_s: float = 30.0) -> bool:
    try:
        proc.wait(timeout=within_s)
    except subprocess.TimeoutExpired:
        return False
    return True


@pytest.fixture()
def qemu(tmp_path: Path):
    folder = tmp_path / "lab"
    proc = _fake_qemu(folder)
    if proc.poll() is not None or Lab(folder)._pid() != proc.pid:
        pytest.fail("the stand-in for QEMU is not taken for the lab's QEMU")
    yield folder, proc
    if proc.poll() is None:
        proc.kill()
        proc.wait()


def _session(folder: Path) -> tuple[subprocess.Popen[str], int]:
    session = subprocess.Popen(
        [sys.executable, "-c", SESSION, str(folder)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert session.stdout is not None
    watcher_pid = int(session.stdout.readline())
    return session, watcher_pid


@pytest.mark.parametrize("end", ["SIGKILL to the session", "SIGTERM to its process group"])
def test_a_killed_session_leaves_no_lab_running(qemu, end: str) -> None:
    folder, proc = qemu
    session, watcher_pid = _session(folder)
    time.sleep(0.5)
    assert proc.poll() is None  # watched, not stopped, while the session lives
    if end.startswith("SIGKILL"):
        session.kill()
    else:
        os.killpg(session.pid, signal.SIGTERM)
    session.wait(timeout=10)
    assert _gone(proc), "the lab's QEMU still runs after its session ended"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and Path(f"/proc/{watcher_pid}").exists():
        time.sleep(0.1)
    assert not Path(f"/proc/{watcher_pid}").exists(), "the watcher did not exit"
    assert not (folder / "qemu.pid").exists()  # Lab.down removed the lab's files


def test_a_lab_watched_by_a_test_is_stopped_when_the_test_ends(qemu) -> None:
    folder, proc = qemu
    with watched(folder):
        time.sleep(0.3)
        assert proc.poll() is None
    assert _gone(proc, within_s=1.0)
    assert not (folder / "qemu.pid").exists()
