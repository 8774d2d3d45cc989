"""How a report's files reach the disk: every one of them or none, as far as a reader can tell,
even when the writer is killed (``write_all``), and what a killed writer left behind finished
or undone (``settle_reports``).

Two writers of one report (``raidsweep report -o same.html`` twice at once) take turns: a
writer holds the lock of the report's set (``.report-journal-<hash>.lock`` beside it, removed
when let go) from its first look at the folder to its last rename, so the set in place is
always one writer's, whole. The second waits for the first (a set is written in seconds) up
to :data:`LOCK_WAIT_S`, then writes its own set over it; a holder that keeps the lock longer
(a stopped or hung writer) is named in a LockHeld (exit status 2) and nothing is written."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sweeper.locking import LockHeld, lock_record, take_turn
from sweeper.processes import other_alive
from sweeper.store.files import fsync_dir, write_aside

#: how the Markdown report begins: a file of that name that does not is the user's own
MARKDOWN_HEAD = b"# raidsweep report: "

#: a file of a report written aside, ``.report-<pid>-<random>.tmp`` (the writer's pid lets a
#: later writer tell a dead writer's file from a live one's; older writers put no pid)
_ASIDE = re.compile(r"\.report-(?:(\d+)-)?[^-]*\.tmp")
#: the journal of a report's set being put in place, ``.report-journal-<hash>.json``
_JOURNAL = re.compile(r"\.report-journal-[0-9a-f]{16}\.json")
#: the lock of a report's set, ``.report-journal-<hash>.lock`` (its journal's hash)
_LOCK = re.compile(r"\.report-journal-[0-9a-f]{16}\.lock")
#: how long a writer waits for another writer of the same report's set to finish
LOCK_WAIT_S = 60.0
#: a file written aside this long ago is left over whatever its pid says (a pid used again);
#: a report is written aside and put in place in seconds
_STALE_S = 3600.0


def write_all(files: dict[Path, bytes]) -> list[Path]:
    """Write every file or none, as far as a reader can tell, even when killed. Refused before
    anything is written (OSError naming the file): a target that is not a regular file, and a
    Markdown file there that is not a raidsweep report (the user's ``notes.md`` beside ``-o
    notes.html``). The files are all in one folder.

    Each file is written aside first (``.report-<pid>-….tmp``, on disk); a write that fails
    removes what this call wrote aside. Then a journal naming the set (each file's name,
    its file aside and its digest) is put in place: from that moment the new set is the
    report. The files are renamed into place, and the journal removed. A writer killed
    before the journal leaves only files aside, which the next writer into the folder
    removes; one killed after it leaves a journal, and the next writer (or a reader, with
    :func:`settle_reports`) finishes the renames first.

    All of it under the lock of the report's set (see the module): another writer of the
    same report waits for this one (LockHeld after :data:`LOCK_WAIT_S`, nothing written)."""
    for target in files:
        if target.exists() and not target.is_file():
            raise IsADirectoryError(errno.EISDIR, "not a regular file", str(target))
        if target.suffix == ".md" and target.is_file():
            with target.open("rb") as fh:
                if not fh.read(len(MARKDOWN_HEAD)) == MARKDOWN_HEAD:
                    raise FileExistsError(
                        errno.EEXIST, "exists and is not a raidsweep report", str(target)
                    )
    first = next(iter(files))
    folder = first.parent
    if any(t.parent != folder for t in files):
        raise ValueError("a report's files are written beside one another, in one folder")
    journal = folder / _journal_name(first)
    folder.mkdir(parents=True, exist_ok=True)  # the lock's folder
    with contextlib.ExitStack() as held:
        try:
            held.enter_context(_set_lock(journal, first, LOCK_WAIT_S))
        except OSError as exc:  # a folder that cannot hold the set's lock cannot hold the set
            raise OSError(exc.errno, exc.strerror, str(first)) from None
        _settle(folder, holding=journal.name)
        return _write_set(files, folder, first, journal)


def _write_set(files: dict[Path, bytes], folder: Path, first: Path, journal: Path) -> list[Path]:
    """:func:`write_all`'s writes, holding the lock of the set."""
    prefix = f".report-{os.getpid()}-"
    aside: dict[Path, Path] = {}
    target = first
    try:
        for target, data in files.items():  # a failure names the target it was writing
            aside[target] = write_aside(folder, data, prefix)
    except BaseException as exc:
        _remove(aside.values())
        if not isinstance(exc, OSError):
            raise
        raise OSError(exc.errno, exc.strerror, str(target)) from None
    # the HTML last: whoever opens it finds the Markdown and the tables of its own set
    order = [t for t in files if t != first] + [first]
    entries = [
        {"name": t.name, "aside": aside[t].name, "sha256": hashlib.sha256(files[t]).hexdigest()}
        for t in order
    ]
    document = {"pid": os.getpid(), "files": entries}
    written: Path | None = None
    try:
        written = write_aside(folder, json.dumps(document).encode("utf-8"), prefix)
        os.replace(written, journal)  # the commit: from here on the new set is the report
        fsync_dir(folder)
    except BaseException as exc:
        _remove([*aside.values(), *([written] if written else [])])
        if not isinstance(exc, OSError):
            raise
        raise OSError(exc.errno, exc.strerror, str(journal)) from None
    try:
        _put_in_place(folder, journal, entries)
    except BaseException:  # Ctrl-C between two renames: the set is committed, finish it
        with contextlib.suppress(Exception):
            _put_in_place(folder, journal, entries)
        raise
    return list(files)


def settle_reports(folder: Path) -> None:
    """Finish or undo in ``folder`` what report writers that are no longer running left: a
    journal whose set is all there (each file still aside, or already in place) has its
    renames completed; one whose set is not is removed with the files it names that are
    still aside; files written aside by a writer that is gone are removed, and so are the
    locks of sets a killed writer left. A writer that is still running (its set's lock
    held, or its pid alive) is left alone."""
    _settle(folder, holding=None)


def _settle(folder: Path, *, holding: str | None) -> None:
    """:func:`settle_reports`; ``holding``: the journal name of the set whose lock the caller
    holds (its journal is settled without taking the lock again)."""
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return
    kept: set[str] = set()  # the files aside of journals of living writers
    for name in sorted(n for n in names if _JOURNAL.fullmatch(n)):
        journal = folder / name
        if name == holding:
            _settle_journal(folder, journal, kept)
            continue
        try:
            with _set_lock(journal, None, 0):
                _settle_journal(folder, journal, kept)
        except LockHeld:  # its writer is at work: it settles this journal itself
            document = _read_journal(journal)
            kept.update(e["aside"] for e in (document or {"files": []})["files"])
    for name in names:  # a set's lock a killed writer left: taken, and so removed
        journal = folder / f"{name[: -len('.lock')]}.json"
        if _LOCK.fullmatch(name) and journal.name != holding:
            with contextlib.suppress(LockHeld, FileNotFoundError), _set_lock(journal, None, 0):
                pass
    now = time.time()
    for name in names:
        if name in kept or not (m := _ASIDE.fullmatch(name)):
            continue
        path = folder / name
        with contextlib.suppress(FileNotFoundError):
            pid = int(m.group(1)) if m.group(1) else None
            if (pid is not None and not other_alive(pid)) or now - path.lstat().st_mtime > _STALE_S:
                path.unlink()


def _settle_journal(folder: Path, journal: Path, kept: set[str]) -> None:
    """Finish or undo one journal's set (its lock held), unless its writer still runs (one
    that took no lock: an older raidsweep); the files aside of such a writer go to
    ``kept``."""
    document = _read_journal(journal)
    if document is None:
        return
    entries = document["files"]
    if other_alive(document["pid"]):
        kept.update(e["aside"] for e in entries)
        return
    if all(_whole(folder, e) for e in entries):
        _put_in_place(folder, journal, entries)
    else:
        _remove([folder / e["aside"] for e in entries])
        _remove([journal])
        fsync_dir(folder)


@contextlib.contextmanager
def _set_lock(journal: Path, html: Path | None, wait_s: float) -> Iterator[None]:
    """Hold the lock of the set whose journal is ``journal`` (see the module), waiting up to
    ``wait_s`` for another writer of it; ``html``: the set's HTML file, for who holds it."""
    what = f"raidsweep report {html}" if html is not None else "raidsweep settling a report"
    subject = f"report {html}" if html is not None else f"the report set of {journal}"
    lock = journal.with_name(f"{journal.name[: -len('.json')]}.lock")
    with take_turn(lock, subject, lock_record(what), wait_s=wait_s):
        yield


def _journal_name(html: Path) -> str:
    return f".report-journal-{hashlib.sha256(os.fsencode(html.name)).hexdigest()[:16]}.json"


def _read_journal(path: Path) -> dict[str, Any] | None:
    """A journal as written (it is put in place whole), or None: gone, or not one of ours."""
    try:
        with path.open("rb") as fh:
            document = json.loads(fh.read(1 << 20))
        entries = document["files"]
        int(document["pid"])
        for e in entries:
            for key in ("name", "aside", "sha256"):
                if not isinstance(e[key], str) or "/" in e[key] or e[key] in ("", ".", ".."):
                    raise ValueError(key)
        return document
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        return None  # not a journal this writer made: left alone


def _whole(folder: Path, entry: dict[str, str]) -> bool:
    """The entry's file is still aside, whole, or already in place."""
    for name in (entry["aside"], entry["name"]):
        try:
            if hashlib.sha256((folder / name).read_bytes()).hexdigest() == entry["sha256"]:
                return True
        except OSError:
            continue
    return False


def _put_in_place(folder: Path, journal: Path, entries: list[dict[str, str]]) -> None:
    """Rename each file of a committed set still aside into place, then remove the journal.
    Done again after a kill, it completes what is left."""
    for entry in entries:
        with contextlib.suppress(FileNotFoundError):  # already renamed
            os.replace(folder / entry["aside"], folder / entry["name"])
    fsync_dir(folder)
    journal.unlink(missing_ok=True)
    fsync_dir(folder)


def _remove(paths: Any) -> None:
    for path in paths:
        with contextlib.suppress(FileNotFoundError):
            Path(path).unlink()
