"""``characterize -o`` and ``capture -o`` refuse an output that cannot be written as ``report
-o`` does: exit status 2 naming the option, the path and the problem, no traceback, and
nothing written (no folder, no file). The class files are written all or none."""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sweeper.cli import app
from tests.support.cli import refused
from tests.support.paths import FIXTURES, RAIDSWEEP

CAPTURE = FIXTURES / "capture" / "mixed.jsonl"


def _raidsweep(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [os.fsencode(str(RAIDSWEEP)), *(os.fsencode(str(a)) for a in args)],
        cwd=cwd,
        env=os.environ | {"COLUMNS": "400"},
        capture_output=True,
        text=True,
        errors="backslashreplace",
        timeout=120,
        check=False,
    )


_refused = refused


def _tree(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.fixture
def place(tmp_path: Path) -> Path:
    """A capture ``cap.jsonl`` (a regular file), and a symbolic link loop ``loop1``."""
    shutil.copy(CAPTURE, tmp_path / "cap.jsonl")
    (tmp_path / "loop1").symlink_to("loop2")
    (tmp_path / "loop2").symlink_to("loop1")
    return tmp_path


LONG = "b" * 300

#: -o (``T`` is the test's folder) and what the message says besides the option and path
CASES = {
    "under a regular file": ("T/cap.jsonl/classes", "which is not a folder"),
    "a symbolic link loop": ("T/loop1", "Too many levels of symbolic links"),
    "a name too long": (f"T/{LONG}", "is longer than a file name can be"),
    "a device": ("/dev/null", "is not a folder"),
    "under /proc": ("/proc/x", "cannot be written"),
    "under /sys": ("/sys/x", "cannot be written"),
    "not UTF-8": ("T/d\udcff", "is not UTF-8 text"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_characterize_refuses_an_output_it_cannot_write(place: Path, case: str) -> None:
    given, words = CASES[case]
    if given.startswith("/sys") and not Path("/sys").is_dir():
        pytest.skip("no /sys here")
    out = given.replace("T/", f"{place}/")
    before = _tree(place)
    result = _raidsweep("characterize", "cap.jsonl", "-o", out, "--min-phase", "8s", cwd=place)
    shown = out.replace("\udcff", "\\xff")
    _refused(result, "--output", shown[:60], words)
    assert _tree(place) == before
    if out.startswith(("/proc/", "/sys/")):
        assert not Path(out).exists()


def test_the_default_folder_of_a_capture_named_in_bytes(place: Path) -> None:
    """A capture whose name is not UTF-8: its default folder (CAPTURE-classes) is refused
    (a spec could not name it); with -o the classes are written, the capture named in them
    with its byte shown as \\xff."""
    capture = place / "c\udcff.jsonl"
    shutil.copy(CAPTURE, capture)
    before = _tree(place)
    result = _raidsweep("characterize", capture, "--min-phase", "8s", cwd=place)
    _refused(result, "--output", "c\\xff-classes", "is not UTF-8 text")
    assert _tree(place) == before
    result = _raidsweep("characterize", capture, "-o", "out", "--min-phase", "8s", cwd=place)
    assert result.returncode == 0, result.stdout + result.stderr
    files = sorted((place / "out").iterdir())
    assert files and all("capture c\\xff.jsonl" in f.read_text() for f in files)


def test_the_class_files_are_written_all_or_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A class file that cannot be written (a full disk) after the first: the first is
    removed, and the folders made for them too; exit 2 naming the file."""
    import sweeper.cli.characterize as module

    opened: list[str] = []

    def full(path: Path, *args: object, **kwargs: object) -> object:
        opened.append(str(path))
        if len(opened) > 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
        return open(path, *args, **kwargs)  # noqa: SIM115 (the caller closes it)

    monkeypatch.setattr(module, "open", full, raising=False)
    out = tmp_path / "a" / "b" / "classes"
    result = CliRunner().invoke(
        app, ["characterize", str(CAPTURE), "-o", str(out), "--min-phase", "8s"]
    )
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    flat = " ".join(result.output.split())
    assert f"{opened[1]}: cannot be written (No space left on device)" in flat, flat
    assert "--output" in flat
    assert list(tmp_path.iterdir()) == []


CAPTURE_CASES = {
    "under a regular file": ("T/cap.jsonl/c.jsonl", "is not a folder"),
    "a symbolic link loop": ("T/loop1/c.jsonl", "Too many levels of symbolic links"),
    "a name too long": (f"T/{LONG}.jsonl", "is longer than a file name can be"),
    "template syntax": ("T/{{x}}.jsonl", "holds template syntax"),
    "a control character": ("T/a\nb.jsonl", "holds the control character"),
}


@pytest.mark.parametrize("case", list(CAPTURE_CASES))
def test_capture_refuses_an_output_it_cannot_write(place: Path, case: str) -> None:
    with open("/proc/diskstats") as fh:
        devices = [line.split()[2] for line in fh if len(line.split()) > 2]
    if not devices:
        pytest.skip("no block device in /proc/diskstats")
    given, words = CAPTURE_CASES[case]
    out = given.replace("T/", f"{place}/")
    before = _tree(place)
    result = _raidsweep("capture", "-d", devices[0], "-o", out, "--duration", "2s", cwd=place)
    _refused(result, "--output", words)
    assert _tree(place) == before
