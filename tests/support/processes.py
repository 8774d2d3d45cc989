"""A server a test started in the background, stopped at its end."""

from __future__ import annotations

import subprocess


def stop(proc: subprocess.Popen, grace_s: float) -> None:
    """``proc`` terminated, and killed if it has not ended within ``grace_s`` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
