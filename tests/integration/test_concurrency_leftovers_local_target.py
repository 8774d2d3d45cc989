"""Two ``raidsweep run`` of the local platform (real fio) naming one target file that does not
exist yet by two paths, its folder and a bind mount of that folder: the second exits 2 naming
the first, and only the first measures it (root and mount(8); unmounted after)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.support.cli import finish, start
from tests.support.devices import bind_mount
from tests.support.locks import wait_held
from tests.support.specs import local_spec, quick_fio_matrix

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(
        os.geteuid() != 0 or shutil.which("mount") is None,
        reason="a bind mount needs root and mount(8)",
    ),
]


def _spec(folder: Path, name: str, target: Path, runtime: str) -> Path:
    # allowed: the first sweep may have made the file by the time the second's spec is read,
    # and then only the lock tells the two apart
    options = {"target": str(target), "file_size": "16m", "fill": False, "allow": [str(target)]}
    matrix = quick_fio_matrix(
        "randread", "randwrite", engine="psync", runtime=runtime, working_set="16m"
    )
    return local_spec(folder, name, options, matrix)


def test_a_file_yet_to_be_made_through_a_bind_mount_is_one_target(
    tmp_path: Path, lock_dir: Path
) -> None:
    real = tmp_path / "real"
    real.mkdir()
    target = real / "t.img"
    with bind_mount(real, tmp_path / "bound") as bound:
        first = start("run", _spec(tmp_path, "first", target, "10s"), "--store", tmp_path / "s1")
        wait_held(lock_dir, "*.lock", first)
        store = tmp_path / "s2"
        second = start("run", _spec(tmp_path, "second", bound / "t.img", "2s"), "--store", store)
        rc, out = finish(second)
        assert rc == 2, out
        assert f"in use by pid {first.pid}" in out and "raidsweep run first" in out, out
        assert "Traceback" not in out, out
        assert not (store / "second" / "runs").exists()
        assert first.poll() is None, "the first sweep was still running"
        rc, out = finish(first)
        assert rc == 0, out
