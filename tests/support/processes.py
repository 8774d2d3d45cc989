"""raidsweep started as a real process by the concurrency tests, and its output collected."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence


def start(command: Sequence[str], *args: str) -> subprocess.Popen[str]:
    """``command`` (the raidsweep entry point) with ``args``, in a session of its own."""
    return subprocess.Popen(
        [*command, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=os.environ | {"COLUMNS": "300"}, start_new_session=True,
    )  # fmt: skip


def finish(proc: subprocess.Popen[str]) -> tuple[int, str]:
    """Its exit status and its output (stdout, then stderr) on one line."""
    out, errs = proc.communicate(timeout=600)
    return proc.returncode, " ".join((out + errs).split())
