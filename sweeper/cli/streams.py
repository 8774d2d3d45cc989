"""The standard streams a command is given: closed ones stood in for, standard output's
failures named.

A command started with a standard stream closed (``cmd <&-``, ``cmd >&-``; cron and some
service managers close standard input) would fail deep inside (Python leaves ``sys.stdin``
None), or worse: the next file it opens takes the free descriptor and is read or written as
that stream. :func:`guard` opens ``/dev/null`` in each closed descriptor's place before
anything else is opened. A closed standard input reads as empty (not a terminal: nothing is
asked). Standard output that was closed, or that fails when written (a full disk, an I/O
error), makes the write raise :class:`OutputError`, which ``main`` turns into one line and
exit status 1: a command whose result is its output never exits 0 with nothing written.
A reader that left (``| head``) is ``BrokenPipeError``, raised as Python raises it.
"""

from __future__ import annotations

import os
import sys
from typing import Any, TextIO


class OutputError(Exception):
    """Standard output cannot take what a command writes, and why (``reason``)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(f"cannot write to standard output: {reason}")


class _CheckedOutput:
    """``stream`` whose writes raise :class:`OutputError` where they fail (or always, where
    standard output was closed); everything else is the stream's own."""

    def __init__(self, stream: TextIO, closed: bool) -> None:
        self._stream = stream
        self._closed = closed

    def _failed(self, exc: OSError) -> OutputError:
        return OutputError(exc.strerror or str(exc))

    def write(self, text: str) -> int:
        if self._closed and text:
            raise OutputError("it is closed")
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._failed(exc) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise self._failed(exc) from None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _closed(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False


def guard() -> None:
    """Stand ``/dev/null`` in for each closed standard descriptor, and check standard
    output's writes (module text)."""
    closed = {fd: _closed(fd) for fd in (0, 1, 2)}
    for fd in (0, 1, 2):  # lowest first: os.open takes the lowest free descriptor
        if closed[fd]:
            os.dup2(opened := os.open(os.devnull, os.O_RDONLY if fd == 0 else os.O_WRONLY), fd)
            if opened != fd:
                os.close(opened)
    if closed[0]:
        sys.stdin = open(0, closefd=False, encoding=sys.getfilesystemencoding())  # noqa: SIM115
    if closed[2]:
        sys.stderr = open(2, "w", closefd=False, encoding="utf-8")  # noqa: SIM115
    stdout = sys.stdout
    if closed[1] or stdout is None:
        stdout = open(1, "w", closefd=False, encoding="utf-8")  # noqa: SIM115
    if not isinstance(stdout, _CheckedOutput):
        sys.stdout = _CheckedOutput(stdout, closed[1])  # type: ignore[assignment]
