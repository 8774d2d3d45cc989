"""The structure of a YAML inventory: its groups, hosts, children and variables as Ansible's
YAML inventory plugin accepts them, each problem named by line and place."""

from __future__ import annotations

import re
from typing import Any

import yaml

from sweeper.inventory.places import line_of, name_of
from sweeper.inventory.tags import opaque
from sweeper.vocabulary import INVENTORY_GROUP_RE, INVENTORY_HOST_RE

GROUP_KEYS = ("hosts", "children", "vars")

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
#: a host written with its port (``name:2222``), as Ansible's YAML inventory reads it
HOST_PORT = re.compile(rf"({_LABEL}(?:\.{_LABEL})*):([0-9]+)")


def host_port(pattern: str) -> tuple[str, int | None]:
    m = HOST_PORT.fullmatch(pattern)
    if m is None:
        return pattern, None
    return m.group(1), int(m.group(2)) or None  # port 0: none, as Ansible takes it


def walk_group(
    group: str, body: Any, loc: list[Any], node: yaml.Node | None, problems: list[str]
) -> None:
    where = ".".join(name_of(p) for p in loc)
    if not INVENTORY_GROUP_RE.fullmatch(group) or opaque(group):
        problems.append(
            f"line {line_of(node, loc)}: {where}: {name_of(group)!r} is not a group name"
        )
        return
    if body is None:
        return
    if not isinstance(body, dict):
        kind = type(body).__name__
        problems.append(
            f"line {line_of(node, loc)}: {where}: a group must be a mapping, not {kind}"
        )
        return
    for key in body:
        if key not in GROUP_KEYS:
            problems.append(
                f"line {line_of(node, [*loc, key])}: {where}.{name_of(key)}: unknown key "
                f"(a group has {', '.join(GROUP_KEYS)})"
            )
    for key in ("hosts", "children", "vars"):
        value = body.get(key)
        if value is not None and not isinstance(value, dict):
            problems.append(
                f"line {line_of(node, [*loc, key])}: {where}.{key}: must be a mapping, "
                f"not {type(value).__name__}"
            )
    gvars = body.get("vars")
    if isinstance(gvars, dict) and "ansible_group_priority" in gvars:
        try:
            int(gvars["ansible_group_priority"])
        except (TypeError, ValueError):
            problems.append(
                f"line {line_of(node, [*loc, 'vars', 'ansible_group_priority'])}: {where}.vars."
                "ansible_group_priority: must be a whole number"
            )
    for name, hvars in (
        (body.get("hosts") or {}).items() if isinstance(body.get("hosts"), dict) else ()
    ):
        if (
            not isinstance(name, str)
            or opaque(name)
            or not INVENTORY_HOST_RE.fullmatch(name)
            or (name.count(":") == 1 and HOST_PORT.fullmatch(name) is None)
        ):
            problems.append(
                f"line {line_of(node, [*loc, 'hosts'])}: {where}.hosts: {name_of(name)!r} is not a "
                "host name (letters, digits, '.', '-', ':'; host:port with a number)"
            )
            continue
        if hvars is not None and not isinstance(hvars, dict):
            problems.append(
                f"line {line_of(node, [*loc, 'hosts', name])}: {where}.hosts.{name}: host "
                f"variables must be a mapping, not {type(hvars).__name__}"
            )
    children = body.get("children")
    if isinstance(children, dict):
        for child, child_body in children.items():
            if child in ("all", "ungrouped"):
                problems.append(
                    f"line {line_of(node, [*loc, 'children', child])}: {where}.children: "
                    f"{child!r} is Ansible's own group, never a child of another"
                )
                continue
            walk_group(name_of(child), child_body, [*loc, "children", child], node, problems)
