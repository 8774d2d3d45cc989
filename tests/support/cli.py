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


def invoke(*args: str | Path) -> tuple[int, str]:
    """``raidsweep`` with ``args`` in this process (Typer's runner), 400 columns wide: its exit
    status and its output on one line; it must end without a traceback."""
    from typer.testing import CliRunner

    from sweeper.cli import app

    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "400"})
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, " ".join(result.output.split())


def finished_tiny(folder: Path, name: str) -> Path:
    """The store in ``folder`` after a finished tiny sweep ``name`` on the simulated array
    (``tests.support.specs.tiny_sim_spec``): its root."""
    from tests.support.specs import tiny_sim_spec

    code, out = invoke("run", tiny_sim_spec(folder, name), "--store", folder / "store")
    assert code == 0, out
    return folder / "store"


def refused(result: subprocess.CompletedProcess[str], *words: str) -> str:
    """The command was refused: exit status 2, no traceback, and each of ``words`` in what
    it said on stderr; that, on one line."""
    out = result.stdout + result.stderr
    assert result.returncode == 2, out
    assert "Traceback" not in out, out
    flat = " ".join(result.stderr.split())
    for word in words:
        assert word in flat, flat
    return flat


def on_store(store: Path, *args: str) -> tuple[int, str]:
    """``raidsweep`` with ``args`` on ``store``: its exit status and its output on one line,
    never a traceback nor a Python exception's name."""
    done = cli(*args, "--store", store, columns=400)
    out = " ".join((done.stdout + done.stderr).split())
    assert "Traceback" not in out and "ValueError" not in out, out
    return done.returncode, out
