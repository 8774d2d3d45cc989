"""``RAIDSWEEP_LOCK_DIR`` is user input: a value that cannot name the machine-wide lock folder
(a file, a device, a place no folder can be made, a symbolic link loop, a relative path, text
that is not UTF-8, template syntax, a control character, empty) is refused by ``run``,
``plan``, ``teardown`` and ``capture --trace`` with exit status 2 naming the variable and the
problem, before anything is written: no store folder, no lock file, no lock folder."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from sweeper.errors import InputError
from tests.support.cli import refused
from tests.support.paths import RAIDSWEEP
from tests.support.specs import tiny_sim_spec


def _raidsweep(
    args: list[str | Path], lock_dir: str, cwd: Path
) -> subprocess.CompletedProcess[str]:
    """``raidsweep ARGS`` with ``RAIDSWEEP_LOCK_DIR=lock_dir`` (a ``str`` holding the
    surrogate escapes of bytes that are not UTF-8 reaches the process as those bytes)."""
    return subprocess.run(
        [str(RAIDSWEEP), *map(str, args)],
        cwd=cwd,
        env=os.environ | {"RAIDSWEEP_LOCK_DIR": lock_dir, "COLUMNS": "400"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _refused(result: subprocess.CompletedProcess[str], *words: str) -> str:
    return refused(result, "RAIDSWEEP_LOCK_DIR", *words)


def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


#: a bad value, built in a test's folder (``T`` stands for it), and what the message says
CASES = {
    "a regular file": ("T/afile", "is not a folder"),
    "a device": ("/dev/null", "/dev/null is not a folder"),
    "under a regular file": ("T/afile/locks", "which is not a folder"),
    "under /proc": ("/proc/self/lk", "cannot be made a folder"),
    "a symbolic link loop": ("T/loop1", "Too many levels of symbolic links"),
    "not UTF-8": ("T/lk\udcff", "is not UTF-8 text"),
    "relative": ("locks", "is not an absolute path"),
    "template syntax": ("T/{{x}}", "holds template syntax"),
    "a control character": ("T/a\nb", "holds the control character"),
    "empty": ("", "RAIDSWEEP_LOCK_DIR is empty"),
}


@pytest.fixture
def place(tmp_path: Path) -> Path:
    """A folder with a regular file ``afile`` and a symbolic link loop ``loop1``/``loop2``."""
    folder = tmp_path / "place"
    folder.mkdir()
    (folder / "afile").write_text("mine")
    (folder / "loop1").symlink_to("loop2")
    (folder / "loop2").symlink_to("loop1")
    return folder


@pytest.mark.parametrize("case", list(CASES))
def test_run_refuses_a_bad_lock_folder_before_it_writes(
    tmp_path: Path, place: Path, case: str
) -> None:
    value, words = CASES[case]
    value = value.replace("T/", f"{place}/")
    spec = tiny_sim_spec(tmp_path, "tiny")
    work = tmp_path / "work"  # the working folder: a relative lock folder would land here
    work.mkdir()
    before = _tree(place)
    store = tmp_path / "store"
    _refused(_raidsweep(["run", spec, "--quiet", "--store", store], value, work), words)
    assert not store.exists()  # no store folder, no .run.lock in it
    assert list(work.iterdir()) == []
    assert _tree(place) == before and (place / "afile").read_text() == "mine"


@pytest.mark.parametrize(
    "args",
    [["run", "--check"], ["plan"], ["teardown"], ["teardown", "--check"]],
    ids=["run --check", "plan", "teardown", "teardown --check"],
)
@pytest.mark.parametrize("case", ["a regular file", "relative", "not UTF-8", "empty"])
def test_the_other_commands_refuse_it_too(
    tmp_path: Path, place: Path, args: list[str], case: str
) -> None:
    value = CASES[case][0].replace("T/", f"{place}/")
    spec = tiny_sim_spec(tmp_path, "tiny")
    work = tmp_path / "work"
    work.mkdir()
    store = tmp_path / "store"
    result = _raidsweep([args[0], spec, *args[1:], "--store", store], value, work)
    _refused(result, CASES[case][1])
    assert not store.exists() and list(work.iterdir()) == []


def test_capture_with_the_tracer_refuses_it(tmp_path: Path, place: Path) -> None:
    """The block tracer's lock lives in the lock folder: ``capture --trace auto`` refuses a
    bad one among its problems, and no capture file is made."""
    with open("/proc/diskstats") as fh:
        devices = [line.split()[2] for line in fh if len(line.split()) > 2]
    if not devices:
        pytest.skip("no block device in /proc/diskstats")
    out = tmp_path / "c.jsonl"
    args = ["capture", "-d", devices[0], "-o", out, "--duration", "2s", "--trace", "auto"]
    _refused(_raidsweep(args, f"{place}/afile", tmp_path), "is not a folder")
    _refused(_raidsweep(args, "locks", tmp_path), "is not an absolute path")
    assert not out.exists() and not (tmp_path / "locks").exists()


def test_a_good_lock_folder_is_made_and_used(tmp_path: Path) -> None:
    """An absolute folder that is not there yet is made, and the sweep's target lock is in it."""
    spec = tiny_sim_spec(tmp_path, "tiny")
    locks = tmp_path / "new" / "locks"
    result = _raidsweep(
        ["run", spec, "--quiet", "--store", tmp_path / "store"], str(locks), tmp_path
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert [p.suffix for p in locks.iterdir()] == [".lock"]


def test_the_value_is_checked_where_it_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """``target_lock_dir`` never hands back a folder from a value it refuses."""
    from sweeper.locking import lock_dir_problem, target_lock_dir

    for value in ("", "locks", "./locks", "/tmp/{{x}}", "/tmp/a\x1bb", "/tmp/lk\udcff"):
        assert lock_dir_problem(value) is not None, value
        monkeypatch.setenv("RAIDSWEEP_LOCK_DIR", value)  # its bytes, where not UTF-8
        with pytest.raises(InputError) as info:
            target_lock_dir()
        assert info.value.source == "RAIDSWEEP_LOCK_DIR"
    monkeypatch.setenv("RAIDSWEEP_LOCK_DIR", "/run/lock/elsewhere")
    assert target_lock_dir() == Path("/run/lock/elsewhere")
