"""Ctrl-C as the user meant it: whatever a command was doing when it came (starting up,
reading the store, a DuckDB query, a callback DuckDB made into Python), it ends the command
with exit status 130 and the word ``interrupted``, never a traceback.

Python turns SIGINT into KeyboardInterrupt in whatever runs next; inside DuckDB (a query, or
Python code DuckDB calls back) it comes out as DuckDB's own error ("Query interrupted",
"... failed: KeyboardInterrupt"), which a reader of the store may take for a damaged file and
handle. So the signal itself is remembered (:data:`INTERRUPTED`), and the command line judges
by that: a command that was interrupted exits 130 whatever exception it ended with, and a
long step checks the flag before it starts (a Ctrl-C taken by a handler on the way does not
run a query to its end). ``raidsweep run`` installs its own handler (the first Ctrl-C
finishes the run in flight).
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

#: set once SIGINT has come (Ctrl-C, or ``kill -INT``)
INTERRUPTED = threading.Event()


def _on_sigint(signum: int, frame: FrameType | None) -> None:
    INTERRUPTED.set()
    raise KeyboardInterrupt


def watch() -> None:
    """Remember SIGINT from now on, and raise KeyboardInterrupt as Python does."""
    INTERRUPTED.clear()
    signal.signal(signal.SIGINT, _on_sigint)


@contextmanager
def relayed_to(stop: Callable[[], None]) -> Iterator[None]:
    """While the block runs, a Ctrl-C also calls ``stop`` at once, from a thread of its own.

    Python runs a signal's handler in the main thread when that thread next runs Python
    code; one held inside C (DuckDB 2 fetching a query's result checks for no signal) would
    run it only once the query ends, which an endless query never does. The C handler writes
    each signal's number to the wakeup file at once; the relay thread reads it and stops
    (``con.interrupt``), and the handler's KeyboardInterrupt follows as usual.
    """
    read_fd, write_fd = os.pipe()
    os.set_blocking(write_fd, False)
    before = signal.set_wakeup_fd(write_fd, warn_on_full_buffer=False)

    def relay() -> None:
        while data := os.read(read_fd, 64):  # empty: the block has ended
            if signal.SIGINT in data:
                INTERRUPTED.set()
                stop()

    thread = threading.Thread(target=relay, name="ctrl-c relay", daemon=True)
    thread.start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(before)
        os.close(write_fd)
        thread.join(timeout=5)
        os.close(read_fd)
