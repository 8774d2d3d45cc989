"""Where in an inventory file a key or value sits, as messages name it: its line, and its
place as a dotted path of keys (a tagged key shown as ``<opaque>``)."""

from __future__ import annotations

from typing import Any

import yaml

from sweeper.inventory.tags import opaque


def line_of(node: yaml.Node | None, loc: list[Any]) -> int:
    line = node.start_mark.line + 1 if node is not None else 1
    for part in loc:
        child = None
        if isinstance(node, yaml.MappingNode):
            child = next((v for k, v in node.value if k.value == part), None)
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int):
            child = node.value[part] if 0 <= part < len(node.value) else None
        if child is None:
            break
        node, line = child, child.start_mark.line + 1
    return line


def name_of(value: Any) -> str:
    return "<opaque>" if opaque(value) else str(value)


def place_of(loc: list[Any]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{name_of(p)}" for p in loc).lstrip(".")
