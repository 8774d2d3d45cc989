"""What goes wrong with the lab VM, each with a message that says why."""

from __future__ import annotations

import subprocess


class LabError(Exception):
    """The lab cannot be built, started or reached; the message says why."""


class LabConflict(LabError):
    """``up`` was asked for another shape than the lab already running in that folder."""


class LabCommandError(subprocess.CalledProcessError):
    """A command in the guest failed; the message carries its output's last lines."""

    def __str__(self) -> str:
        tail = "\n".join(((self.stderr or "") + (self.output or "")).strip().splitlines()[-15:])
        return f"{super().__str__()}\n{tail}" if tail else super().__str__()
