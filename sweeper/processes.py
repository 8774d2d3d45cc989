"""Processes: whether one still runs (to tell a killed sweep from a running one), and a child
that dies with raidsweep however raidsweep ends."""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Callable


def pid_alive(pid: int | None) -> bool:
    """Whether a process of that pid runs (a pid of 0 or below, or larger than any, is none)."""
    if not pid or pid < 0:
        return False
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):  # gone, or no pid is that large
        return False
    except PermissionError:  # it exists, owned by someone else
        return True
    return True


def other_alive(pid: int | None) -> bool:
    """Whether another process of that pid runs: this one's own earlier work (a pid used
    again) is over."""
    return pid != os.getpid() and pid_alive(pid)


#: Linux's prctl(2) option that signals a child when the thread that started it ends
_PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None


def dies_with(parent: int) -> Callable[[], None] | None:
    """A ``preexec_fn`` for a child that drives storage (fio, or the ssh that runs it
    elsewhere): SIGKILL when ``parent`` (this raidsweep) ends, however it ends. The child runs
    in a session of its own (a Ctrl-C is for raidsweep), so nothing else would stop it: a
    killed sweep's fio would go on driving the target while the resumed sweep measures it,
    with the target's lock already free. The signal follows the thread that starts the child,
    which blocks until the child ends."""
    if _LIBC is None:
        return None
    libc = _LIBC

    def arm() -> None:
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # raidsweep ended before the signal was armed
            os._exit(1)

    return arm
