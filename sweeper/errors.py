"""Errors the CLI turns into exit status 2: bad input, reported before anything changes."""

from __future__ import annotations


class InputError(Exception):
    """One or more problems in a file the user gave; each names its place."""

    def __init__(self, source: str, problems: list[str]):
        self.source = source
        self.problems = list(problems)
        super().__init__(self.render())

    def render(self) -> str:
        lines = [f"{self.source}: {len(self.problems)} problem(s)"]
        lines += [f"  {p}" for p in self.problems]
        return "\n".join(lines)


class SpecError(InputError):
    """The sweep spec is invalid."""


class StoreError(Exception):
    """The results store cannot be used as asked (e.g. a sweep name reused for another spec)."""
