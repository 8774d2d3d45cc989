"""The manual platform with real fio on loop devices: the operator, played by the test,
answers through `raidsweep ready` and at the interactive prompt (a pseudo-terminal); a
wrong answer is refused and the sweep keeps waiting; a sweep killed while waiting resumes at
the configuration it waited for."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest

from sweeper.store import ParquetStore
from tests.support import devices
from tests.support.apptest import open_app
from tests.support.cli import cli, finish, start
from tests.support.paths import RAIDSWEEP, ROOT
from tests.support.specs import class_measuring, quick_fio_matrix, write_spec

pytestmark = pytest.mark.integration

MATRIX = quick_fio_matrix("randread", runtime="1s", working_set="16m")


@pytest.fixture
def luns(tmp_path: Path) -> Iterator[list[str]]:
    """Four LUNs as the host sees them: two of 32 MiB, one too small (8 MiB), and one the
    spec does not allow."""
    with ExitStack() as stack:
        yield [
            stack.enter_context(devices.loop_device(tmp_path / f"lun{i}.img", mib))
            for i, mib in enumerate((32, 32, 8, 32))
        ]


def _spec(tmp_path: Path, allow: list[str], levels: list[str]) -> Path:
    return write_spec(
        tmp_path,
        {
            "name": "by-hand",
            "platform": "manual",
            "inventory": str(ROOT / "inventories/local/hosts.yml"),
            "platform_options": {"allow": allow, "note": "array A, pool P0"},
            "config_space": {"raid_level": levels, "layout": ["single_rank"]},
            "matrix": MATRIX,
            "classes": [class_measuring(tmp_path, MATRIX)],
        },
        "by-hand",
    )


def _status(store: Path) -> dict:
    """The sweep's status as `raidsweep status --json` gives it ({} before it exists)."""
    out = cli("status", "by-hand", "--store", store, "--json")
    if out.returncode != 0:
        assert "no sweep 'by-hand'" in out.stderr, out.stderr
        return {}
    (sweep,) = json.loads(out.stdout)["sweeps"]
    return sweep


def _wait(what: Callable[[], object], timeout: float = 180.0) -> object:
    limit = time.monotonic() + timeout
    while time.monotonic() < limit:
        found = what()
        if found:
            return found
        time.sleep(0.3)
    raise AssertionError("timed out waiting")


def _waiting_for(store: Path, position: int) -> str:
    """The configuration the sweep waits for once it waits at ``position``."""

    def waiting() -> str | None:
        text = _status(store).get("waiting") or ""
        return text if f"({position} of 2)" in text else None

    text = str(_wait(waiting))
    return text.split("build ", 1)[1].split(" (", 1)[0]


def test_ready_refusals_a_kill_while_waiting_and_resume(tmp_path: Path, luns: list[str]) -> None:
    store = tmp_path / "store"
    spec = _spec(tmp_path, luns[:3], ["raid5", "raid10"])
    check = cli("run", spec, "--store", store, "--check")
    assert check.returncode == 0, check.stderr
    assert "asks the operator to build each configuration" in " ".join(check.stdout.split())
    planned = cli("plan", spec, "--store", store)
    assert planned.returncode == 0, planned.stderr
    assert "operator: build: one LUN on a single RAID group (rank) of RAID 5" in planned.stdout
    assert "operator: remove: the LUN(s) and RAID group(s) of raid" in planned.stdout
    torn = cli("teardown", spec, "--store", store, "--check")
    assert torn.returncode == 0 and "nothing was changed (--check)" in torn.stdout
    proc = start("run", spec, "--store", store, "-q")
    try:
        first = _waiting_for(store, 1)
        room = store / "by-hand" / "array" / "operator"
        waiting = json.loads((room / "waiting.json").read_text())
        assert waiting["config_key"] == first
        assert any(
            "RAID" in line and "single RAID group" in line for line in waiting["instructions"]
        )
        assert "array A, pool P0" in waiting["instructions"]
        # Wrong answers: refused with the place and the problem, exit 2, nothing left.
        other = (
            "raid10/single_rank/wb-ra" if first.startswith("raid5") else "raid5/single_rank/wb-ra"
        )
        refused = {
            "waits for": ("ready", "by-hand", other, "--target", luns[0]),
            "less than the working set": ("ready", "by-hand", first, "--target", luns[2]),
            "does not exist": ("ready", "by-hand", first, "--target", "/dev/raidsweep-none"),
            "not in the allow-list": ("ready", "by-hand", first, "--target", luns[3]),
            "is no disk": ("ready", "by-hand", first, "--target", "/dev/zero"),
        }
        for why, args in refused.items():
            out = cli(*args, "--store", store)
            assert out.returncode == 2 and why in " ".join(out.stderr.split()), (why, out.stderr)
            assert not (room / "answer.json").exists()
        # Killed while waiting: status says so, and a new run waits for the same one.
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        status = _status(store)
        assert status["state"] == "interrupted" and first in status["waiting"]
        proc = start("run", spec, "--store", store, "-q")
        assert _waiting_for(store, 1) == first
        note = "LUN 17 on pool P0, ticket CHG-1"
        answered = cli(
            "ready", "by-hand", first, "--target", luns[0], "--note", note, "--store", store
        )
        assert answered.returncode == 0, answered.stderr
        second = _waiting_for(store, 2)
        assert second != first
        assert (
            cli("ready", "by-hand", second, "--target", luns[1], "--store", store).returncode == 0
        )
        code, output = finish(proc)
        assert code == 0, output
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    results = ParquetStore(store)
    configs = results.configurations("by-hand")
    assert set(configs["status"]) == {"successful"} and len(configs) == 2
    facts = {row.config_key: json.loads(row.facts) for row in configs.itertuples()}
    lun = facts[first]["lun"]
    assert lun["realpath"] == luns[0] and lun["loop_backing_file"].endswith("lun0.img")
    assert lun["device"]["size"] == 32 * 1024**2 and "scheduler" in lun["queue"]
    assert facts[first]["operator"] == {"note": note, "via": "ready"}
    assert facts[second]["lun"]["realpath"] == luns[1]
    runs = results.runs("by-hand")
    assert len(runs) == 2 and set(runs["status"]) == {"ok"}
    assert _status(store)["waiting"] is None


def _plain(text: str) -> str:
    """The terminal's text without its styles."""
    return re.sub(r"\x1b\[[0-9;]*m", "", text)


def test_the_operator_answers_at_the_prompt(tmp_path: Path, luns: list[str]) -> None:
    store = tmp_path / "store"
    spec = _spec(tmp_path, luns[:3], ["raid10"])
    controller, terminal = pty.openpty()
    proc = subprocess.Popen(
        [str(RAIDSWEEP), "run", str(spec), "--store", str(store), "-q"],
        stdin=terminal,
        stdout=terminal,
        stderr=terminal,
        start_new_session=True,
        env=os.environ | {"COLUMNS": "200", "NO_COLOR": "1"},
    )
    os.close(terminal)
    seen = ""

    def read_until(text: str, timeout: float = 180.0) -> None:
        nonlocal seen
        limit = time.monotonic() + timeout
        while text not in _plain(seen) and time.monotonic() < limit:
            ready, _, _ = select.select([controller], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(controller, 4096).decode(errors="replace")
                except OSError:  # the terminal closed: the process ended
                    break
                seen += chunk
        assert text in _plain(seen), _plain(seen)[-2000:]

    try:
        read_until("type the LUN as this host sees it")
        assert "build raid10/single_rank/wb-ra (1 of 1)" in _plain(seen)
        os.write(controller, f"{luns[2]}\n".encode())  # too small: refused, still waiting
        read_until("still waiting")
        assert "less than the working set" in _plain(seen)
        os.write(controller, f"{luns[1]} built by hand at the console\n".encode())
        read_until("1 configuration(s) completed")
        assert proc.wait(timeout=120) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        os.close(controller)
    (row,) = ParquetStore(store).configurations("by-hand").itertuples()
    facts = json.loads(row.facts)
    assert facts["lun"]["realpath"] == luns[1]
    assert facts["operator"] == {"note": "built by hand at the console", "via": "prompt"}


def test_two_workers_each_wait_for_their_own_configuration(
    tmp_path: Path, luns: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A manual sweep run by two workers on one store: each posts the configuration it waits
    for in its own room, `raidsweep ready` answers each by its configuration, and the sweep
    finishes with both measured once."""
    store = tmp_path / "store"
    spec = _spec(tmp_path, luns[:2], ["raid5", "raid10"])
    workers = {w: start("run", spec, "--store", store, "-q", "--worker", w) for w in "ab"}
    rooms = {w: store / "by-hand" / f"array-{w}" / "operator" / "waiting.json" for w in "ab"}
    try:
        _wait(lambda: all(path.is_file() for path in rooms.values()))
        waited = {w: json.loads(path.read_text())["config_key"] for w, path in rooms.items()}
        assert set(waited.values()) == {"raid5/single_rank/wb-ra", "raid10/single_rank/wb-ra"}
        assert "waiting for the operator: build" in (_status(store).get("waiting") or "")
        # The app's Operator page offers each waiting worker's configuration.
        at = open_app(monkeypatch, store)
        at.switch_page("app_pages/operator.py").run()
        assert not at.exception, [e.message for e in at.exception]
        (choice,) = [box for box in at.selectbox if "workers wait" in box.label]
        assert sorted(choice.options) == sorted(waited.values())
        for lun, key in zip(luns[:2], waited.values(), strict=True):
            answered = cli("ready", "by-hand", key, "--target", lun, "--store", store)
            assert answered.returncode == 0, answered.stderr
        for proc in workers.values():
            code, output = finish(proc)
            assert code == 0, output
    finally:
        for proc in workers.values():
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
    configs = ParquetStore(store).configurations("by-hand")
    assert sorted(configs["config_key"]) == sorted(waited.values())
    assert set(configs["status"]) == {"successful"}
    status = _status(store)
    assert status["state"] == "finished" and status["waiting"] is None
