"""A sweep killed while fio runs leaves no fio behind: fio runs in a session of its own (a
Ctrl-C is raidsweep's to handle), so it is armed to die with raidsweep, and its jobs are
threads of one process (a forked fio job is a session of its own too, and outlived its parent:
it went on driving the target while a resumed sweep measured it, the target's lock already
free)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

from tests.support.cli import start
from tests.support.specs import local_spec, quick_fio_matrix


def _fio_on(target: Path) -> list[int]:
    """The processes whose command line or open files name ``target`` and that are fio."""
    found = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            if comm != "fio":
                continue
            fds = Path(f"/proc/{pid}/fd")
            if any(os.readlink(fds / fd) == str(target) for fd in os.listdir(fds)):
                found.append(int(pid))
        except OSError:
            continue  # gone meanwhile
    return found


def test_a_killed_sweep_leaves_no_fio_driving_its_target(tmp_path: Path) -> None:
    target = tmp_path / "target.img"
    target.write_bytes(b"\0" * (32 << 20))
    options = {"target": str(target), "allow": [str(target)], "fill": False}
    matrix = quick_fio_matrix("randread", engine="psync", runtime="60s", concurrency=["1x2"])
    spec = local_spec(tmp_path, "killed", options, matrix)
    proc = start("run", spec, "--store", tmp_path / "s", "-q")
    try:
        deadline = time.monotonic() + 60
        while not _fio_on(target):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "fio never started"
            time.sleep(0.1)
        time.sleep(1.0)  # the jobs are at work
        assert _fio_on(target)
        proc.send_signal(signal.SIGKILL)  # raidsweep alone: fio is in a session of its own
        proc.wait()
        deadline = time.monotonic() + 5
        while _fio_on(target) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _fio_on(target) == [], "fio outlived the sweep that started it"
    finally:
        for pid in _fio_on(target):
            os.kill(pid, signal.SIGKILL)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
