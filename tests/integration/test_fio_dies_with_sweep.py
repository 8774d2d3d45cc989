"""A sweep killed while fio runs leaves no fio behind: fio runs in a session of its own (a
Ctrl-C is raidsweep's to handle), so it is armed to die with raidsweep, and its jobs are
threads of one process (a forked fio job is a session of its own too, and outlived its parent:
it went on driving the target while a resumed sweep measured it, the target's lock already
free). The same holds where fio runs through a shell on a host the inventory names (the
linux_md and vsan load): the shell there stops fio when the process that started it ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

from sweeper.lab import Lab
from tests.support.cli import start
from tests.support.specs import local_spec, quick_fio_matrix

#: the lab VM's first data disk, only read here
DEVICE = "/dev/disk/by-id/virtio-data0"


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


def _shells_for(target: Path) -> list[int]:
    """The shells that run a sweep's job on ``target`` (their command line names it)."""
    found = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv[:2] == [b"sh", b"-c"] and str(target).encode() in b" ".join(argv[2:]):
            found.append(int(pid))
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


#: A sweep's load over a host's shell, as linux_md and vsan drive it (connection ``local``: the
#: shell is this machine's, started by this process the way ssh's session starts it there).
_DRIVER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from sweeper.load import FioDriver, FioLoad, SshFio
    from sweeper.remote import RemoteHost, inventory_host
    from sweeper.spec import Matrix
    from tests.support.specs import quick_fio_matrix

    target, state = sys.argv[1], Path(sys.argv[2])
    matrix = Matrix.model_validate(
        quick_fio_matrix("randread", engine="psync", runtime="60s", concurrency=["1x2"])
    )
    host = (
        inventory_host(Path(sys.argv[3]))  # over SSH
        if len(sys.argv) > 3
        else RemoteHost("worker-1", "localhost", 22, None, None, (), local=True)
    )
    driver = FioDriver(FioLoad(target=target, fill=False), state, matrix, SshFio([host]))
    driver.prepare()
    driver.run(matrix.cells()[0], 0)
    """
)


def _kill_mid_run(
    args: list[str], running: Callable[[], bool], start_s: float = 60
) -> tuple[float, bool]:
    """Start the driver with ``args``, SIGKILL it once fio runs, then wait up to 15 s:
    (seconds fio outlived it, whether it still runs)."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _DRIVER, *args],
        cwd=Path(__file__).resolve().parents[2],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + start_s
        while not running():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "fio never started"
            time.sleep(0.2)
        time.sleep(1.0)  # the jobs are at work
        assert running()
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        killed = time.monotonic()
        while running() and time.monotonic() < killed + 15:
            time.sleep(0.2)
        return time.monotonic() - killed, running()
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_killed_sweep_leaves_no_fio_on_the_host_that_ran_it(tmp_path: Path) -> None:
    target = tmp_path / "target.img"
    target.write_bytes(b"\0" * (32 << 20))
    try:
        outlived, still = _kill_mid_run(
            [str(target), str(tmp_path / "state")], lambda: bool(_fio_on(target))
        )
        assert not still and outlived < 5, "fio outlived the sweep that started it there"
        # nor the shell's loop that samples the counters each second
        deadline = time.monotonic() + 5
        while _shells_for(target) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _shells_for(target) == [], "the shell there samples on alone"
    finally:
        for pid in _fio_on(target) + _shells_for(target):
            os.kill(pid, signal.SIGKILL)


def test_a_killed_sweep_leaves_no_fio_in_the_lab_vm(tmp_path: Path, lab_vm: Lab) -> None:
    """Over SSH: the sweep's ssh dies with it, the guest's session ends, its shell stops fio
    (reads only: the guest's first data disk is left as it was)."""

    def running() -> bool:
        # fio at a job file (not the version check before the run)
        return lab_vm.ssh("pgrep -ax fio | grep -q job.fio", check=False).returncode == 0

    args = [DEVICE, str(tmp_path / "state"), str(lab_vm.inventory_path)]
    try:
        outlived, still = _kill_mid_run(args, running, start_s=120)
        assert not still and outlived < 10, "fio outlived the sweep that started it there"
    finally:
        lab_vm.ssh("pkill -9 -x fio", check=False)
