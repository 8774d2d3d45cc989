"""A report killed at any moment (SIGKILL injected by strace at its Nth rename) over an older
report leaves, as far as a reader can tell, the older set whole or the new set whole, never
a mix (README: "all of them or none"); the next report into the place finishes or undoes
what the killed one left and leaves no file aside.

A reader tells by the journal (``.report-journal-*.json``): none there, the files in place are
the older set, whole; one there, the new set is committed, and ``settle_reports`` (what the
next report does first) puts the rest of it in place."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from recommender import report_files as report
from tests.support.paths import RAIDSWEEP, ROOT
from tests.support.reports import NAMES, set_aside
from tests.support.strace import killed_at

#: the renames of one report: its journal, then the six files
RENAMES = len(NAMES) + 1


def _set(tag: str) -> dict[str, bytes]:
    """A report's six files, each saying which set it belongs to."""
    return {
        name: (f"# raidsweep report: {tag}\n" if name.endswith(".md") else f"{tag} {name}\n")
        .encode()
        .ljust(4096 if name.endswith(".html") else 64, b".")
        for name in NAMES
    }


OLD, NEW = _set("old"), _set("new")

WRITER = """
import sys
from pathlib import Path
from recommender.report_files import write_all
folder = Path(sys.argv[1])
tag = sys.argv[2]
names = sys.argv[3:]
write_all({folder / n: bytes.fromhex(h) for n, h in zip(names[::2], names[1::2])})
"""


def _write_killed(folder: Path, files: dict[str, bytes], n: int) -> subprocess.CompletedProcess:
    pairs = [x for name, data in files.items() for x in (name, data.hex())]
    return subprocess.run(
        [*killed_at("rename", n), sys.executable, "-c", WRITER, str(folder), "new", *pairs],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def _which(folder: Path) -> dict[str, str]:
    """Each file of the report: 'old', 'new', or what else it is."""
    seen = {}
    for name in NAMES:
        data = (folder / name).read_bytes() if (folder / name).exists() else None
        seen[name] = "old" if data == OLD[name] else "new" if data == NEW[name] else "other"
    return seen


def _reader_sees(folder: Path) -> str:
    """What a reader of the folder takes the report for: the set in place, or the new one
    once a journal says it is committed (and ``settle_reports`` finished it)."""
    journals = [n for n in os.listdir(folder) if n.startswith(".report-journal-")]
    if journals:
        report.settle_reports(folder)
        assert not set_aside(folder), set_aside(folder)
    seen = set(_which(folder).values())
    assert len(seen) == 1, _which(folder)
    return seen.pop()


@pytest.mark.parametrize("n", range(1, RENAMES + 1))
def test_a_report_killed_at_any_rename_is_the_old_set_or_the_new(
    older_report: Path, n: int
) -> None:
    folder = older_report
    killed = _write_killed(folder, NEW, n)
    assert killed.returncode in (-9, 137), (killed.returncode, killed.stderr)
    # with no journal, the set in place is the older one, whole; a journal: the new, whole
    assert _reader_sees(folder) == ("old" if n == 1 else "new")
    # the next report writes its set whole and leaves nothing aside
    newer = _set("newer")
    report.write_all({folder / name: data for name, data in newer.items()})
    assert {name: (folder / name).read_bytes() for name in NAMES} == newer
    assert set_aside(folder) == []


@pytest.mark.parametrize("n", [2, 4, RENAMES])
def test_the_next_report_finishes_a_killed_ones_renames_first(older_report: Path, n: int) -> None:
    """The next report, into the same place, finds the journal, completes the renames (each
    file was on disk before the journal was), then writes its own set."""
    folder = older_report
    killed = _write_killed(folder, NEW, n)
    assert killed.returncode in (-9, 137), (killed.returncode, killed.stderr)
    assert "other" not in _which(folder).values()
    report.settle_reports(folder)
    assert set(_which(folder).values()) == {"new"}
    assert set_aside(folder) == []


def test_a_journal_whose_set_is_not_all_there_is_undone(tmp_path: Path) -> None:
    """A file of the committed set gone (removed by hand) and not in place: the renames
    cannot be completed, so the journal and what is still aside are removed; the files in
    place stay as they are, each whole."""
    folder = tmp_path / "out"
    folder.mkdir()
    for name, data in OLD.items():
        (folder / name).write_bytes(data)
    killed = _write_killed(folder, NEW, 3)  # killed after the first file was put in place
    assert killed.returncode in (-9, 137), (killed.returncode, killed.stderr)
    assert [n for n in set_aside(folder) if n.startswith(".report-journal-")]
    aside = [n for n in set_aside(folder) if n.endswith(".tmp")]
    assert len(aside) == len(NAMES) - 1
    os.unlink(folder / aside[0])
    report.settle_reports(folder)
    assert set_aside(folder) == []
    assert "other" not in _which(folder).values()


def test_files_aside_of_a_living_writer_are_left_alone(tmp_path: Path) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    living = folder / f".report-{os.getppid()}-abcdefgh.tmp"
    living.write_bytes(b"being written")
    dead = folder / f".report-{_dead_pid()}-abcdefgh.tmp"
    dead.write_bytes(b"cut sh")
    unnamed_old = folder / ".report-k2j4h5g6.tmp"  # a writer that put no pid: by its age
    unnamed_old.write_bytes(b"old")
    past = time.time() - 2 * 3600
    os.utime(unnamed_old, (past, past))
    unnamed_new = folder / ".report-q8w7e6r5.tmp"
    unnamed_new.write_bytes(b"new")
    report.write_all({folder / name: data for name, data in NEW.items()})
    assert living.exists() and unnamed_new.exists()
    assert not dead.exists() and not unnamed_old.exists()
    assert set(_which(folder).values()) == {"new"}


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


@pytest.fixture
def older_report(tmp_path: Path) -> Path:
    folder = tmp_path / "out"
    folder.mkdir()
    for name, data in OLD.items():
        (folder / name).write_bytes(data)
    return folder


# the real command once, killed between renames (each kill costs two reports of the quick
# sweep, a minute; every rename is covered by the writer's own tests above)
@pytest.mark.parametrize("n", [4])
def test_raidsweep_report_killed_at_a_rename(
    quick_store: object, older_report: Path, n: int
) -> None:
    """The same with the real command: ``raidsweep report`` killed at its Nth rename over an
    older report, then run again."""
    root = quick_store.root  # type: ignore[attr-defined]
    html = older_report / "r.html"
    command = [str(RAIDSWEEP), "report", "quick", "--store", str(root), "-o", str(html)]
    killed = subprocess.run(
        [*killed_at("rename", n), *command],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert killed.returncode in (-9, 137), (killed.returncode, killed.stdout, killed.stderr)
    journals = [n for n in os.listdir(older_report) if n.startswith(".report-journal-")]
    seen = _which(older_report)
    if not journals:  # not committed: the older set, whole
        assert set(seen.values()) == {"old"}, seen
    else:  # committed: settling puts the rest of the new set in place
        report.settle_reports(older_report)
        assert "old" not in _which(older_report).values(), _which(older_report)
        assert (older_report / "r.md").read_bytes().startswith(b"# raidsweep report: quick")
    again = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "old" not in _which(older_report).values()
    assert set_aside(older_report) == []
