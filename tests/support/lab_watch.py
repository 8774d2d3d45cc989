"""Stops a lab VM when the test session that started it ends, however it ends.

``python -m tests.support.lab_watch FOLDER`` reads its standard input, a pipe whose other
end only the test session holds, until end of file: the session closed it after its own
``Lab.down`` or died (a timeout's SIGKILL, a crash) and the kernel closed it. Then it stops
the lab of FOLDER (``Lab.down``: a no-op where the lab is already down). The VM is a daemon
(QEMU's ``-daemonize``): without this a killed session left it running."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from sweeper.lab import Lab


def main(folder: str) -> None:
    # the session's Ctrl-C or SIGTERM to its group is not the end of the pipe: only EOF is
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)
    while sys.stdin.buffer.read(65536):
        pass
    Lab(Path(folder)).down()


if __name__ == "__main__":
    main(sys.argv[1])
