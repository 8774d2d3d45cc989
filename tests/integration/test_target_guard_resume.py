"""The scratch file a sweep made is the sweep's own on a resume, without the allow-list: the
local role's module (real Ansible) marks the file it makes as raidsweep's, and a sweep
killed with SIGKILL once its file exists resumes on it, its ``--check`` saying so, with no
``allow`` in the spec. A plain copy of that file is not taken for it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from sweeper.store import ParquetStore
from sweeper.target import SCRATCH_XATTR, not_scratch_reason, scratch_mark, target_problems
from tests.integration.test_local_target_module import _module
from tests.support.cli import cli, finish, start
from tests.support.specs import local_spec, quick_fio_matrix

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("lock_dir")]
SIZE = 16 * 1024**2


def test_the_local_module_marks_the_file_it_makes(tmp_path: Path) -> None:
    target = tmp_path / "target.img"
    made = _module(f"path={target}", f"file_size={SIZE}")
    assert made["status"] == "CHANGED", made
    st = target.stat()
    assert st.st_size == SIZE and st.st_blocks == 0
    assert os.getxattr(target, SCRATCH_XATTR) == scratch_mark(st.st_ino)
    assert not_scratch_reason(str(target)) is None
    assert target_problems(str(target), allow=[], file_size=SIZE) == []
    assert os.listdir(tmp_path) == ["target.img"]


def test_a_killed_sweep_resumes_on_the_file_it_made_without_allow(tmp_path: Path) -> None:
    target = tmp_path / "data" / "target.img"
    target.parent.mkdir()
    options = {"target": str(target), "file_size": "16m", "fill": False}
    matrix = quick_fio_matrix("randread", "randwrite", engine="psync", runtime="3s")
    spec = local_spec(tmp_path, "resumed", options, matrix | {"working_set": "16m"})
    store = tmp_path / "s"
    proc = start("run", str(spec), "--store", str(store), "-q")
    deadline = time.monotonic() + 180
    while not target.exists():
        assert proc.poll() is None, finish(proc)
        assert time.monotonic() < deadline, "the sweep never made its file"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    assert not_scratch_reason(str(target)) is None  # made, and marked, before it had a name
    check = cli("run", spec, "--store", store, "-q", "--check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "creates" not in check.stdout and f"fio writes to {target} (file, 16m)" in " ".join(
        check.stdout.split()
    )
    rc, out = finish(start("run", str(spec), "--store", str(store), "-q"))
    assert rc == 0, out
    runs = ParquetStore(store).runs("resumed", include_failed=True)
    assert len(runs) == 2 and set(runs["status"]) == {"ok"}
    # A copy of that file, marks and all, is not the file the sweep made.
    copy = tmp_path / "data" / "copy.img"
    subprocess.run(["cp", "-a", str(target), str(copy)], check=True)
    [(key, message)] = target_problems(str(copy), allow=[], file_size=SIZE)
    assert key == "allow" and "it is a copy" in message
