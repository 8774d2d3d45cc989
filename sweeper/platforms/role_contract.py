"""What raidsweep requires of a role of the user's (``platform: ansible``), checked before
the first configuration: entry points ``main`` and ``teardown`` declared in
``meta/argument_specs.yml``, every dimension mapped to a variable ``main`` declares (with the
dimension's values among the variable's ``choices`` and of its type), and a task that sets
the test target ``raidsweep_target``. The role's own argument spec is enforced again by
Ansible itself when the role runs.

Every file of the role raidsweep reads is read as every other input is
(``yamlsource.read_text`` and ``load_text``): a regular file within the size and nesting
bounds, UTF-8, never a FIFO or a device; a file it cannot read is a problem naming the file
(and line), never a traceback or a wait. Its scalars are read as Ansible reads them (YAML 1.1:
``mode: 0644`` is octal), its tags ``!vault`` and ``!unsafe`` kept opaque."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from sweeper.errors import InputError
from sweeper.inventory.tags import InventoryLoader
from sweeper.yamlsource import MAX_NUMBER_CHARS, load_text, read_text

#: what a dimension's values are, as an argument spec's ``type`` must accept them
DIMENSION_TYPES = {
    "raid_level": ("str", "raw"),
    "layout": ("str", "raw"),
    "cache_policy": ("str", "raw"),
    "ranks": ("int", "raw"),
    "stripe_kib": ("int", "raw"),
    "snapshots": ("bool", "raw"),
    "data_reduction": ("bool", "raw"),
}
ENTRY_POINTS = ("main", "teardown")


class RoleLoader(InventoryLoader):
    """The bounded loader with Ansible's tags, reading numbers as Ansible does: a role's
    ``mode: 0644`` or ``1:30`` is the role's business, not a raidsweep setting to refuse. A
    number longer than any setting is still refused (Python reads a long base-60 one in
    quadratic time)."""

    def construct_yaml_int(self, node: Any) -> Any:
        if isinstance(node.value, str) and len(node.value) > MAX_NUMBER_CHARS:
            return super().construct_yaml_int(node)  # refused, naming the line
        return yaml.constructor.SafeConstructor.construct_yaml_int(self, node)

    def construct_yaml_float(self, node: Any) -> Any:
        return yaml.constructor.SafeConstructor.construct_yaml_float(self, node)


RoleLoader.add_constructor("tag:yaml.org,2002:int", RoleLoader.construct_yaml_int)
RoleLoader.add_constructor("tag:yaml.org,2002:float", RoleLoader.construct_yaml_float)


def role_file(path: Path) -> Any:
    """The data of one YAML file of the role, read within the bounds of every input; a
    ValueError naming the file (and line) and the problem otherwise."""
    try:
        data, _ = load_text(read_text(path, kind="role file"), str(path), RoleLoader)
    except InputError as exc:
        raise ValueError(f"{exc.source}: {'; '.join(exc.problems)}") from None
    return data


def argument_specs(role: Path) -> dict[str, Any]:
    """The role's ``meta/argument_specs.yml`` entry points (``argument_specs`` mapping)."""
    path = role / "meta" / "argument_specs.yml"
    doc = role_file(path)
    specs = doc.get("argument_specs") if isinstance(doc, dict) else None
    if not isinstance(specs, dict):
        raise ValueError(f"{path}: no argument_specs mapping")
    return specs


def sets_target(role: Path) -> bool:
    """Whether a task of the role sets the fact ``raidsweep_target`` (read from its task
    files as YAML: a ``set_fact`` whose keys include it). Every task file is read; one that
    cannot be is a ValueError naming it."""
    found = False
    for path in sorted((role / "tasks").glob("*.y*ml")):
        found = _sets_target(role_file(path)) or found
    return found


def _sets_target(tasks: Any) -> bool:
    if not isinstance(tasks, list):
        return False
    for task in tasks:
        if not isinstance(task, dict):
            continue
        for key in ("set_fact", "ansible.builtin.set_fact"):
            if isinstance(task.get(key), dict) and "raidsweep_target" in task[key]:
                return True
        if any(_sets_target(task.get(k)) for k in ("block", "rescue", "always")):
            return True
    return False


def contract_problems(
    role: Path, variables: dict[str, str], values: dict[str, list[Any]]
) -> list[tuple[str, str]]:
    """(option key, problem) pairs of the role and the spec's mapping ``variables``
    (dimension -> the role's variable); ``values``: each dimension's values in the space."""
    main = role / "tasks" / "main.yml"
    if not (main.exists() or main.is_symlink()):
        return [("role", f"{role} is not a role (no tasks/main.yml)")]
    try:
        specs = argument_specs(role)
    except ValueError as exc:
        return [("role", str(exc))]
    problems = [
        ("role", f"{role}: meta/argument_specs.yml declares no entry point {entry!r}")
        for entry in ENTRY_POINTS
        if not isinstance(specs.get(entry), dict)
    ]
    if problems:
        return problems
    declared = specs["main"].get("options") or {}
    for dim, var in variables.items():
        option = declared.get(var)
        if not isinstance(option, dict):
            known = ", ".join(sorted(declared)) or "none"
            why = f"{var!r} is not a variable the role's main declares (it declares: {known})"
            problems.append((f"variables.{dim}", why))
            continue
        kind = option.get("type", "str")
        if kind not in DIMENSION_TYPES.get(dim, ("raw",)):
            needs = " or ".join(DIMENSION_TYPES[dim])
            why = f"the role declares {var} of type {kind}; {dim} needs {needs}"
            problems.append((f"variables.{dim}", why))
            continue
        choices = option.get("choices")
        if choices:
            outside = [v for v in values.get(dim, []) if v is not None and v not in choices]
            if outside:
                shown = ", ".join(str(v) for v in outside)
                offered = ", ".join(str(c) for c in choices)
                why = f"{shown} not among the choices the role declares for {var} ({offered})"
                problems.append((f"variables.{dim}", why))
    try:
        target = sets_target(role)
    except ValueError as exc:
        return [*problems, ("role", str(exc))]
    if not target:
        why = "no task sets the test target (set_fact raidsweep_target: the device path"
        problems.append(("role", f"{role}: {why} the load host sees)"))
    return problems
