"""The locks themselves, with real files and real processes (no lock is mocked): who holds
what, a lock whose holder is gone, a holder on another host, and the storage target each
platform names for its machine-wide lock (two spellings of one target are one lock)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from sweeper.locking import (
    LockHeld,
    canonical_host,
    hold,
    holders,
    lock_record,
    target_lock_dir,
    target_locks,
)
from sweeper.platforms import get_platform
from tests.support.locks import holding_process
from tests.support.paths import ROOT

HOST = socket.gethostname()


def _dead_pid() -> int:
    """The pid of a process of this host that has ended."""
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def _holding(lock: Path, record: dict[str, Any]) -> subprocess.Popen[str]:
    """Another process holding ``lock``'s flock, with ``record`` written in as its holder
    (``record`` may name some other process: the descriptor is not that process's)."""
    script = (
        "import fcntl, json, os, sys, time\n"
        f"fd = os.open({str(lock)!r}, os.O_RDWR | os.O_CREAT, 0o644)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
        "os.ftruncate(fd, 0)\n"
        f"os.pwrite(fd, json.dumps({record!r}).encode(), 0)\n"
        "print('held', flush=True)\n"
        "time.sleep(120)\n"
    )
    return holding_process(script)


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for p in started:
        p.kill()
        p.wait()


def test_a_live_holder_is_named_and_a_look_takes_nothing(tmp_path: Path, procs: list) -> None:
    lock = tmp_path / "sweep.lock"
    assert holders({lock: "the sweep"}) == [] and not lock.exists()  # creates nothing
    record = lock_record("raidsweep run quick", sweep="quick")
    record["pid"] = os.getpid() + 0  # a living process of this host
    procs.append(_holding(lock, record))
    [seen] = holders({lock: "the sweep", tmp_path / "other.lock": "other"})
    assert seen.source == "the sweep"
    assert f"in use by pid {os.getpid()} on host {HOST} (raidsweep run quick" in str(seen)
    assert "wait for it to finish, or stop it" in str(seen)
    with pytest.raises(LockHeld) as info:  # a living holder is never taken over
        with hold({lock: "the sweep"}, lock_record("raidsweep run quick")):
            pass
    assert f"pid {os.getpid()} on host {HOST}" in str(info.value)


def test_a_held_lock_whose_holder_is_gone_is_taken_over(tmp_path: Path, procs: list) -> None:
    """The flock is held (a descriptor another process kept, or a network filesystem's lock
    that outlived its client) but the process the record names, on this host, is gone."""
    lock = tmp_path / "sweep.lock"
    dead = _dead_pid()
    procs.append(_holding(lock, lock_record("raidsweep run quick") | {"pid": dead}))
    assert holders({lock: "the sweep"}) == []  # a holder that is gone holds nothing
    started = time.monotonic()
    with hold({lock: "the sweep"}, lock_record("raidsweep run quick")) as stale:
        assert [s["pid"] for s in stale] == [dead]
        assert json.loads(lock.read_text())["pid"] == os.getpid()
        # The lock is ours now: the next taker is refused naming this process.
        script = (
            "from pathlib import Path\n"
            "from sweeper.locking import LockHeld, hold, lock_record\n"
            "try:\n"
            f"    with hold({{Path({str(lock)!r}): 'the sweep'}}, lock_record('x')):\n"
            "        print('taken')\n"
            "except LockHeld as exc:\n"
            "    print(exc)\n"
        )
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
        assert f"in use by pid {os.getpid()} on host {HOST}" in out.stdout, out
    assert time.monotonic() - started < 15
    assert lock.read_text() == ""  # let go: no record of a holder that is gone
    with hold({lock: "the sweep"}, lock_record("raidsweep run quick")) as stale:
        assert stale == []


def test_two_takers_of_a_stale_lock_one_wins(tmp_path: Path, procs: list) -> None:
    lock = tmp_path / "sweep.lock"
    procs.append(_holding(lock, lock_record("raidsweep run quick") | {"pid": _dead_pid()}))
    script = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from sweeper.locking import LockHeld, hold, lock_record\n"
        "try:\n"
        f"    with hold({{Path({str(lock)!r}): 'the sweep'}}, lock_record('taker')):\n"
        "        print('taken', flush=True)\n"
        "        time.sleep(8)\n"
        "except LockHeld as exc:\n"
        "    print('refused', exc, flush=True)\n"
    )
    takers = [
        subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        for _ in range(3)
    ]
    outs = [t.communicate(timeout=60)[0] for t in takers]
    assert sorted(o.split()[0] for o in outs) == ["refused", "refused", "taken"], outs
    winner = takers[[o.startswith("taken") for o in outs].index(True)]
    assert all(f"pid {winner.pid}" in o for o in outs if o.startswith("refused")), outs


def test_a_holder_on_another_host_is_named_never_taken_over(tmp_path: Path, procs: list) -> None:
    lock = tmp_path / "sweep.lock"
    far = lock_record("raidsweep run quick") | {"host": "far-away", "pid": _dead_pid()}
    procs.append(_holding(lock, far))
    [seen] = holders({lock: "the sweep"})
    with pytest.raises(LockHeld) as info:
        with hold({lock: "the sweep"}, lock_record("raidsweep run quick")):
            pass
    for text in (str(seen), str(info.value)):
        assert f"pid {far['pid']} on host far-away" in text
        assert "another host" in text and str(lock) in text


def test_a_killed_holder_leaves_a_stale_record_and_no_lock(tmp_path: Path) -> None:
    lock = tmp_path / "sweep.lock"
    script = (
        "import time\n"
        "from pathlib import Path\n"
        "from sweeper.locking import hold, lock_record\n"
        f"with hold({{Path({str(lock)!r}): 'the sweep'}}, lock_record('raidsweep run q')):\n"
        "    print('held', flush=True)\n"
        "    time.sleep(120)\n"
    )
    proc = holding_process(script)
    assert len(holders({lock: "the sweep"})) == 1
    proc.kill()
    proc.wait()
    assert json.loads(lock.read_text())["pid"] == proc.pid  # the record stays: no cleanup ran
    assert holders({lock: "the sweep"}) == []
    with hold({lock: "the sweep"}, lock_record("raidsweep run q")) as stale:
        assert [s["pid"] for s in stale] == [proc.pid]


def test_the_lock_folder(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RAIDSWEEP_LOCK_DIR", str(tmp_path / "locks"))
    assert target_lock_dir() == tmp_path / "locks"
    one, two = target_locks(["local:path:/a", "local:path:/b"])
    assert one.parent == tmp_path / "locks" and one != two
    monkeypatch.delenv("RAIDSWEEP_LOCK_DIR")
    assert target_lock_dir() in (
        Path("/run/lock/raidsweep"),
        Path.home() / ".cache" / "raidsweep" / "locks",
    )


# --- the storage target of each platform -------------------------------------------------


def _identity(name: str, options: dict[str, Any], state: Path, inventory: Path | None) -> set:
    return set(get_platform(name, options, state, inventory).target_identity())


def test_local_one_target_however_spelled(tmp_path: Path) -> None:
    inv = ROOT / "inventories" / "local" / "hosts.yml"
    target = tmp_path / "t.img"
    link = tmp_path / "link.img"
    link.symlink_to(target)  # the target need not exist yet: the sweep creates it
    a = _identity("local", {"target": str(target), "file_size": "16m"}, tmp_path / "a", inv)
    b = _identity("local", {"target": str(link), "file_size": "16m"}, tmp_path / "b", inv)
    c = _identity(
        "local",
        {"target": str(tmp_path / "x" / ".." / "t.img"), "file_size": "16m"},
        tmp_path / "c",
        inv,
    )
    other = _identity(
        "local", {"target": str(tmp_path / "o.img"), "file_size": "16m"}, tmp_path / "d", inv
    )
    # its path, and its name in its folder (the folder by device and inode)
    st = os.stat(tmp_path)
    entry = f"local:entry:{os.major(st.st_dev)}:{os.minor(st.st_dev)}:{st.st_ino}:t.img"
    assert a == b == c == {f"local:path:{target}", entry} and not a & other


def test_local_block_device_by_its_number(tmp_path: Path) -> None:
    devices = [Path("/dev/loop0"), Path("/dev/vda"), Path("/dev/sda")]
    device = next((d for d in devices if d.is_block_device()), None)
    if device is None:
        pytest.skip("no block device on this machine")
    link = tmp_path / "by-id"
    link.symlink_to(device)
    inv = ROOT / "inventories" / "local" / "hosts.yml"
    st = device.stat()
    want = {f"local:dev:{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"}
    # the device by its number, whatever its name (and, where it is a loop device in use, its
    # backing file too: tests/test_target_identity.py)
    by_name = _identity("local", {"target": str(device)}, tmp_path / "a", inv)
    assert want <= by_name
    assert _identity("local", {"target": str(link)}, tmp_path / "b", inv) == by_name


def _md_inventory(path: Path, address: str, devices: list[str], port: int = 22) -> Path:
    host = {"ansible_host": address, "ansible_port": port, "linux_md_devices": devices}
    doc = {"all": {"children": {"storage": {"hosts": {"jbod": host}}}}}
    path.write_text(yaml.safe_dump(doc))
    return path


def test_linux_md_one_host_however_spelled_and_its_devices(tmp_path: Path) -> None:
    ids = [f"/dev/disk/by-id/wwn-0x{i}" for i in range(6)]
    a = _identity(
        "linux_md", {}, tmp_path / "a", _md_inventory(tmp_path / "a.yml", "localhost", ids[:4])
    )
    b = _identity(
        "linux_md", {}, tmp_path / "b", _md_inventory(tmp_path / "b.yml", "127.0.0.1", ids[3:])
    )
    # One host (two spellings): its volume group, and the device both allow-lists name.
    assert {"linux_md:127.0.0.1:22:vg:raidsweep", f"linux_md:127.0.0.1:22:dev:{ids[3]}"} == a & b
    assert f"linux_md:127.0.0.1:22:dev:{ids[0]}" in a
    # Another host (here: another port, as the lab's VMs are) is other storage.
    c = _identity(
        "linux_md",
        {},
        tmp_path / "c",
        _md_inventory(tmp_path / "c.yml", "127.0.0.1", ids, port=2222),
    )
    assert not a & c


def test_vsan_the_policy_on_its_vcenter(tmp_path: Path) -> None:
    def inventory(name: str, vcenter: str) -> Path:
        host = {
            "ansible_connection": "local",
            "vsan_hostname": vcenter,
            "vsan_username": "u",
            "vsan_cluster": "c1",
        }
        doc = {"all": {"children": {"storage": {"hosts": {"vcenter": host}}}}}
        path = tmp_path / f"{name}.yml"
        path.write_text(yaml.safe_dump(doc))
        return path

    a = _identity(
        "vsan", {"policy_name": "p1", "load": "sim"}, tmp_path / "a", inventory("a", "LocalHost.")
    )
    b = _identity(
        "vsan", {"policy_name": "p1", "load": "sim"}, tmp_path / "b", inventory("b", "127.0.0.1")
    )
    c = _identity(
        "vsan", {"policy_name": "p2", "load": "sim"}, tmp_path / "c", inventory("c", "127.0.0.1")
    )
    assert a == b == {"vsan:127.0.0.1:443:policy:p1"} and not a & c


def test_sim_its_state_folder(tmp_path: Path) -> None:
    inv = ROOT / "inventories" / "sim" / "hosts.yml"
    a = _identity("sim", {}, tmp_path / "s" / "array", inv)
    b = _identity("sim", {}, tmp_path / "s" / "x" / ".." / "array", inv)
    assert a == b == {f"sim:{tmp_path / 's' / 'array'}"}
    assert not a & _identity("sim", {}, tmp_path / "s" / "array-w2", inv)


def test_canonical_host() -> None:
    assert canonical_host("LocalHost.") == canonical_host("127.0.0.1") == "127.0.0.1"
    assert canonical_host("no-such-host.invalid") == "no-such-host.invalid"
