"""A class entry (a shipped class's name or a class file's path) that no file system takes is
a problem named with its place, exit status 2, never a traceback: a name of more than 255
bytes (``OSError: File name too long`` from looking whether the project holds it), a loop of
links, a path through a regular file, a folder that cannot be looked into. Wherever an entry
is resolved: a spec's ``classes``, ``accept --spec``, ``--class``, a sweep's record."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from recommender.classes import class_path, load_class
from sweeper.errors import InputError
from tests.support.cli import finished_tiny, invoke
from tests.support.specs import tiny_sim_spec
from tests.support.sweeps import copy_store

SWEEP = "tiny"
#: a file name of 300 bytes, past the 255 a file system takes
LONG = "a" * 300 + ".yaml"


_run = invoke


@pytest.fixture(scope="module")
def finished(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished tiny sweep on the simulated array: its store, never changed."""
    return finished_tiny(tmp_path_factory.mktemp("class-entries"), SWEEP)


def _loop(folder: Path) -> str:
    (folder / "loop-a.yaml").symlink_to(folder / "loop-b.yaml")
    (folder / "loop-b.yaml").symlink_to(folder / "loop-a.yaml")
    return str(folder / "loop-a.yaml")


def _through_a_file(folder: Path) -> str:
    (folder / "plain").write_text("a file, not a folder\n")
    return str(folder / "plain" / "c.yaml")


#: each entry made in a folder, and what its refusal says
ENTRIES: dict[str, tuple[Callable[[Path], str], str]] = {
    "a file name too long": (lambda _folder: LONG, "File name too long"),
    "a folder name too long": (lambda _folder: "d" * 300 + "/c.yaml", "File name too long"),
    "a loop of links": (_loop, "Too many levels of symbolic links"),
    "a path through a file": (_through_a_file, "Not a directory"),
}


def _entry(which: str, folder: Path) -> tuple[str, str]:
    make, said = ENTRIES[which]
    return make(folder), said


def _spec_with(folder: Path, entry: str) -> Path:
    """The tiny sweep's spec, as ``bad.yaml``, with ``entry`` as its one class."""
    spec = yaml.safe_load(tiny_sim_spec(folder, "bad").read_text())
    spec["classes"] = [entry]
    path = folder / "bad.yaml"
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.mark.parametrize("which", ENTRIES)
def test_a_specs_class_entry_no_file_system_takes_is_named(tmp_path: Path, which: str) -> None:
    entry, said = _entry(which, tmp_path)
    spec = _spec_with(tmp_path, entry)
    code, out = _run("run", spec, "--check", "--store", tmp_path / "store")
    assert code == 2, out
    assert f"{spec}: 1 problem(s)" in out and "classes[0]:" in out and said in out, out
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize("which", ENTRIES)
def test_accept_spec_with_such_a_class_entry_is_named(
    finished: Path, tmp_path: Path, which: str
) -> None:
    entry, said = _entry(which, tmp_path)
    spec = _spec_with(tmp_path, entry)
    code, out = _run("accept", SWEEP, "--store", finished, "--spec", spec)
    assert code == 2, out
    assert f"{spec}: 1 problem(s)" in out and "classes[0]:" in out and said in out, out


@pytest.mark.parametrize("command", ["recommend", "report"])
@pytest.mark.parametrize("which", ENTRIES)
def test_such_a_class_option_is_named(
    finished: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str, command: str
) -> None:
    monkeypatch.chdir(tmp_path)  # --class is read from the working folder
    entry, said = _entry(which, tmp_path)
    store = copy_store(finished, tmp_path)
    code, out = _run(command, SWEEP, "--store", store, "--class", entry)
    assert code == 2, out
    assert "cannot be read" in out and said in out, out
    assert not (store / SWEEP / "report.html").exists()


@pytest.mark.parametrize("which", ENTRIES)
@pytest.mark.parametrize("command", ["recommend", "report", "compare", "accept"])
def test_such_a_class_entry_in_a_sweeps_record_is_named(
    finished: Path, tmp_path: Path, which: str, command: str
) -> None:
    entry, said = _entry(which, tmp_path)
    store = copy_store(finished, tmp_path)
    path = store / SWEEP / "sweep.json"
    record = json.loads(path.read_text())
    record["spec"]["classes"] = [entry]
    path.write_text(json.dumps(record))
    args = {"compare": [SWEEP, SWEEP]}.get(command, [SWEEP])
    code, out = _run(command, *args, "--store", store)
    assert code == 2, out
    assert f"{path}: 1 problem(s) spec.classes[0]:" in out and said in out, out
    assert not (store / SWEEP / "report.html").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root looks into any folder")
def test_a_class_entry_in_a_folder_that_cannot_be_looked_into_is_named(tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    closed.mkdir()
    (closed / "c.yaml").write_text("name: c\n")
    closed.chmod(0)
    try:
        spec = _spec_with(tmp_path, str(closed / "c.yaml"))
        code, out = _run("run", spec, "--check", "--store", tmp_path / "store")
        assert code == 2 and "Permission denied" in out, out
    finally:
        closed.chmod(0o700)


def test_looking_up_a_long_entry_raises_no_os_error() -> None:
    """``class_path`` looked whether the project holds the file with ``Path.exists``, which
    raises ENAMETOOLONG; the reading names it instead."""
    assert class_path(LONG) == Path(LONG)
    with pytest.raises(InputError, match="File name too long"):
        load_class(LONG)
