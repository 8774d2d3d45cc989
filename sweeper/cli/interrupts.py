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

import signal
import threading
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
