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


#: the folders of variables Ansible reads beside an inventory, and the files it reads there
VARS_DIRS = ("group_vars", "host_vars")
VARS_SUFFIXES = ("", ".yml", ".yaml", ".json")


def vars_files(path: Path) -> list[Path]:
    """The files of ``group_vars/`` and ``host_vars/`` beside the inventory, which Ansible
    reads with it (no extension, .yml, .yaml or .json; folders per group or host too)."""
    base = path if path.is_dir() else path.parent
    out = []
    for sub in VARS_DIRS:
        folder = base / sub
        if folder.is_dir():
            out += sorted(
                p for p in folder.rglob("*") if p.suffix in VARS_SUFFIXES and not p.is_dir()
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
    for file in vars_files(path):
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


def _effective(
    doc: dict[str, Any], var: str
) -> dict[str, tuple[int, Any, list[Any], dict[str, int]]]:
    """Per host of the ``storage`` group, as the inventory file alone settles ``var``: its
    priority (``HOST`` for the host's own value, else the depth of the deepest group that
    sets it, -1 where nothing does), the value, where it is set (or where the host is
    listed), and the groups the host belongs to with their depth (``all`` at -1)."""
    found: dict[str, tuple[int, Any, list[Any]]] = {}
    groups: dict[str, dict[str, int]] = {}
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
                found[name] = (HOST, hvars[var], [*loc, "hosts", name, var])
            else:
                found.setdefault(name, (-1, None, [*loc, "hosts", name]))
        children = body.get("children") if isinstance(body.get("children"), dict) else {}
        for child, child_body in children.items():
            members |= walk(str(child), child_body, [*loc, "children", child], depth + 1, storage)
        gvars = body.get("vars") if isinstance(body.get("vars"), dict) else {}
        for name in members:
            mine = groups.setdefault(name, {"all": -1})
            if group != "all":
                mine[group] = max(mine.get(group, depth), depth)
            if var in gvars and found.get(name, (-1,))[0] < depth:
                found[name] = (depth, gvars[var], [*loc, "vars", var])
        if storage:
            in_storage.update(members)
        return members

    for group, body in doc.items():
        walk(str(group), body, [group], 0, False)
    return {h: (*found[h], groups.get(h, {"all": -1})) for h in found if h in in_storage}


#: the priority of a host's own value in ``_effective`` (above any group's depth)
HOST = 10**6


def _vars_file_settings(path: Path, var: str) -> dict[tuple[str, str], tuple[Any, str]]:
    """``var`` as the ``group_vars``/``host_vars`` files beside the inventory set it, by
    (folder, group or host name): the value and where (file and line). A file sealed whole
    with Ansible Vault cannot be read and sets nothing here."""
    out: dict[tuple[str, str], tuple[Any, str]] = {}
    for file in vars_files(path):
        folder, rel = _vars_origin(path, file)
        try:
            data, node = _load(file)
        except InputError:
            continue  # inventory_problems names it
        if isinstance(data, dict) and var in data:
            out[(folder, rel)] = (data[var], f"{file}: line {_line(node, [var])}: {var}")
    return out


def _vars_origin(path: Path, file: Path) -> tuple[str, str]:
    """(``group_vars`` or ``host_vars``, the group or host a vars file belongs to)."""
    base = path if path.is_dir() else path.parent
    for folder in VARS_DIRS:
        root = base / folder
        if file.is_relative_to(root):
            rel = file.relative_to(root)
            if len(rel.parts) > 1:  # a folder per group or host
                return folder, rel.parts[0]
            return folder, rel.stem if rel.suffix else rel.name
    raise ValueError(f"{file} is not in {base}'s group_vars or host_vars")


def settled(path: Path, var: str) -> dict[str, tuple[Any, str]]:
    """Per host of the ``storage`` group: ``var`` as Ansible settles it from the inventory
    and the vars files beside it (lowest first: the inventory's group vars, deepest group
    last; ``group_vars/all``; ``group_vars/<group>``, deepest last; the inventory's host
    vars; ``host_vars/<host>``), and where it is set (None where nothing sets it)."""
    files = _vars_file_settings(path, var)
    out: dict[str, tuple[Any, str]] = {}
    for file in _files(path):
        try:
            data, node = _load(file)
        except InputError:
            continue  # inventory_problems names it
        if not isinstance(data, dict):
            continue
        for host, (prio, value, loc, groups) in _effective(data, var).items():
            where = f"{file}: line {_line(node, loc)}: {_where(loc)}"
            setting = (value, where) if prio >= 0 else (None, where)
            if prio < HOST:
                by_depth = sorted(groups.items(), key=lambda g: (g[1], g[0]))
                for group, _ in by_depth:  # all (-1) first, the deepest last
                    if ("group_vars", group) in files:
                        setting = files[("group_vars", group)]
            else:
                setting = (value, where)
            if ("host_vars", host) in files:
                setting = files[("host_vars", host)]
            out[host] = setting
    return out


def platform_inventory_problems(path: Path, platform: str) -> list[str]:
    """What in a (structurally sound) inventory cannot work with ``platform``: for the
    platforms that act on this machine, a storage host not driven with connection local,
    wherever it is set (the inventory, ``group_vars/``, ``host_vars/``)."""
    why = LOCAL_ONLY.get(platform)
    if why is None:
        return []
    problems = []
    for host, (value, where) in sorted(settled(path, "ansible_connection").items()):
        if value != "local":
            said = "does not set it" if value is None else f"has {value!r}"
            problems.append(
                f"{where}: platform {platform} needs ansible_connection: local on storage "
                f"host {host} ({why}); it {said}"
            )
    return problems
