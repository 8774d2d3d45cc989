"""Files written whole: a temporary file flushed, then linked or renamed to its name, so a
reader sees all of it or nothing; the store's small JSON records read back within bounds; and
the listing of the folders and Parquet files a folder holds."""

from __future__ import annotations

import contextlib
import copy
import json
import os
import stat
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import pyarrow as pa
import pyarrow.parquet as pq

from sweeper.errors import InputError, StoreError
from sweeper.processes import pid_alive
from sweeper.yamlsource import read_text

#: a single-row file's texts longer than this many characters are compressed
_COMPRESS_FROM = 512
T = TypeVar("T")


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_aside(folder: Path, data: bytes, prefix: str) -> Path:
    """``data`` in a new file of ``folder`` (made if need be), named ``<prefix>….tmp``,
    readable by all and on disk (fsync) when this returns: a write that is then put in place
    by a rename is whole or absent. A failed write leaves nothing behind."""
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=prefix, suffix=".tmp")
    try:
        os.fchmod(fd, 0o644)  # mkstemp's 0600 would hide results from other readers
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    return Path(tmp)


def atomic_write_bytes(path: Path, data: bytes, *, replace: bool) -> bool:
    """Write ``data`` to ``path`` whole; with ``replace=False`` an existing file wins."""
    # The writer's pid in the name lets a later writer remove what a killed one left behind.
    tmp = write_aside(path.parent, data, f".{os.getpid()}-")
    try:
        if replace:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                return False
        fsync_dir(path.parent)
        return True
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def remove_stale_temporaries(sweep_dir: Path) -> int:
    """Delete the temporary files (``atomic_write_bytes``'s ``.<pid>-….tmp``) under
    ``sweep_dir`` of writers that no longer run; returns how many."""
    removed = 0
    for tmp in sweep_dir.rglob(".*.tmp"):
        pid_text = tmp.name[1:].split("-", 1)[0]
        if pid_text.isdigit() and not pid_alive(int(pid_text)):
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
                removed += 1
    return removed


def table_bytes(row: dict[str, Any], schema: pa.Schema) -> bytes:
    unknown = set(row) - set(schema.names)
    if unknown:
        raise ValueError(f"unknown columns for the store: {sorted(unknown)}")
    # One row: compressing a column pays a codec's set-up per column, worth it only for the
    # long texts (fio's JSON, the job file, the disclosure); a dictionary of one value is
    # pure overhead. Both cost more than the rest of the write (3.6 ms against 1.6 ms a run).
    # Nor do a row's statistics help a reader (its minimum and maximum are the row, the long
    # texts copied uncompressed): without them a run's file is 16 KB instead of 38.
    codecs = {
        name: "zstd" if isinstance(value, str | bytes) and len(value) > _COMPRESS_FROM else "none"
        for name, value in row.items()
    }
    table = pa.Table.from_pylist([row], schema=schema)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression=codecs, use_dictionary=False, write_statistics=False)
    return sink.getvalue().to_pybytes()


def parquet_bytes(table: pa.Table) -> bytes:
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    return sink.getvalue().to_pybytes()


def parquet_names(folder: Path, skipped: list[str] | None = None) -> list[str]:
    """The visible Parquet files of ``folder`` (temporaries start with a dot); none where it
    is missing, a file or cannot be read (the last two said in ``skipped``: a folder of a
    sweep that cannot be listed leaves its own runs out, not the whole sweep's)."""
    try:
        with os.scandir(folder) as entries:
            names = [e.name for e in entries]
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        _not_a_folder(skipped, folder)
        return []
    except OSError as exc:
        _skip(skipped, folder, exc)
        return []
    return [n for n in names if n.endswith(".parquet") and not n.startswith(".")]


def subfolders(
    folder: Path, skipped: list[str] | None = None, *, only_folders: bool = False
) -> list[str]:
    """The folders in ``folder`` (none where it is missing, or a file: said in ``skipped``);
    StoreError naming the folder when it cannot be read. An entry that cannot be looked at
    (a link to itself, or into a folder this user may not read) is passed over and said in
    ``skipped``: one bad entry must not hide every sweep of the store, nor every run of a
    sweep. ``only_folders``: ``folder`` holds folders alone (a sweep's runs), so any other
    visible entry is in a folder's place and said too."""
    try:
        with os.scandir(folder) as entries:
            return [e.name for e in entries if _is_folder(e, folder, skipped, only_folders)]
    except FileNotFoundError:
        return []
    except NotADirectoryError:
        _not_a_folder(skipped, folder)
        return []
    except OSError as exc:
        raise StoreError(f"{folder}: cannot be read ({exc.strerror})") from None


def _is_folder(
    entry: os.DirEntry[str], folder: Path, skipped: list[str] | None, only_folders: bool
) -> bool:
    if entry.name.startswith("."):
        return False
    try:
        found = entry.is_dir()  # False for a link to nowhere; an OSError for a link loop
    except OSError as exc:
        _skip(skipped, folder / entry.name, exc)
        return False
    if not found and only_folders:
        _not_a_folder(skipped, folder / entry.name)
    return found


def kind_of(mode: int) -> str:
    """What a file that is not a regular one is (its ``st_mode``), in words."""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "a device"


def _not_a_folder(skipped: list[str] | None, path: Path) -> None:
    if skipped is not None:
        skipped.append(f"{path}: a file where the store keeps a folder; what it holds is left out")


def _skip(skipped: list[str] | None, path: Path, exc: OSError) -> None:
    if skipped is not None:
        skipped.append(f"{path}: cannot be read ({exc.strerror or exc}); left out")


# records --------------------------------------------------------------------------------------
class RecordProblem(StoreError):
    """A record of the store that cannot be read as one: its file and what is wrong."""

    def __init__(self, path: Path, problem: str):
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")


def read_record(path: Path, *, max_bytes: int, kind: str) -> Any | None:
    """The JSON document of the store's record at ``path`` (a ``kind``, such as "sweep
    record"), or None where there is none. Read as every file a user hands raidsweep is
    (``yamlsource.read_text``): a regular file of at most ``max_bytes``, anything else (a
    FIFO, /dev/zero behind a link, a folder, a link loop) refused unread, so a record of the
    wrong kind is never a hang nor a read without end. RecordProblem names the file and why."""
    try:
        text = read_text(path, max_bytes=max_bytes, kind=kind)
    except InputError as exc:
        if _absent(path):  # none there (or removed meanwhile, as an ended worker's record)
            return None
        raise RecordProblem(path, "; ".join(exc.problems)) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RecordProblem(path, f"damaged (not JSON: {exc.msg}, line {exc.lineno})") from None
    except (ValueError, RecursionError):  # a number of more digits than Python takes; depth
        raise RecordProblem(path, "damaged (not JSON raidsweep can read)") from None


#: records read and checked, by place, stamp and kind (``read_checked``)
_CHECKED: dict[tuple[str, tuple[int, ...], str], Any] = {}
_CHECKED_MAX = 256
_CHECKED_LOCK = threading.Lock()
#: a record larger than this is read each time (kept, 256 of them could fill the memory)
_CHECKED_MAX_BYTES = 256 * 1024


def read_checked(path: Path, *, max_bytes: int, kind: str, check: Callable[[Any], T]) -> T | None:
    """``check``'s answer for the document of the record at ``path`` (``read_record``),
    None where there is none. A command reads a record more than once (the sweep's before it
    runs and as it registers; the progress as the recommendation and its evidence each ask):
    the file is read and checked once while it stays as it is (its inode, size and times,
    ``kind`` naming the check), and each caller gets a copy of its own. What is wrong with a
    record (``RecordProblem``, or what ``check`` raises) is raised each time it is read."""
    before = _stamp_or_none(path)
    small = before is not None and before[1] <= _CHECKED_MAX_BYTES
    key = (str(path), before, kind) if small else None
    with _CHECKED_LOCK:  # the app's pages read from threads of their own
        kept = _CHECKED.get(key) if key is not None else None
    if kept is not None:
        return copy.deepcopy(kept)
    record = read_record(path, max_bytes=max_bytes, kind=kind)
    if record is None:
        return None
    checked = check(record)
    # kept only when the file did not change while it was read
    if key is not None and _stamp_or_none(path) == before:
        with _CHECKED_LOCK:
            _CHECKED[key] = checked
            if len(_CHECKED) > _CHECKED_MAX:
                del _CHECKED[next(iter(_CHECKED))]
        return copy.deepcopy(checked)
    return checked


def _stamp_or_none(path: Path) -> tuple[int, ...] | None:
    """What changes when the file at ``path`` is written anew (its inode, size, modification
    and change times), or None where it cannot be looked at."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _absent(path: Path) -> bool:
    """Whether nothing is at ``path``, not even a link (a link to nowhere is a damaged
    record, said as such; so is one behind a folder that cannot be looked at)."""
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return False
