"""raidsweep run as a real process: the installed command (``.venv/bin/raidsweep``), as a
user runs it, to its end (``cli``) or in the background (``start``, then ``finish``)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from tests.support.paths import RAIDSWEEP


def _environment(env: Mapping[str, str] | None, columns: int | None, inherit: bool) -> dict:
    environ = dict(os.environ) if inherit else {}
    environ |= dict(env or {})
    if columns is not None:
        environ["COLUMNS"] = str(columns)
    return environ


def cli(
    *args: str | Path,
    env: Mapping[str, str] | None = None,
    columns: int | None = None,
    inherit_env: bool = True,
    cwd: Path | None = None,
    timeout: float | None = 600,
    check: bool = False,
) -> subprocess.CompletedProcess[str]:
    """``raidsweep`` with ``args``, to its end; its stdout and stderr as text.

    ``env`` is added to this process's environment (with ``inherit_env=False`` it is the
    whole environment), ``columns`` is the width the output is laid out for; ``check`` raises
    on a non-zero exit status.
    """
    return subprocess.run(
        [str(RAIDSWEEP), *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=_environment(env, columns, inherit_env),
        timeout=timeout,
        check=check,
    )


def start(
    *args: str | Path,
    env: Mapping[str, str] | None = None,
    columns: int | None = 300,
    output: bool = True,
) -> subprocess.Popen[str]:
    """``raidsweep`` with ``args`` in the background, in a session of its own (a kill of its
    process group reaches its plays too); its output collected for ``finish`` (with
    ``output=False``, thrown away)."""
    kept = subprocess.PIPE if output else subprocess.DEVNULL
    return subprocess.Popen(
        [str(RAIDSWEEP), *map(str, args)],
        stdin=subprocess.DEVNULL,  # never the terminal pytest runs in
        stdout=kept,
        stderr=kept,
        text=True,
        env=_environment(env, columns, True),
        start_new_session=True,
    )


def finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    """Its exit status and its output (stdout, then stderr) on one line."""
    out, errs = proc.communicate(timeout=600)
    return proc.returncode, " ".join((out + errs).split())
