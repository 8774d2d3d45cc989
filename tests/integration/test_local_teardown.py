"""``raidsweep teardown`` of a local sweep removes what the sweep made and nothing else: the
scratch file it created (file_size, its mark naming its inode), never a file or device the
user named; ``--check`` says so and changes nothing. Real fio, real Ansible."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import cli
from tests.support.files import digest
from tests.support.specs import local_spec, quick_fio_matrix

MATRIX = quick_fio_matrix("write", block_sizes=["64k"], runtime="1s", working_set="8m")


def test_teardown_removes_the_scratch_file_raidsweep_made(tmp_path: Path) -> None:
    target = tmp_path / "scratch.img"
    options = {"target": str(target), "file_size": 16 * 1024**2}
    spec = local_spec(tmp_path, "scratch", options, MATRIX)
    store = tmp_path / "store"
    assert cli("run", spec, "--store", store, "-q").returncode == 0
    assert target.exists()
    checked = cli("teardown", spec, "--store", store, "--check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert target.exists()  # --check changes nothing
    done = cli("teardown", spec, "--store", store)
    assert done.returncode == 0, done.stdout + done.stderr
    assert not target.exists()


def test_teardown_leaves_a_file_the_user_named(tmp_path: Path) -> None:
    target = tmp_path / "theirs.img"
    with open(target, "wb") as fh:
        fh.truncate(16 * 1024**2)
    options = {"target": str(target), "allow": [str(target)]}
    spec = local_spec(tmp_path, "theirs", options, MATRIX)
    store = tmp_path / "store"
    assert cli("run", spec, "--store", store, "-q").returncode == 0
    before = digest(target)
    done = cli("teardown", spec, "--store", store)
    assert done.returncode == 0, done.stdout + done.stderr
    assert target.exists() and digest(target) == before
    assert "nothing to remove" in done.stdout
