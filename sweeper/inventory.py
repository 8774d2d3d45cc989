"""Checking an Ansible inventory before anything runs: structure, names, the groups we need.

Ansible itself accepts a lot and fails late (or runs against nothing); raidsweep refuses a
malformed inventory at spec time, naming the file, the line and the problem. YAML inventories
only (a folder of them, or one file); values tagged ``!vault`` or ``!unsafe`` are taken as
opaque strings and never shown.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from sweeper.errors import InputError
from sweeper.untrusted import control_problem, sanctioned, template_problem
from sweeper.vocabulary import INVENTORY_GROUP_RE, INVENTORY_HOST_RE
from sweeper.yamlsource import BoundedLoader, load_text, read_text

GROUP_KEYS = ("hosts", "children", "vars")
REQUIRED_GROUP = "storage"  # reconfigure.yml and teardown.yml run on it


class _InventoryLoader(BoundedLoader):
    """The bounded safe loader of every YAML input, with Ansible's tags for secrets and raw
    strings kept opaque."""


def _opaque(loader: yaml.SafeLoader, node: yaml.Node) -> str:
    return "<opaque>"


for _tag in ("!vault", "!unsafe", "!vault-encrypted"):
    _InventoryLoader.add_constructor(_tag, _opaque)


def _files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.iterdir() if p.suffix in (".yml", ".yaml"))
    return [path]


def _load(path: Path) -> tuple[Any, yaml.Node | None]:
    return load_text(read_text(path), str(path), _InventoryLoader)


def _line(node: yaml.Node | None, loc: list[Any]) -> int:
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


def _walk(
    group: str,
    body: Any,
    loc: list[Any],
    node: yaml.Node | None,
    problems: list[str],
    hosts: dict[str, set[str]],
) -> None:
    where = ".".join(str(p) for p in loc)
    if not INVENTORY_GROUP_RE.fullmatch(group):
        problems.append(f"line {_line(node, loc)}: {where}: {group!r} is not a group name")
        return
    hosts.setdefault(group, set())
    if body is None:
        return
    if not isinstance(body, dict):
        kind = type(body).__name__
        problems.append(f"line {_line(node, loc)}: {where}: a group must be a mapping, not {kind}")
        return
    for key in body:
        if key not in GROUP_KEYS:
            problems.append(
                f"line {_line(node, [*loc, key])}: {where}.{key}: unknown key "
                f"(a group has {', '.join(GROUP_KEYS)})"
            )
    for key in ("hosts", "children", "vars"):
        value = body.get(key)
        if value is not None and not isinstance(value, dict):
            problems.append(
                f"line {_line(node, [*loc, key])}: {where}.{key}: must be a mapping, "
                f"not {type(value).__name__}"
            )
    for name, hvars in (
        (body.get("hosts") or {}).items() if isinstance(body.get("hosts"), dict) else ()
    ):
        if not isinstance(name, str) or not INVENTORY_HOST_RE.fullmatch(name):
            problems.append(
                f"line {_line(node, [*loc, 'hosts'])}: {where}.hosts: {str(name)!r} is not a "
                "host name (letters, digits, '.', '-', ':')"
            )
            continue
        if hvars is not None and not isinstance(hvars, dict):
            problems.append(
                f"line {_line(node, [*loc, 'hosts', name])}: {where}.hosts.{name}: host "
                f"variables must be a mapping, not {type(hvars).__name__}"
            )
        hosts[group].add(name)
    children = body.get("children")
    if isinstance(children, dict):
        for child, child_body in children.items():
            _walk(str(child), child_body, [*loc, "children", child], node, problems, hosts)
            if isinstance(child, str) and child in hosts:
                hosts[group] |= hosts[child]


def _where(loc: list[Any]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".")


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
            problems.append(f"line {_line(node, at)}: {_where(at)}: {problem}")

    if isinstance(data, str):
        check(data, loc)
    elif isinstance(data, dict):
        for key, value in data.items():
            if isinstance(key, str):
                check(key, [*loc, key])
            if not sanctioned(key, value):
                problems += text_problems(value, node, [*loc, key])
    elif isinstance(data, list):
        for i, value in enumerate(data):
            problems += text_problems(value, node, [*loc, i])
    return problems


def _var_files(path: Path) -> list[Path]:
    """The files of ``group_vars/`` and ``host_vars/`` beside the inventory, which Ansible
    reads with it (no extension, .yml, .yaml or .json; folders per group or host too)."""
    base = path if path.is_dir() else path.parent
    out = []
    for sub in ("group_vars", "host_vars"):
        folder = base / sub
        if folder.is_dir():
            out += sorted(
                p
                for p in folder.rglob("*")
                if p.suffix in ("", ".yml", ".yaml", ".json") and not p.is_dir()
            )
    return out


def inventory_problems(path: Path) -> list[str]:
    """Problems of the YAML inventory at ``path`` (a file or a folder of files), each naming
    its file and line; empty when the inventory is fit to run the playbooks."""
    problems: list[str] = []
    hosts: dict[str, set[str]] = {}
    files = _files(path)
    if not files:
        return [f"{path}: a folder without YAML inventory files"]
    for file in files:
        try:
            data, node = _load(file)
        except InputError as exc:
            problems += [f"{exc.source}: {p}" for p in exc.problems]
            continue
        if not isinstance(data, dict):
            kind = type(data).__name__ if data is not None else "empty"
            problems.append(f"{file}: line 1: an inventory must be a mapping of groups, not {kind}")
            continue
        mine: list[str] = text_problems(data, node)
        for group, body in data.items():
            _walk(str(group), body, [group], node, mine, hosts)
        problems += [f"{file}: {p}" for p in mine]
    for file in _var_files(path):
        try:
            data, node = _load(file)
        except InputError as exc:
            problems += [f"{exc.source}: {p}" for p in exc.problems]
            continue
        problems += [f"{file}: {p}" for p in text_problems(data, node)]
    if not problems and not hosts.get(REQUIRED_GROUP):
        problems.append(
            f"{path}: no host in group {REQUIRED_GROUP!r} (the playbooks reconfigure the "
            "storage through it)"
        )
    return problems


#: platforms whose plays act on this machine, so their storage hosts must be driven with
#: ``ansible_connection: local`` (anything else would build or measure on another host)
LOCAL_ONLY = {
    "sim": "the simulated array's state lives in the store on this machine",
    "local": "the local platform's target is on this machine, where fio runs",
}


def _effective(doc: dict[str, Any], var: str) -> dict[str, tuple[Any, list[Any]]]:
    """Per host of the ``storage`` group: the value of ``var`` as Ansible would settle it (a
    host's own value, else the deepest group's that sets it, ``all`` last) and where it is
    set (or where the host is listed, when nothing sets it)."""
    found: dict[str, tuple[int, Any, list[Any]]] = {}
    in_storage: set[str] = set()

    def walk(group: str, body: Any, loc: list[Any], depth: int, storage: bool) -> set[str]:
        if not isinstance(body, dict):
            return set()
        storage = storage or group == REQUIRED_GROUP
        members: set[str] = set()
        hosts = body.get("hosts") if isinstance(body.get("hosts"), dict) else {}
        for name, hvars in hosts.items():
            members.add(name)
            if isinstance(hvars, dict) and var in hvars:
                found[name] = (10**6, hvars[var], [*loc, "hosts", name, var])
            else:
                found.setdefault(name, (-1, None, [*loc, "hosts", name]))
        children = body.get("children") if isinstance(body.get("children"), dict) else {}
        for child, child_body in children.items():
            members |= walk(str(child), child_body, [*loc, "children", child], depth + 1, storage)
        gvars = body.get("vars") if isinstance(body.get("vars"), dict) else {}
        if var in gvars:
            for name in members:
                if found.get(name, (-1,))[0] < depth:
                    found[name] = (depth, gvars[var], [*loc, "vars", var])
        if storage:
            in_storage.update(members)
        return members

    for group, body in doc.items():
        walk(str(group), body, [group], 0, False)
    return {h: (v, loc) for h, (_, v, loc) in found.items() if h in in_storage}


def platform_inventory_problems(path: Path, platform: str) -> list[str]:
    """What in a (structurally sound) inventory cannot work with ``platform``: for the
    platforms that act on this machine, a storage host not driven with connection local."""
    why = LOCAL_ONLY.get(platform)
    if why is None:
        return []
    problems = []
    for file in _files(path):
        try:
            data, node = _load(file)
        except InputError:
            continue  # inventory_problems names it
        if not isinstance(data, dict):
            continue
        for host, (value, loc) in sorted(_effective(data, "ansible_connection").items()):
            if value != "local":
                said = "does not set it" if value is None else f"has {value!r}"
                problems.append(
                    f"{file}: line {_line(node, loc)}: {_where(loc)}: platform {platform} "
                    f"needs ansible_connection: local on storage host {host} ({why}); it "
                    f"{said}"
                )
    return problems
