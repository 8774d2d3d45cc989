"""``raidsweep --help``'s list of commands: each command's summary is its docstring's first
paragraph, reflowed to the terminal (a line ends only where the next word would not fit)."""

from __future__ import annotations

import re
from typing import Any

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


def _commands() -> list[tuple[list[str], list[str]]]:
    """Every command (``lab up`` too) and the help texts of its options, as declared."""
    import typer.main

    from sweeper.cli import app

    found: list[tuple[list[str], list[str]]] = []

    def walk(command: Any, path: list[str]) -> None:  # Typer's own click: typed by duck
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk(sub, [*path, name])
            return
        helps = [p.help for p in command.params if p.param_type_name == "option" and p.help]
        found.append((path, helps))

    walk(typer.main.get_command(app), [])
    return found


def test_every_option_help_is_shown_whole() -> None:
    """Rich markup must not eat a help text's words (``[default: …]`` in a help text was taken
    for a style tag and vanished): each option's help appears in its command's ``--help``."""
    commands = _commands()
    assert len(commands) > 15 and any(path == ["lab", "up"] for path, _ in commands)
    for path, helps in commands:
        result = cli(*path, "--help", columns=400)
        assert result.returncode == 0, (path, result.stderr)
        shown = " ".join(result.stdout.replace("│", " ").split())
        for text in helps:
            assert " ".join(text.split()) in shown, (path, text)
