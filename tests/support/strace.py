"""A command killed at an exact moment: strace's fault injection sends SIGKILL at the ``n``-th
call of a system call (the crash tests of report and characterize)."""

from __future__ import annotations

import os


def killed_at(syscall: str, n: int) -> list[str]:
    """The strace prefix that kills the command at its ``n``-th call of ``syscall``."""
    return [
        "strace",
        "-qq",
        "-o",
        os.devnull,
        "-e",
        f"trace={syscall}",
        "-e",
        f"inject={syscall}:signal=KILL:when={n}",
    ]
