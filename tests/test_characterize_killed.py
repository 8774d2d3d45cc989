"""``characterize`` killed at any moment (SIGKILL injected by strace at its Nth write or Nth
link) leaves no class file that is not whole, and the run after it is not blocked: it writes
every class file, whole, and leaves no file aside (README: "``characterize`` writes its class
files all or none")."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.support.paths import FIXTURES, RAIDSWEEP
from tests.support.strace import killed_at

CAPTURE = FIXTURES / "capture" / "mixed.jsonl"
#: the capture's phases with --min-phase 5s: three class files
ARGS = ("characterize", str(CAPTURE), "--min-phase", "5s")
NAMES = ["mixed_phase1.yaml", "mixed_phase2.yaml", "mixed_phase3.yaml"]


def _run(*args: str, cwd: Path, strace: list[str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [*(strace or []), str(RAIDSWEEP), *args],
        cwd=cwd,
        env=os.environ | {"COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The class files of a run that nothing interrupted."""
    folder = tmp_path_factory.mktemp("whole") / "classes"
    done = _run(*ARGS, "-o", str(folder), cwd=folder.parent)
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(folder)) == NAMES
    return {name: (folder / name).read_bytes() for name in NAMES}


@pytest.mark.parametrize(
    ("syscall", "n"),
    [("write", 1), ("write", 2), ("write", 3), ("link", 1), ("link", 2), ("link", 3)],
)
def test_killed_characterize_leaves_whole_files_and_the_rerun_writes_them(
    tmp_path: Path, whole: dict[str, bytes], syscall: str, n: int
) -> None:
    folder = tmp_path / "classes"
    killed = _run(*ARGS, "-o", str(folder), cwd=tmp_path, strace=killed_at(syscall, n))
    assert killed.returncode in (-9, 137), (killed.returncode, killed.stdout, killed.stderr)
    # what a reader sees: no class file that is not whole (an empty or cut file never shows)
    shown = [n for n in os.listdir(folder) if not n.startswith(".")] if folder.exists() else []
    for name in shown:
        assert (folder / name).read_bytes() == whole[name], name
    # the run after it is not blocked by what the dead run left, and leaves nothing aside
    again = _run(*ARGS, "-o", str(folder), cwd=tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "never overwritten" not in again.stdout + again.stderr
    assert sorted(os.listdir(folder)) == NAMES
    for name in NAMES:
        assert (folder / name).read_bytes() == whole[name], name


def test_a_living_runs_files_aside_are_left_alone(tmp_path: Path, whole: dict[str, bytes]) -> None:
    """Files aside of a run that still runs (this test's pid's parent: alive) are not touched;
    those of a pid that no longer runs are."""
    folder = tmp_path / "classes"
    folder.mkdir()
    living = folder / f".characterize-{os.getppid()}-0123abcd-other_phase1.yaml.tmp"
    living.write_text("being written")
    dead = folder / f".characterize-{_dead_pid()}-0123abcd-mixed_phase1.yaml.tmp"
    dead.write_text("cut sho")
    done = _run(*ARGS, "-o", str(folder), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert living.exists()
    assert not dead.exists()
    assert sorted(n for n in os.listdir(folder) if not n.startswith(".")) == NAMES
    # and once written, a class file is never overwritten
    again = _run(*ARGS, "-o", str(folder), cwd=tmp_path)
    assert again.returncode == 2
    assert "never overwritten" in " ".join(again.stderr.split())
    assert living.exists()


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid
