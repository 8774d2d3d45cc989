"""A second store named on the command line (``compare --store-b``, ``accept
--baseline-store``): checked as ``--store`` is, before anything reads it."""

from __future__ import annotations

from pathlib import Path

import typer

from sweeper.untrusted import path_problem


def checked_path(value: Path | None) -> Path | None:
    """A store's folder with template syntax or control characters is refused (exit 2)."""
    if value is None:
        return value
    problem = path_problem(str(value))
    if problem is not None:
        raise typer.BadParameter(problem)
    return value
