"""Several load hosts at once: real fio servers started by the loadgen playbook, driven by fio.

Three "hosts" share this machine, each on its own loopback address (127.0.0.1-3) and with its
own state directory (the server's working directory, so a job file's relative ``data.bin`` is
one file per host). Every server a test starts is stopped by its fixture, through the
playbook, and by pid from the pidfile if the playbook cannot.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from sweeper.ansible import PlayResult, run_playbook
from sweeper.fio import FioRunError
from sweeper.fio.clients import (
    FioServerUnreachableError,
    parse_client_output,
    run_fio_clients,
    wait_for_servers,
)
from sweeper.fio.runner import find_fio
from tests.support.net import LOOPBACK_HOSTS as ADDRESSES
from tests.support.net import accepts as _accepts
from tests.support.net import free_port

pytestmark = pytest.mark.integration
PIDFILE = "fio-server.pid"
FILE_SIZE = 64 * 1024**2


@dataclass
class LoadGen:
    """Three load hosts in a temporary inventory, each with its own state directory."""

    root: Path
    port: int

    @property
    def inventory(self) -> Path:
        return self.root / "hosts.yml"

    @property
    def hosts(self) -> list[tuple[str, int]]:
        return [(address, self.port) for address in ADDRESSES]

    def state_dir(self, address: str) -> Path:
        return self.root / f"lg-{address}"

    def pidfiles(self) -> list[Path]:
        return [self.state_dir(a) / PIDFILE for a in ADDRESSES]

    def write_inventory(self) -> None:
        hosts = {
            f"lg{i}": {"ansible_host": address, "loadgen_state_dir": str(self.state_dir(address))}
            for i, address in enumerate(ADDRESSES, start=1)
        }
        group = {
            "vars": {
                "ansible_connection": "local",
                "ansible_python_interpreter": "{{ ansible_playbook_python }}",
                "loadgen_port": self.port,
            },
            "hosts": hosts,
        }
        self.inventory.write_text(yaml.safe_dump({"all": {"children": {"loadgen": group}}}))

    def play(self, state: str = "started", *, check: bool = False) -> PlayResult:
        return run_playbook(
            "loadgen.yml", self.inventory, {"loadgen_state": state}, check=check, timeout_s=120
        )

    def server_pids(self) -> list[int]:
        """The live fio servers started from this instance's pidfiles."""
        pids = []
        for pidfile in self.pidfiles():
            try:
                pid = int(pidfile.read_text().strip())
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except (OSError, ValueError):
                continue
            if f"--daemonize={pidfile}".encode() in cmdline:
                pids.append(pid)
        return pids

    def force_stop(self) -> None:
        """Last resort after the playbook: signal our own servers by pid, wait until gone."""
        pids = self.server_pids()
        for sig, wait_s in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
            for pid in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, sig)
            deadline = time.monotonic() + wait_s
            while (pids := [p for p in pids if Path(f"/proc/{p}").exists()]) and (
                time.monotonic() < deadline
            ):
                time.sleep(0.1)
            if not pids:
                return


@pytest.fixture
def make_loadgen(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[], LoadGen]]:
    """Makes LoadGen instances; stops every server any of them started, however the test ends."""
    made: list[LoadGen] = []

    def make() -> LoadGen:
        lg = LoadGen(tmp_path_factory.mktemp("loadgen"), free_port(*ADDRESSES))
        lg.write_inventory()
        made.append(lg)
        return lg

    yield make
    for lg in made:
        try:
            if lg.server_pids():
                lg.play("stopped")
        finally:
            lg.force_stop()
        assert not lg.server_pids()


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LoadGen]:
    """Three fio servers, started once for the module through the playbook."""
    lg = LoadGen(tmp_path_factory.mktemp("loadgen-running"), free_port(*ADDRESSES))
    lg.write_inventory()
    try:
        play = lg.play()
        assert play.ok, play.error
        yield lg
    finally:
        try:
            if lg.server_pids():
                lg.play("stopped")
        finally:
            lg.force_stop()


def _direct_io_works(directory: Path) -> bool:
    probe = directory / ".odirect-probe"
    try:
        fd = os.open(probe, os.O_CREAT | os.O_WRONLY | getattr(os, "O_DIRECT", 0), 0o600)
    except OSError as exc:
        if exc.errno == errno.EINVAL:
            return False
        raise
    os.close(fd)
    probe.unlink()
    return True


def _job_file(path: Path, *, direct: bool, runtime_s: int = 2) -> Path:
    path.write_text(
        "[global]\n"
        "ioengine=psync\n"
        f"direct={int(direct)}\n"
        "time_based=1\n"
        f"runtime={runtime_s}\n"
        f"size={FILE_SIZE}\n"
        "norandommap=1\n"
        "randrepeat=0\n"
        "lat_percentiles=1\n"
        "group_reporting=1\n"
        # relative: each server opens it in its own working directory, its state directory
        "filename=data.bin\n"
        "\n"
        "[randread_4k]\n"
        "rw=randread\n"
        "bs=4k\n"
        "iodepth=1\n"
        "numjobs=1\n"
    )
    return path


# --- the playbook -----------------------------------------------------------------------------


def test_check_mode_starts_nothing(make_loadgen: Callable[[], LoadGen]) -> None:
    lg = make_loadgen()
    plan = lg.play(check=True)
    assert plan.ok, plan.error
    assert plan.changed == 3  # each host's state directory would be created
    assert not any(_accepts(h, p) for h, p in lg.hosts)
    assert not any(lg.state_dir(a).exists() for a in ADDRESSES)
    assert not lg.server_pids()


def test_start_is_idempotent_and_stop_closes_the_ports(make_loadgen: Callable[[], LoadGen]) -> None:
    lg = make_loadgen()
    first = lg.play()
    assert first.ok, first.error
    assert first.changed == 6  # per host: the state directory, the server
    assert all(_accepts(h, p) for h, p in lg.hosts)
    assert len(lg.server_pids()) == 3
    pids = lg.server_pids()

    again = lg.play()
    assert again.ok, again.error
    assert again.changed == 0
    assert lg.server_pids() == pids

    plan = lg.play(check=True)
    assert plan.ok and plan.changed == 0

    plan_stop = lg.play("stopped", check=True)
    assert plan_stop.ok and plan_stop.changed == 6  # per host: the signal, the pidfile
    assert lg.server_pids() == pids

    down = lg.play("stopped")
    assert down.ok, down.error
    assert down.changed == 6
    assert not any(_accepts(h, p) for h, p in lg.hosts)
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)
    assert not any(pidfile.exists() for pidfile in lg.pidfiles())

    down_again = lg.play("stopped")
    assert down_again.ok and down_again.changed == 0


def test_a_server_started_with_other_settings_is_restarted(
    make_loadgen: Callable[[], LoadGen],
) -> None:
    lg = make_loadgen()
    assert lg.play().ok
    old_port, old_pids = lg.port, lg.server_pids()
    lg.port = free_port(*ADDRESSES)
    lg.write_inventory()
    moved = lg.play()
    assert moved.ok, moved.error
    assert moved.changed == 9  # per host: the signal, the pidfile, the new server
    assert not set(lg.server_pids()) & set(old_pids)
    assert all(_accepts(h, lg.port) for h, _ in lg.hosts)
    assert not any(_accepts(h, old_port) for h, _ in lg.hosts)


def test_an_unknown_state_is_refused(make_loadgen: Callable[[], LoadGen]) -> None:
    lg = make_loadgen()
    play = lg.play("stoped")
    assert not play.ok
    assert "loadgen_state must be started or stopped, not stoped" in (play.error or "")
    assert not lg.server_pids()


def _session(server: int) -> list[int]:
    """The live processes of a server's session other than the server: its connections' and
    their jobs' (a zombie has ended)."""
    found = []
    for pid in (int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != server):
        with contextlib.suppress(OSError):
            stat = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
            if int(stat[3]) == server and stat[0] != "Z":
                found.append(pid)
    return found


def _reading(pid: int) -> int:
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/io").read_text().splitlines():
            if line.startswith("rchar:"):
                return int(line.split()[1])
    return -1


def _killed_client(lg: LoadGen, job: Path) -> list[int]:
    """A sweep killed mid-run: its fio client SIGKILLed while every server runs its job.
    The jobs that run on."""
    cmd = [find_fio().path, "--output-format=json+"]
    for host, port in lg.hosts:
        cmd += [f"--client={host},{port}", str(job)]
    client = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while not all(len(_session(s)) >= 2 for s in lg.server_pids()):  # connection and job
        assert client.poll() is None and time.monotonic() < deadline, "the jobs never started"
        time.sleep(0.1)
    time.sleep(2.0)  # at work
    client.kill()
    client.wait()
    time.sleep(1.0)  # the connections notice and end
    left = [pid for s in lg.server_pids() for pid in _session(s)]
    before = {pid: _reading(pid) for pid in left}
    time.sleep(0.5)
    return [pid for pid in left if _reading(pid) > before[pid] >= 0]


def test_the_jobs_of_a_killed_client_are_stopped_by_start_and_by_stop(
    make_loadgen: Callable[[], LoadGen], tmp_path: Path
) -> None:
    """fio's server runs a job on to the end of its runtime after its client died: a resumed
    sweep would measure beside it. Starting the servers again stops such jobs (and only
    them: the servers stay); stopping them stops the servers' jobs too."""
    lg = make_loadgen()
    assert lg.play().ok
    servers = lg.server_pids()
    job = _job_file(tmp_path / "long.fio", direct=False, runtime_s=120)
    job.write_text(job.read_text().replace("[global]\n", "[global]\nthread=1\n", 1))

    orphans = _killed_client(lg, job)
    assert len(orphans) == 3, "each server's job reads on without its client"
    again = lg.play()
    assert again.ok, again.error
    assert again.changed == 3, again.stdout  # per host: its orphaned job stopped
    assert lg.server_pids() == servers
    assert not any(Path(f"/proc/{pid}").exists() for pid in orphans)
    assert lg.play().changed == 0

    assert len(_killed_client(lg, job)) == 3
    down = lg.play("stopped")
    assert down.ok, down.error
    assert not lg.server_pids()
    assert not any(_session(s) for s in servers)


# --- driving the servers ----------------------------------------------------------------------


def test_three_hosts_drive_one_load(running: LoadGen, tmp_path: Path) -> None:
    direct = _direct_io_works(running.state_dir(ADDRESSES[0]))
    job = _job_file(tmp_path / "randread.fio", direct=direct)
    out = run_fio_clients(find_fio(), running.hosts, job, timeout_s=120)
    assert out.exit_code == 0 and not out.timed_out, out.stderr
    # the servers' text output comes first, each line tagged with the server's own name
    assert re.match(r"<[^>]+> randread_4k: \(g=0\)", out.stdout)
    result = parse_client_output(out.stdout, expected_hosts=running.hosts)

    assert [(h.host, h.port) for h in result.hosts] == sorted(running.hosts)
    for entry in result.hosts:
        assert entry.result.read is not None and entry.result.read.iops > 0
        assert entry.result.write is None
        assert entry.result.job_options["direct"] == str(int(direct))
        # each server laid out its own file in its working directory
        assert (running.state_dir(entry.host) / "data.bin").stat().st_size == FILE_SIZE
    assert result.aggregate_source == "all clients"
    agg = result.aggregate.read
    assert agg is not None
    hosts = [h.result.read for h in result.hosts if h.result.read]
    assert agg.total_ios == sum(h.total_ios for h in hosts)
    # fio's "All clients" rate divides the summed I/Os by the clients' runtime; the hosts'
    # own runtimes differ by a few milliseconds on a busy machine, so the sum of their rates
    # matches it closely, not to the last digit.
    assert agg.iops == pytest.approx(sum(h.iops for h in hosts), rel=2e-3)
    assert agg.lat_p99_ms is not None
    assert (
        min(h.lat_p99_ms or 0 for h in hosts)
        <= agg.lat_p99_ms
        <= max(h.lat_p99_ms or 0 for h in hosts)
    )


def test_a_host_where_nothing_listens_is_named(running: LoadGen, tmp_path: Path) -> None:
    nobody = ("127.0.0.4", free_port("127.0.0.4"))  # one fio server per address
    with pytest.raises(FioServerUnreachableError, match=rf"127\.0\.0\.4:{nobody[1]} \("):
        wait_for_servers([nobody], timeout_s=0.5)
    job = _job_file(tmp_path / "job.fio", direct=False, runtime_s=1)
    with pytest.raises(FioServerUnreachableError) as info:
        run_fio_clients(
            find_fio(), [*running.hosts, nobody], job, timeout_s=60, connect_timeout_s=0.5
        )
    assert f"127.0.0.4:{nobody[1]}" in str(info.value)
    assert f"127.0.0.1:{running.port}" not in str(info.value)


def test_fio_itself_carries_on_without_an_unreachable_server(
    running: LoadGen, tmp_path: Path
) -> None:
    # Why run_fio_clients checks the servers first, and parse_client_output takes the hosts:
    # fio drops a server it cannot reach, runs the others and exits 0.
    nobody = ("127.0.0.2", free_port(*ADDRESSES))
    job = str(_job_file(tmp_path / "job.fio", direct=False, runtime_s=1))
    hosts = [running.hosts[0], nobody]
    fio = find_fio()
    cmd = [fio.path, "--output-format=json+"]
    for host, port in hosts:
        cmd += [f"--client={host},{port}", job]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0
    assert f"failed to connect to 127.0.0.2:{nobody[1]}" in proc.stderr
    assert parse_client_output(proc.stdout).aggregate_source == "single host"
    with pytest.raises(FioRunError, match=rf"no results from 127\.0\.0\.2:{nobody[1]}"):
        parse_client_output(proc.stdout, expected_hosts=hosts)
