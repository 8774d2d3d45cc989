"""The operator's prompt in the terminal ``raidsweep run`` runs in (the manual platform)."""

from __future__ import annotations

import select
import sys
from typing import TextIO

from rich.console import Console
from rich.markup import escape


class TerminalPrompt:
    """Shows what to build and reads the operator's answer line by line, without blocking
    the sweep (it keeps looking for answers given with ``raidsweep ready`` meanwhile)."""

    def __init__(self, console: Console, stream: TextIO | None = None):
        self.console = console
        self.stream = stream or sys.stdin
        self.closed = False

    def show(self, lines: list[str]) -> None:
        for line in lines:
            self.console.print(escape(line), highlight=False, soft_wrap=True)

    def line(self, timeout_s: float) -> str | None:
        if self.closed:
            select.select([], [], [], timeout_s)
            return None
        readable, _, _ = select.select([self.stream], [], [], timeout_s)
        if not readable:
            return None
        text = self.stream.readline()
        if text == "":  # end of input: answers now come only from `raidsweep ready`
            self.closed = True
            return None
        return text
