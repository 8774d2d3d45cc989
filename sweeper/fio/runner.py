"""Run real fio on a job file: find it, check its version, run it apart from our terminal."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from sweeper.processes import dies_with

#: percentile_list, lat_percentiles and JSON+ bins are all there from this release on
MIN_FIO_VERSION = (3, 12)
_VERSION_RE = re.compile(r"fio-(\d+)\.(\d+)")
#: job options raidsweep writes only when the spec's matrix asks for them, with the first fio
#: release that accepts them: ``sync=dsync`` (O_DSYNC, axboe/fio PR #1080, merged after
#: fio-3.23; older fio stops at "failed parsing sync=dsync") and the io_uring engine (fio-3.13)
FEATURE_MINIMUMS: dict[tuple[str, str], tuple[int, int]] = {
    ("sync", "dsync"): (3, 24),
    ("engine", "io_uring"): (3, 13),
}


def version_of(text: str) -> tuple[int, int] | None:
    """(major, minor) of a version as fio prints it (``fio-3.33``); None if it is not one."""
    m = _VERSION_RE.search(text)
    return (int(m.group(1)), int(m.group(2))) if m else None


def _shown(version: tuple[int, int]) -> str:
    return f"fio-{version[0]}.{version[1]}"


@dataclass(frozen=True)
class FioNeed:
    """A fio release the spec's matrix needs: ``field`` (``matrix.sync``) asks for ``value``."""

    field: str
    value: str
    minimum: tuple[int, int]


def fio_needs(matrix: Any) -> list[FioNeed]:
    """The fio releases the job files of ``matrix`` need beyond ``MIN_FIO_VERSION``: its
    engine, and the sync modes of its cells (``matrix.sync`` or a cell key's own)."""
    needs = []
    engine = getattr(matrix, "engine", None)
    if ("engine", engine) in FEATURE_MINIMUMS:
        needs.append(FioNeed("matrix.engine", str(engine), FEATURE_MINIMUMS["engine", engine]))
    syncs = {getattr(c, "sync", None) for c in matrix.cells()} if matrix is not None else set()
    for sync in sorted(s for s in syncs if ("sync", s) in FEATURE_MINIMUMS):
        needs.append(FioNeed("matrix.sync", sync, FEATURE_MINIMUMS["sync", sync]))
    return needs


def version_problems(version: str, needs: Iterable[FioNeed] = (), host: str = "") -> list[str]:
    """Why the fio that printed ``version`` (on ``host``; "": this host) cannot run the
    sweep: older than ``MIN_FIO_VERSION``, or than what a field of the matrix needs."""
    where = f" on {host}" if host else ""
    found = version_of(version)
    shown = repr(version.strip() or "no version")
    if found is None or found < MIN_FIO_VERSION:
        return [
            f"fio{where} is {shown}; raidsweep needs {_shown(MIN_FIO_VERSION)} or newer (its "
            "JSON output before that lacks figures raidsweep reads): install a newer fio there"
        ]
    return [
        f"{n.field}: {n.value} needs {_shown(n.minimum)} or newer, and fio{where} is {shown} "
        f"(older fio refuses the job option): install a newer fio there, or leave {n.value} "
        "out of the matrix"
        for n in needs
        if found < n.minimum
    ]


def versions_problems(versions: Mapping[str, str], needs: Iterable[FioNeed] = ()) -> list[str]:
    """``version_problems`` of each fio of a sweep: ``versions`` maps where it runs (a host
    name, or "" for this host) to what ``fio --version`` printed there."""
    needs = list(needs)
    return [p for host, version in versions.items() for p in version_problems(version, needs, host)]


class FioMissingError(RuntimeError):
    """fio is not installed, not runnable, or older than ``MIN_FIO_VERSION``."""


@dataclass(frozen=True)
class Fio:
    path: str
    version: str  # as fio prints it, e.g. "fio-3.33"

    @property
    def version_tuple(self) -> tuple[int, int]:
        """The (first, with several hosts: the oldest) version's (major, minor)."""
        return version_of(self.version) or (0, 0)


@dataclass(frozen=True)
class FioOutput:
    stdout: str
    stderr: str
    exit_code: int
    wall_s: float
    timed_out: bool = False


@cache
def find_fio(name: str = "fio") -> Fio:
    """The fio on PATH and its version; raises FioMissingError saying what to do."""
    path = shutil.which(name)
    if path is None:
        raise FioMissingError(f"{name} is not installed (on Debian: apt-get install fio)")
    try:
        out = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise FioMissingError(f"{path} --version failed: {exc}") from None
    fio = Fio(path, out.stdout.strip() or out.stderr.strip())
    if fio.version_tuple < MIN_FIO_VERSION:
        need = ".".join(map(str, MIN_FIO_VERSION))
        raise FioMissingError(f"{path} is {fio.version!r}; raidsweep needs fio {need} or newer")
    return fio


def run_fio(
    fio: Fio,
    job_file: Path,
    *,
    timeout_s: float,
    output_format: str = "json+",
    extra_args: tuple[str, ...] = (),
) -> FioOutput:
    """Run ``fio --output-format=FORMAT JOB_FILE``; stdout and stderr are kept apart.

    fio starts in its own session: a Ctrl-C at the terminal asks the sweeper to stop after
    the run in flight, and must not cut fio's run short (fio would report a truncated run
    as if it were whole). A second Ctrl-C raises KeyboardInterrupt here, which kills fio.
    """
    cmd = [fio.path, f"--output-format={output_format}", *extra_args, str(job_file)]
    return run_command(cmd, cwd=job_file.parent, timeout_s=timeout_s)


def run_command(cmd: list[str], *, cwd: Path, timeout_s: float) -> FioOutput:
    """Run one fio command line in its own session; a timeout kills it and says so, and it
    dies with raidsweep (``dies_with``). Job files run fio's jobs as threads (``thread``),
    so that stopping the fio process stops every job: a forked job is a session of its own
    and outlived its killed parent."""
    started = time.monotonic()
    try:
        proc = subprocess.run(
            cmd,
            capture_output=True,
            text=True,
            errors="replace",
            timeout=timeout_s,
            start_new_session=True,
            preexec_fn=dies_with(os.getpid()),  # prctl only, then exec
            cwd=cwd,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        return FioOutput(
            stdout=_text(exc.stdout),
            stderr=_text(exc.stderr) + f"\nfio did not finish within {timeout_s:.0f} s; killed",
            exit_code=-9,
            wall_s=time.monotonic() - started,
            timed_out=True,
        )
    return FioOutput(proc.stdout, proc.stderr, proc.returncode, time.monotonic() - started)


def _text(value: str | bytes | None) -> str:
    if value is None:
        return ""
    return value.decode(errors="replace") if isinstance(value, bytes) else value


def exit_reason(exit_code: int, stderr: str, limit: int = 500) -> str:
    """Why fio failed, as stored with the run: its exit status or the signal that ended it,
    and the end of what it printed on stderr."""
    if exit_code < 0:
        try:
            name = signal.Signals(-exit_code).name
        except ValueError:
            name = f"signal {-exit_code}"
        head = f"fio was killed by {name}"
    else:
        head = f"fio exited with status {exit_code}"
    tail = stderr.strip()[-limit:]
    return f"{head}: {tail}" if tail else head
