"""An existing file is raidsweep's scratch file only if raidsweep made it; any other needs the
allow-list, and no file is written while it backs a loop device or carries a filesystem.

Real files with real extended attributes; the mark is put on the inode before the file has
a name, so a crash (a real SIGKILL here) never leaves an unmarked file at the target's path.
Every refusal is checked for its message and for the file (its hash) and its folder (its
names) being as they were. The loop devices (root, util-linux) are detached after.
"""

from __future__ import annotations

import errno
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from sweeper import target as target_module
from sweeper.target import (
    SCRATCH_XATTR,
    not_scratch_reason,
    scratch_mark,
    target_problems,
)
from tests.support import devices
from tests.support.ansible_modules import load_module
from tests.support.files import digest
from tests.support.paths import PLAYBOOKS, ROOT

#: the code the local role's module makes its scratch file with (no Ansible in it)
SCRATCH_FILE = PLAYBOOKS / "module_utils" / "raidsweep" / "scratch_file.py"
made_by = load_module(SCRATCH_FILE)
create_scratch_file = made_by.create_scratch_file

MIB = 1024**2
SIZE = 16 * MIB
ROOT_ONLY = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("losetup") is None,
    reason="needs root and losetup",
)
MKFS = pytest.mark.skipif(shutil.which("mkfs.ext4") is None, reason="needs mkfs.ext4")


def _state(path: Path) -> tuple[str, list[str], dict[str, bytes]]:
    """What a refusal must leave as it was: the file's bytes, its folder's names, its
    extended attributes."""
    attrs = {name: os.getxattr(path, name) for name in os.listxattr(path)}
    return digest(path), sorted(os.listdir(path.parent)), attrs


def _random_file(path: Path, size: int = SIZE) -> Path:
    path.write_bytes(os.urandom(size))
    return path


def _zero_file(path: Path, size: int = SIZE) -> Path:
    with open(path, "wb") as fh:
        fh.truncate(size)
    return path


def _problems(path: Path, allow: list[Path] = (), **more: object) -> list[tuple[str, str]]:
    return target_problems(str(path), allow=[str(a) for a in allow], file_size=SIZE, **more)


def test_a_file_raidsweep_made_is_its_scratch_file(tmp_path: Path) -> None:
    target = tmp_path / "target.img"
    create_scratch_file(str(target), SIZE)
    st = target.stat()
    assert st.st_size == SIZE and st.st_blocks == 0  # sparse: the fill writes it
    assert os.getxattr(target, SCRATCH_XATTR) == scratch_mark(st.st_ino)
    assert os.listdir(tmp_path) == ["target.img"]  # nothing else made beside it
    assert not_scratch_reason(str(target)) is None
    assert _problems(target) == []
    # By another name of the same file (a hard link, a symlink) it is still raidsweep's.
    os.link(target, tmp_path / "hard.img")
    (tmp_path / "link.img").symlink_to(target)
    assert _problems(tmp_path / "hard.img") == [] and _problems(tmp_path / "link.img") == []


@pytest.mark.parametrize("contents", ["random", "zeros"])
def test_a_file_of_the_asked_size_raidsweep_did_not_make_is_refused(
    tmp_path: Path, contents: str
) -> None:
    target = (_random_file if contents == "random" else _zero_file)(tmp_path / "data.img")
    before = _state(target)
    problems = _problems(target)
    assert problems == [
        (
            "allow",
            f"{target} exists and raidsweep did not make it (it lacks the "
            f"{SCRATCH_XATTR} mark raidsweep puts on the files it makes); fio overwrites it, "
            "so name it under platform_options.allow to confirm, or remove it to have "
            "raidsweep make its own",
        )
    ]
    assert _state(target) == before
    # Named in the allow-list, it is the user's to give.
    assert _problems(target, [target]) == []
    assert _state(target) == before


def test_a_copy_of_a_scratch_file_is_not_the_scratch_file(tmp_path: Path) -> None:
    made = tmp_path / "made.img"
    create_scratch_file(str(made), SIZE)
    copy = tmp_path / "copy.img"
    subprocess.run(["cp", "-a", str(made), str(copy)], check=True)
    assert os.getxattr(copy, SCRATCH_XATTR) == os.getxattr(made, SCRATCH_XATTR)  # cp -a kept it
    before = _state(copy)
    [(key, message)] = _problems(copy)
    assert key == "allow"
    made_inode, copy_inode = made.stat().st_ino, copy.stat().st_ino
    assert f"mark names inode {made_inode}, not its own inode {copy_inode}: it is a copy" in message
    assert "platform_options.allow" in message
    assert _state(copy) == before


@pytest.mark.parametrize(
    ("mark", "reason"),
    [
        (b"", "attribute is not a mark raidsweep writes"),
        (b"\xff\xfe", "attribute is not a mark raidsweep writes"),
        (b"raidsweep scratch file, inode 1x", "attribute is not a mark raidsweep writes"),
        (b"raidsweep scratch file, inode 1", "mark names inode 1, not its own inode"),
    ],
)
def test_a_mark_that_does_not_name_the_file_is_refused(
    tmp_path: Path, mark: bytes, reason: str
) -> None:
    target = _random_file(tmp_path / "t.img")
    os.setxattr(target, SCRATCH_XATTR, mark)
    before = _state(target)
    [(key, message)] = _problems(target)
    assert key == "allow" and "raidsweep did not make it" in message and reason in message
    assert _state(target) == before


def test_a_scratch_file_of_another_size_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "t.img"
    create_scratch_file(str(target), 2 * SIZE)
    before = _state(target)
    assert _problems(target) == [
        (
            "file_size",
            f"{target} exists with {2 * SIZE} bytes, not the {SIZE} asked for; remove it, or "
            "name it under platform_options.allow to use it as it is",
        )
    ]
    assert _state(target) == before


@MKFS
@pytest.mark.parametrize("whose", ["allowed", "raidsweep's"])
def test_a_file_with_a_filesystem_is_refused_unless_the_spec_lets_it_go(
    tmp_path: Path, whose: str
) -> None:
    target = tmp_path / "fs.img"
    if whose == "allowed":
        _zero_file(target)
    else:
        create_scratch_file(str(target), SIZE)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(target)], check=True)
    allow = [target] if whose == "allowed" else []
    before = _state(target)
    assert _problems(target, allow) == [
        (
            "target",
            f"{target} carries a ext4 signature; set overwrite_signatures: true to allow fio "
            "to destroy it",
        )
    ]
    assert _state(target) == before
    assert _problems(target, allow, overwrite_signatures=True) == []


def test_creating_never_takes_a_name_that_is_there(tmp_path: Path) -> None:
    theirs = _random_file(tmp_path / "theirs.img")
    dangling = tmp_path / "dangling.img"
    dangling.symlink_to(tmp_path / "nowhere.img")
    before = _state(theirs)
    for path in (theirs, dangling):
        with pytest.raises(FileExistsError) as info:
            create_scratch_file(str(path), SIZE)
        assert info.value.filename == str(path)
    assert _state(theirs) == before and not (tmp_path / "nowhere.img").exists()
    assert sorted(os.listdir(tmp_path)) == ["dangling.img", "theirs.img"]


CRASH = """
import importlib.util, os, signal, sys
where, tmpfile, path = sys.argv[1], sys.argv[2] == "1", sys.argv[3]
spec = importlib.util.spec_from_file_location("scratch_file", sys.argv[5])
target = importlib.util.module_from_spec(spec)
spec.loader.exec_module(target)
if not tmpfile:  # a filesystem without O_TMPFILE: the hidden name beside the target
    real_open = os.open
    def no_tmpfile(p, flags, *a, **k):
        if flags & os.O_TMPFILE == os.O_TMPFILE:
            raise OSError(95, "no O_TMPFILE here")
        return real_open(p, flags, *a, **k)
    os.open = no_tmpfile
def die(*a, **k):
    os.kill(os.getpid(), signal.SIGKILL)
if where == "before-name":
    os.link = die
else:  # after the name: at the folder's sync, the last step
    real_fsync, calls = os.fsync, []
    def fsync(fd):
        calls.append(fd)
        if len(calls) == 2:
            die()
        real_fsync(fd)
    os.fsync = fsync
target.create_scratch_file(path, int(sys.argv[4]))
"""


@pytest.mark.parametrize("tmpfile", [True, False], ids=["O_TMPFILE", "hidden-name"])
@pytest.mark.parametrize("where", ["before-name", "after-name"])
def test_a_crash_leaves_no_file_or_a_marked_one(tmp_path: Path, where: str, tmpfile: bool) -> None:
    target = tmp_path / "target.img"
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            CRASH,
            where,
            "1" if tmpfile else "0",
            str(target),
            str(SIZE),
            str(SCRATCH_FILE),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == -9, proc.stderr  # killed, as by a crash
    if where == "before-name":
        assert not os.path.lexists(target)
        # No file at the target's path; a spec naming it again has raidsweep make its own.
        assert _problems(target) == []
        # Without O_TMPFILE the file killed before its name is left under a hidden name
        # beside it (raidsweep's own, marked, never at the target's path); with it, nothing.
        left = [n for n in os.listdir(tmp_path) if n != "target.img"]
        assert len(left) == (0 if tmpfile else 1), left
        if left:
            assert left[0].startswith(".target.img.raidsweep-")
            assert not_scratch_reason(str(tmp_path / left[0])) is None
    else:
        assert _problems(target) == []  # at its path only with its mark: a resume uses it
        assert os.getxattr(target, SCRATCH_XATTR) == scratch_mark(target.stat().st_ino)


def test_a_folder_whose_filesystem_keeps_no_marks_is_refused_before_a_file_is_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_xattrs(*args: object, **kwargs: object) -> None:
        raise OSError(errno.ENOTSUP, "Operation not supported")

    monkeypatch.setattr(os, "setxattr", no_xattrs)
    target = tmp_path / "target.img"
    [(key, message)] = _problems(target)
    assert key == "target"
    assert "keeps no extended attributes" in message
    assert "create the file yourself and name it under platform_options.allow" in message
    assert os.listdir(tmp_path) == []  # the probe is gone again
    with pytest.raises(OSError, match="keeps no extended attributes"):
        create_scratch_file(str(target), SIZE)
    assert os.listdir(tmp_path) == []


def test_an_existing_file_where_marks_cannot_be_read_is_not_raidsweeps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = _random_file(tmp_path / "t.img")

    def no_xattrs(*args: object, **kwargs: object) -> bytes:
        raise OSError(errno.ENOTSUP, "Operation not supported")

    monkeypatch.setattr(os, "getxattr", no_xattrs)
    assert "keeps no extended attributes" in not_scratch_reason(str(target))
    [(key, _)] = _problems(target)
    assert key == "allow"


def test_the_mark_is_read_through_this_module(tmp_path: Path) -> None:
    """The module's own names are what the local role's module writes (a contract)."""
    assert target_module.SCRATCH_XATTR == "user.raidsweep.scratch"
    assert scratch_mark(42) == b"raidsweep scratch file, inode 42"


@ROOT_ONLY
@pytest.mark.parametrize("whose", ["allowed", "raidsweep's"])
def test_a_file_behind_a_loop_device_is_refused_by_any_name(tmp_path: Path, whose: str) -> None:
    target = tmp_path / "target.img"
    if whose == "allowed":
        _random_file(target)
    else:
        create_scratch_file(str(target), SIZE)
    hard = tmp_path / "hard.img"
    os.link(target, hard)
    allow = [target, hard] if whose == "allowed" else []
    # another loop device beside it: no matter
    with devices.loop_device(tmp_path / "other.img", 4), devices.loop_over(target) as dev:
        before = _state(target)
        for name in (target, hard):
            assert _problems(name, allow) == [
                (
                    "target",
                    f"{name} is the backing file of loop device {dev}; fio must not write "
                    f"under it: detach it (losetup -d {dev}) once nothing uses it",
                )
            ]
        assert _state(target) == before
    assert _problems(target, allow) == []  # detached, it may be written again


def test_the_module_marks_files_as_the_checks_read_marks() -> None:
    # the maker (the local role's module) and the reader (sweeper.target) spell the mark alike
    assert made_by.SCRATCH_XATTR == SCRATCH_XATTR
    assert made_by.scratch_mark(1234567) == scratch_mark(1234567)
