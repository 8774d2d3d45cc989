"""One file, one sweep, whatever it is called: real ``raidsweep run`` processes and real fio.

While a sweep measures ``target.img``, a sweep of ``hard.img`` (a hard link: one inode) and
a sweep of a loop device attached to ``target.img`` are refused with exit status 2, naming
the first, before they run fio; the loop device is detached after.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.support.cli import finish, start
from tests.support.devices import loop_over
from tests.support.locks import wait_held
from tests.support.specs import local_spec, quick_fio_matrix

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("lock_dir")]


def _spec(tmp_path: Path, name: str, target: Path | str, runtime: str = "2s") -> Path:
    options = {"target": str(target), "allow": [str(target)], "fill": False}
    matrix = quick_fio_matrix(
        "randread", "randwrite", engine="psync", runtime=runtime, working_set="16m"
    )
    return local_spec(tmp_path, name, options, matrix)


def _run(tmp_path: Path, name: str, target: Path | str) -> tuple[int, str]:
    store = tmp_path / f"s-{name}"
    rc, out = finish(start("run", str(_spec(tmp_path, name, target)), "--store", str(store), "-q"))
    assert not (store / name / "runs").exists(), out
    return rc, out


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("losetup") is None, reason="needs root and losetup"
)
def test_a_hard_link_and_a_loop_device_of_a_busy_file_are_refused(
    tmp_path: Path, lock_dir: Path
) -> None:
    target = tmp_path / "target.img"
    with open(target, "wb") as fh:
        fh.truncate(16 * 1024**2)
    hard = tmp_path / "hard.img"
    os.link(target, hard)
    first = start(
        "run", str(_spec(tmp_path, "first", target, "12s")), "--store", str(tmp_path / "s1"), "-q"
    )
    try:
        wait_held(lock_dir, "*.lock", first)
        rc, out = _run(tmp_path, "hard", hard)
        assert rc == 2, out
        assert "storage target local:inode:" in out, out
        assert f"in use by pid {first.pid}" in out and "raidsweep run first" in out, out
        with loop_over(target) as dev:
            rc, out = _run(tmp_path, "loop", dev)
        assert rc == 2, out
        assert f"in use by pid {first.pid}" in out and "raidsweep run first" in out, out
        assert first.poll() is None, "the first sweep was still running"
    finally:
        rc, out = finish(first)  # it runs to its end (12 s a run), or says why it did not
    assert rc == 0, out
