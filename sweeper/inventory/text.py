"""The text of an inventory's keys and values: template syntax Ansible would evaluate and
control characters, refused wherever they are (tagged values passing as opaque)."""

from __future__ import annotations

from typing import Any

import yaml

from sweeper.inventory.places import line_of, place_of
from sweeper.inventory.tags import opaque
from sweeper.untrusted import control_problem, sanctioned, template_problem


def text_problems(data: Any, node: yaml.Node | None, loc: list[Any] | None = None) -> list[str]:
    """Every key and value of an inventory that holds template syntax (Ansible would evaluate
    it) or a control character (a newline in a host, path or device starts a new line of
    whatever it is written into), as ``line N: where: problem``. Values tagged ``!vault`` or
    ``!unsafe`` are opaque and pass; so does the one fixed template ``untrusted.SANCTIONED``."""
    loc = loc or []
    problems: list[str] = []

    def check(text: str, at: list[Any]) -> None:
        problem = template_problem(text) or control_problem(text)
        if problem:
            problems.append(f"line {line_of(node, at)}: {place_of(at)}: {problem}")

    if isinstance(data, str):
        if not opaque(data):
            check(data, loc)
    elif isinstance(data, dict):
        for key, value in data.items():
            if isinstance(key, str) and not opaque(key):
                check(key, [*loc, key])
            if not sanctioned(key, value):
                problems += text_problems(value, node, [*loc, key])
    elif isinstance(data, list):
        for i, value in enumerate(data):
            problems += text_problems(value, node, [*loc, i])
    return problems
