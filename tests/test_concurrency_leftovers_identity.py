"""A local target file that does not exist yet is locked by its folder's identity (device and
inode) and its name, not by its path alone: two sweeps that name one file yet to be made by
two paths (through a bind mount of its folder, or a symlink to the folder) conflict, before
the file is made and after (the first sweep made it; the second names it by another path).

Real folders, a real bind mount (root and mount(8); unmounted after), real ``flock``s through
the local platform's own identity (``LocalPlatform.target_identity``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sweeper.locking import hold, holders, lock_record, target_locks
from tests.support.devices import bind_mount
from tests.support.locks import local_identity

MOUNTS = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("mount") is None,
    reason="a bind mount needs root and mount(8)",
)


def _conflict(first: set[str], second: set[str], tmp_path: Path, monkeypatch) -> bool:
    """Whether a sweep on ``second`` is refused while one on ``first`` holds its locks."""
    monkeypatch.setenv("RAIDSWEEP_LOCK_DIR", str(tmp_path / "locks"))
    with hold(target_locks(sorted(first)), lock_record("raidsweep run first", sweep="first")):
        return bool(holders(target_locks(sorted(second))))


def _make(path: Path) -> None:
    with open(path, "wb") as fh:
        fh.truncate(1024**2)


def _both_ways(tmp_path: Path, monkeypatch, real: Path, other: Path) -> None:
    """A file of ``real`` yet to be made, named through ``real`` and through ``other`` (the
    same folder by another path): one lock before it is made, and after (made by the first
    sweep, named by the second through the other path); another name is other storage."""
    first = local_identity(real / "t.img", tmp_path / "a")
    second = local_identity(other / "t.img", tmp_path / "b")
    assert first & second, (first, second)
    assert _conflict(first, second, tmp_path, monkeypatch)
    assert _conflict(second, first, tmp_path, monkeypatch)
    # the first sweep made the file under its lock; the second names it now it exists
    _make(real / "t.img")
    after = local_identity(other / "t.img", tmp_path / "c")
    assert _conflict(first, after, tmp_path, monkeypatch), (first, after)
    assert _conflict(second, local_identity(real / "t.img", tmp_path / "d"), tmp_path, monkeypatch)
    # another file of the same folder, made or not, is other storage
    assert not _conflict(
        first, local_identity(other / "u.img", tmp_path / "e"), tmp_path, monkeypatch
    )
    _make(real / "u.img")
    assert not _conflict(
        first, local_identity(other / "u.img", tmp_path / "f"), tmp_path, monkeypatch
    )


def test_a_file_yet_to_be_made_in_a_symlinked_folder_is_one_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """(A symlink is followed by the real path too; the folder's identity names it alike.)"""
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    _both_ways(tmp_path, monkeypatch, real, link)


@MOUNTS
def test_a_file_yet_to_be_made_in_a_bind_mounted_folder_is_one_lock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    with bind_mount(real, tmp_path / "bound") as bound:
        assert os.path.realpath(bound / "t.img") != str(real / "t.img")  # a path cannot tell
        _both_ways(tmp_path, monkeypatch, real, bound)


def test_a_folder_that_is_not_there_leaves_the_path(tmp_path: Path) -> None:
    """A target whose folder does not exist (the preflight refuses it) is named by its path
    alone, and naming it never raises."""
    ids = local_identity(tmp_path / "none" / "t.img", tmp_path / "a")
    assert ids == {f"local:path:{tmp_path / 'none' / 't.img'}"}
