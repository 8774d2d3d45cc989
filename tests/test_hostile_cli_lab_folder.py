"""``raidsweep lab``'s folder (``--dir``, and the ``lab/vm`` folder under ``RAIDSWEEP_CACHE``)
is checked before any lab command acts: a path through a file, a name no file system takes,
template syntax, control characters, an empty or non-UTF-8 name are refused with exit status
2 naming the option or the variable, never a traceback, nothing made. ``lab down`` through a
file once ended in a ``NotADirectoryError`` traceback, and ``--dir`` was printed and written
into the lab's inventory as given."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.cli import cli


def _listing(root: Path) -> list[tuple[str, int]]:
    return sorted((str(p.relative_to(root)), p.stat().st_size) for p in root.rglob("*"))


@pytest.mark.parametrize(
    ("folder", "words"),
    [
        ("afile/vm", "lies in"),
        ("afile", "is not a folder"),
        ("x" * 300, "longer than a file name"),
        ("vm\x1b[31m", "control character"),
        ("{{ lookup('pipe', 'touch CANARY') }}", "template syntax"),
        ("", "is empty"),
        (os.fsdecode(b"vm\xff"), "not UTF-8"),
    ],
)
@pytest.mark.parametrize("command", ["down", "status", "up"])
def test_a_lab_folder_that_cannot_be_one_is_refused(
    tmp_path: Path, folder: str, words: str, command: str
) -> None:
    (tmp_path / "afile").write_text("mine\n")
    before = _listing(tmp_path)
    # up's --disks 0 would be refused after --dir: no image is ever built here
    shape = ["--disks", "0"] if command == "up" else []
    env = {"RAIDSWEEP_CACHE": str(tmp_path / "cache")}
    done = cli("lab", command, "--dir", folder, *shape, env=env, cwd=tmp_path, columns=400)
    said = " ".join(done.stderr.split())
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--dir" in said and words in said, said
    assert "Traceback" not in said and "\x1b[31m" not in done.stderr
    assert _listing(tmp_path) == before


@pytest.mark.parametrize("cache", ["afile", "afile/cache", "labfile"])
def test_a_cache_whose_lab_folder_cannot_be_one_is_refused(tmp_path: Path, cache: str) -> None:
    (tmp_path / "afile").write_text("mine\n")
    (tmp_path / "labfile").mkdir()
    (tmp_path / "labfile" / "lab").write_text("mine\n")  # where the lab's folder would be
    before = _listing(tmp_path)
    env = {"RAIDSWEEP_CACHE": str(tmp_path / cache)}
    for command in ("down", "status"):
        done = cli("lab", command, env=env, cwd=tmp_path, columns=400)
        said = " ".join(done.stderr.split())
        assert done.returncode == 2, done.stdout + done.stderr
        assert "RAIDSWEEP_CACHE" in said and "not a folder" in said, said
        assert "Traceback" not in said
    assert _listing(tmp_path) == before


def test_a_lab_folder_that_can_be_one_is_taken(tmp_path: Path) -> None:
    env = {"RAIDSWEEP_CACHE": str(tmp_path / "cache")}
    done = cli("lab", "status", "--dir", "lab vm #1", env=env, cwd=tmp_path, columns=400)
    assert done.returncode == 0, done.stderr
    assert f"lab in {tmp_path / 'lab vm #1'}: stopped" in done.stdout
    done = cli("lab", "down", env=env, cwd=tmp_path, columns=400)
    assert done.returncode == 0 and "no lab running" in done.stdout, done.stderr
    assert list(tmp_path.iterdir()) == []
