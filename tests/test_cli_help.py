"""``raidsweep --help``'s list of commands: each command's summary is its docstring's first
paragraph, reflowed to the terminal (a line ends only where the next word would not fit)."""

from __future__ import annotations

import re

import pytest

from tests.support.cli import cli

_ROW = re.compile(r"^│ (\S*)( +)(.*?) *│$")


def _panel(text: str) -> dict[str, list[str]]:
    """The Commands panel: each command's lines of summary, as laid out."""
    rows: dict[str, list[str]] = {}
    inside, name = False, ""
    for line in text.splitlines():
        if line.startswith("╭─ Commands"):
            inside = True
            continue
        if inside and line.startswith("╰"):
            break
        match = _ROW.match(line) if inside else None
        if match is None:
            continue
        name = match.group(1) or name
        rows.setdefault(name, []).append(match.group(3))
    return rows


@pytest.mark.parametrize("columns", [80, 120])
def test_every_command_summary_is_reflowed_to_the_terminal(columns: int) -> None:
    result = cli("--help", columns=columns)
    assert result.returncode == 0, result.stderr
    rows = _panel(result.stdout)
    assert {"run", "report", "capture", "compare", "lab"} <= set(rows), rows
    # the width the summaries are laid out in: that of the widest line any summary reaches
    width = max(len(line) for lines in rows.values() for line in lines)
    for name, lines in rows.items():
        for line, following in zip(lines, lines[1:], strict=False):
            word = following.split()[0]
            assert len(line) + 1 + len(word) > width, (name, line, following, width)
