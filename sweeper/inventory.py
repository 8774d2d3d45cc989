"""Checking an Ansible inventory before anything runs, and the one reading of it that every
side uses.

Ansible itself accepts a lot and fails late (or runs against nothing); raidsweep refuses a
malformed inventory at spec time, naming the file, the line and the problem. YAML inventories
only (a folder of them, or one file); values tagged ``!vault`` or ``!unsafe`` are taken as
opaque strings and never shown.

One reading for everyone (``read_inventory``): the files the checks read are the files the
plays get (as the marked copy of ``ansible_vars.inventory_copy``) and the files raidsweep
itself takes a host's connection from (``sweeper.remote``: fio's SSH target, the host lock's
identity, linux_md's device lists), with each host's variables settled here as Ansible settles
them, from the same parsed data: no Ansible inventory plugin runs, nothing is executed.

A file in an inventory folder that Ansible would read and raidsweep would not is refused,
naming it: an INI file (a leftover ``hosts`` beside the YAML is the usual one), a JSON file,
an executable (Ansible runs it as an inventory script), a subfolder (Ansible reads the files
in it). Taking it silently would let ``ansible-playbook -i FOLDER`` and raidsweep act on
different hosts; reading it would mean running it. Files Ansible itself skips there (hidden
ones, ``README.md``, ``*.bak``, ``*~`` …) are skipped alike.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from sweeper.errors import InputError
from sweeper.untrusted import control_problem, sanctioned, template_problem
from sweeper.vocabulary import INVENTORY_GROUP_RE, INVENTORY_HOST_RE
from sweeper.yamlsource import BoundedLoader, load_text, read_text

GROUP_KEYS = ("hosts", "children", "vars")
REQUIRED_GROUP = "storage"  # reconfigure.yml and teardown.yml run on it


class Sealed(str):
    """A value sealed with Ansible Vault (``!vault``): its ciphertext, passed on sealed and
    never read or shown."""


class Unsafe(str):
    """A value tagged ``!unsafe``: data Ansible never templates (so the checks let it be)."""


def opaque(value: Any) -> bool:
    """Whether ``value`` is tagged ``!vault`` or ``!unsafe`` (kept as it is, never checked)."""
    return isinstance(value, Sealed | Unsafe)


def shown(value: Any) -> str:
    """``value`` as a message may show it: a sealed one never."""
    return "a value sealed with Vault" if isinstance(value, Sealed) else repr(value)


class _InventoryLoader(BoundedLoader):
    """The bounded safe loader of every YAML input, with Ansible's tags for secrets and raw
    strings kept as what they are."""


def _sealed(loader: yaml.SafeLoader, node: yaml.Node) -> Sealed:
    return Sealed(loader.construct_scalar(node))  # type: ignore[arg-type]


def _unsafe(loader: yaml.SafeLoader, node: yaml.Node) -> Unsafe:
    return Unsafe(loader.construct_scalar(node))  # type: ignore[arg-type]


for _tag in ("!vault", "!vault-encrypted"):
    _InventoryLoader.add_constructor(_tag, _sealed)
_InventoryLoader.add_constructor("!unsafe", _unsafe)

#: an inventory file is YAML by its name: the only files of an inventory folder raidsweep reads
YAML_SUFFIXES = (".yml", ".yaml")
#: what Ansible itself skips in an inventory folder (hidden names, the vars folders, and the
#: endings of its ``INVENTORY_IGNORE_EXTS`` default): nobody reads these
_ANSIBLE_SKIPS = re.compile(
    r"^\.|^(?:host_vars|group_vars|vars_plugins)$"
    r"|(?:\.pyc|\.pyo|\.swp|\.bak|~|\.rpm|\.md|\.txt|\.rst|\.orig|\.cfg|\.retry)$"
)
#: the text a file sealed whole with Ansible Vault starts with
VAULT_FILE = "$ANSIBLE_VAULT;"


def _executable(path: Path) -> list[str]:
    try:
        st = path.stat()
    except OSError:
        return []  # reading it names the problem
    if stat.S_ISREG(st.st_mode) and st.st_mode & 0o111:
        return [
            f"{path}: is executable: Ansible would run it as an inventory script; raidsweep "
            "never runs one and reads it as YAML, so the two would act on different hosts "
            f"(remove its execute permission: chmod a-x {path.name})"
        ]
    return []


def _listed(path: Path) -> tuple[list[Path], list[str]]:
    """The inventory files raidsweep reads at ``path`` (the file, or the folder's YAML files
    in Ansible's order), and a problem for each other file there that Ansible would read."""
    if not path.is_dir():
        return [path], _executable(path)
    files: list[Path] = []
    problems: list[str] = []
    for entry in sorted(path.iterdir()):
        if _ANSIBLE_SKIPS.search(entry.name):
            continue
        if entry.is_dir():
            problems.append(
                f"{entry}: a folder in the inventory folder: Ansible would read the inventory "
                "files in it, raidsweep reads only the folder's own *.yml and *.yaml files "
                "(move it out of the inventory folder)"
            )
        elif entry.suffix not in YAML_SUFFIXES and _executable(entry):
            problems.append(
                f"{entry}: an executable file in the inventory folder: Ansible would run it as "
                "an inventory script, raidsweep never runs one (nor reads a file that is not "
                "*.yml or *.yaml), so the two would act on different hosts; move it out of the "
                "inventory folder"
            )
        elif entry.suffix not in YAML_SUFFIXES:
            problems.append(
                f"{entry}: not a YAML inventory file (*.yml, *.yaml): Ansible would read it too "
                "(as an INI inventory; a leftover INI 'hosts' file is the usual one), raidsweep "
                "never reads it, so the plays and raidsweep would act on other hosts than "
                "ansible-playbook -i with this folder would; convert it to YAML, or move it out "
                "of the inventory folder"
            )
        else:
            files.append(entry)
            problems += _executable(entry)
    return files, problems


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


def _name(value: Any) -> str:
    return "<opaque>" if opaque(value) else str(value)


def _walk(
    group: str, body: Any, loc: list[Any], node: yaml.Node | None, problems: list[str]
) -> None:
    where = ".".join(_name(p) for p in loc)
    if not INVENTORY_GROUP_RE.fullmatch(group) or opaque(group):
        problems.append(f"line {_line(node, loc)}: {where}: {_name(group)!r} is not a group name")
        return
    if body is None:
        return
    if not isinstance(body, dict):
        kind = type(body).__name__
        problems.append(f"line {_line(node, loc)}: {where}: a group must be a mapping, not {kind}")
        return
    for key in body:
        if key not in GROUP_KEYS:
            problems.append(
                f"line {_line(node, [*loc, key])}: {where}.{_name(key)}: unknown key "
                f"(a group has {', '.join(GROUP_KEYS)})"
            )
    for key in ("hosts", "children", "vars"):
        value = body.get(key)
        if value is not None and not isinstance(value, dict):
            problems.append(
                f"line {_line(node, [*loc, key])}: {where}.{key}: must be a mapping, "
                f"not {type(value).__name__}"
            )
    gvars = body.get("vars")
    if isinstance(gvars, dict) and "ansible_group_priority" in gvars:
        try:
            int(gvars["ansible_group_priority"])
        except (TypeError, ValueError):
            problems.append(
                f"line {_line(node, [*loc, 'vars', 'ansible_group_priority'])}: {where}.vars."
                "ansible_group_priority: must be a whole number"
            )
    for name, hvars in (
        (body.get("hosts") or {}).items() if isinstance(body.get("hosts"), dict) else ()
    ):
        if (
            not isinstance(name, str)
            or opaque(name)
            or not INVENTORY_HOST_RE.fullmatch(name)
            or (name.count(":") == 1 and _HOST_PORT.fullmatch(name) is None)
        ):
            problems.append(
                f"line {_line(node, [*loc, 'hosts'])}: {where}.hosts: {_name(name)!r} is not a "
                "host name (letters, digits, '.', '-', ':'; host:port with a number)"
            )
            continue
        if hvars is not None and not isinstance(hvars, dict):
            problems.append(
                f"line {_line(node, [*loc, 'hosts', name])}: {where}.hosts.{name}: host "
                f"variables must be a mapping, not {type(hvars).__name__}"
            )
    children = body.get("children")
    if isinstance(children, dict):
        for child, child_body in children.items():
            if child in ("all", "ungrouped"):
                problems.append(
                    f"line {_line(node, [*loc, 'children', child])}: {where}.children: "
                    f"{child!r} is Ansible's own group, never a child of another"
                )
                continue
            _walk(_name(child), child_body, [*loc, "children", child], node, problems)


def _where(loc: list[Any]) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{_name(p)}" for p in loc).lstrip(".")


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


#: the folders of variables Ansible reads beside an inventory, and the files it reads there
VARS_DIRS = ("group_vars", "host_vars")
VARS_SUFFIXES = ("", ".yml", ".yaml", ".json")


def _skipped_part(part: str) -> bool:
    """A name Ansible skips in a vars folder: hidden, or a backup (``~``)."""
    return part.startswith(".") or part.endswith("~")


def vars_files(path: Path) -> list[Path]:
    """The files of ``group_vars/`` and ``host_vars/`` beside the inventory, which Ansible
    reads with it (no extension, .yml, .yaml or .json; folders per group or host too; hidden
    files and backups, which Ansible skips, left out)."""
    return _vars_entries(path, lambda p: p.suffix in VARS_SUFFIXES and not p.is_dir())


def vars_folders(path: Path) -> list[Path]:
    """The folders under ``group_vars/`` and ``host_vars/`` beside the inventory (hidden ones,
    which Ansible skips, left out)."""
    return _vars_entries(path, Path.is_dir)


def _vars_entries(path: Path, wanted: Callable[[Path], bool]) -> list[Path]:
    """The ``wanted`` entries under ``group_vars/`` and ``host_vars/`` beside the inventory,
    each folder's sorted, none under a part Ansible skips."""
    base = path if path.is_dir() else path.parent
    out = []
    for sub in VARS_DIRS:
        folder = base / sub
        if folder.is_dir():
            out += sorted(
                p
                for p in folder.rglob("*")
                if wanted(p) and not any(_skipped_part(s) for s in p.relative_to(folder).parts)
            )
    return out


@dataclass(frozen=True)
class InventoryFile:
    """One file of an inventory as read once: its data and node tree, or, for a vars file the
    user sealed whole with Ansible Vault, its text (which raidsweep cannot read)."""

    path: Path
    data: Any = None
    node: yaml.Node | None = None
    sealed: str | None = None


@dataclass(frozen=True)
class Inventory:
    """An inventory as raidsweep reads it, for the checks, the plays' copy and remote alike."""

    path: Path
    #: the inventory files, in the order Ansible reads them
    files: tuple[InventoryFile, ...]
    #: the ``group_vars``/``host_vars`` files beside it
    vars: tuple[InventoryFile, ...]
    #: why it cannot be read as Ansible would read it: a file raidsweep would not read, a file
    #: that is not YAML, a structure Ansible would refuse or read otherwise
    shape: tuple[str, ...]
    #: template syntax or control characters in its names and values
    text: tuple[str, ...]
    #: the folders under ``group_vars``/``host_vars`` (an empty one too: Ansible takes a folder
    #: ``group_vars/<group>/`` before a file ``group_vars/<group>.yml``, even with nothing in it)
    folders: tuple[Path, ...] = ()

    @property
    def base(self) -> Path:
        """The folder whose ``group_vars``/``host_vars`` Ansible reads."""
        return self.path if self.path.is_dir() else self.path.parent

    @property
    def problems(self) -> list[str]:
        return [*self.shape, *self.text]

    def sets(self, var: str) -> bool:
        """Whether a group or host of the inventory, or a vars file beside it that raidsweep
        can read, sets ``var``."""
        model = _Model(self)
        return (
            any(var in h.vars for h in model.hosts.values())
            or any(var in g.vars for g in model.groups.values())
            or any(isinstance(f.data, dict) and var in f.data for f in self.vars)
        )


def _read(path: Path) -> tuple[Any, yaml.Node | None, str | None]:
    text = read_text(path)
    if text.startswith(VAULT_FILE):
        return None, None, text
    data, node = load_text(text, str(path), _InventoryLoader)
    return data, node, None


def read_inventory(path: Path) -> Inventory:
    """Read the YAML inventory at ``path`` (a file or a folder of files) and the vars files
    beside it, each once, with every problem named by file and line (none raised)."""
    path = Path(path)
    names, shape = _listed(path)
    text: list[str] = []
    files: list[InventoryFile] = []
    if not names:
        shape.append(f"{path}: a folder without YAML inventory files")
    for file in names:
        try:
            data, node, sealed = _read(file)
        except InputError as exc:
            shape += [f"{exc.source}: {p}" for p in exc.problems]
            continue
        if sealed is not None:
            shape.append(
                f"{file}: line 1: the whole file is sealed with Ansible Vault: raidsweep must "
                "read the inventory's groups and hosts; seal only the secret values "
                "(ansible-vault encrypt_string)"
            )
            continue
        if not isinstance(data, dict):
            kind = type(data).__name__ if data is not None else "empty"
            shape.append(f"{file}: line 1: an inventory must be a mapping of groups, not {kind}")
            continue
        mine: list[str] = []
        if "plugin" in data:
            mine.append(
                f"line {_line(node, ['plugin'])}: plugin: an inventory plugin's configuration, "
                "not a YAML inventory (raidsweep reads static YAML inventories only)"
            )
        for group, body in data.items():
            _walk(_name(group), body, [group], node, mine)
        shape += [f"{file}: {p}" for p in mine]
        text += [f"{file}: {p}" for p in text_problems(data, node)]
        files.append(InventoryFile(file, data, node))
    kept: list[InventoryFile] = []
    for file in vars_files(path):
        try:
            data, node, sealed = _read(file)
        except InputError as exc:
            shape += [f"{exc.source}: {p}" for p in exc.problems]
            continue
        if sealed is None and data is not None and not isinstance(data, dict):
            shape.append(
                f"{file}: line 1: a vars file must be a mapping of variables, not "
                f"{type(data).__name__}"
            )
            continue
        text += [f"{file}: {p}" for p in text_problems(data, node)]
        kept.append(InventoryFile(file, data, node, sealed))
    folders = tuple(vars_folders(path))
    inventory = Inventory(path, tuple(files), tuple(kept), tuple(shape), tuple(text), folders)
    if not shape:
        shape += _Model(inventory).problems
        inventory = Inventory(path, tuple(files), tuple(kept), tuple(shape), tuple(text), folders)
    return inventory


def load_inventory(path: Path) -> Inventory:
    """The inventory at ``path`` read as Ansible will read raidsweep's copy of it; an
    InputError naming each file and line where it could not be (see ``Inventory.shape``).
    What the plays get and what raidsweep connects to both come from here."""
    inventory = read_inventory(path)
    if inventory.shape:
        raise InputError(str(path), list(inventory.shape))
    return inventory


def inventory_problems(path: Path) -> list[str]:
    """Problems of the YAML inventory at ``path`` (a file or a folder of files), each naming
    its file and line; empty when the inventory is fit to run the playbooks."""
    inventory = read_inventory(path)
    problems = inventory.problems
    if not problems and not _Model(inventory).hosts_of(REQUIRED_GROUP):
        problems.append(
            f"{path}: no host in group {REQUIRED_GROUP!r} (the playbooks reconfigure the "
            "storage through it)"
        )
    return problems


# --- each host's variables, as Ansible settles them ---------------------------------------------

_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
#: a host written with its port (``name:2222``), as Ansible's YAML inventory reads it
_HOST_PORT = re.compile(rf"({_LABEL}(?:\.{_LABEL})*):([0-9]+)")


def _host_port(pattern: str) -> tuple[str, int | None]:
    m = _HOST_PORT.fullmatch(pattern)
    if m is None:
        return pattern, None
    return m.group(1), int(m.group(2)) or None  # port 0: none, as Ansible takes it


#: a value and where it is set (``file: line N: place``)
Setting = tuple[Any, str]


@dataclass
class _Group:
    name: str
    vars: dict[str, Setting] = field(default_factory=dict)
    children: list[str] = field(default_factory=list)
    parents: list[str] = field(default_factory=list)
    hosts: list[str] = field(default_factory=list)
    priority: int = 1


@dataclass
class _Host:
    name: str
    listed: str
    vars: dict[str, Setting] = field(default_factory=dict)
    groups: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class HostSettings:
    """One host's variables as Ansible settles them from the inventory and the vars files
    beside it (magic variables ``inventory_hostname`` and ``group_names`` included)."""

    name: str
    vars: dict[str, Any]
    #: where each variable's value is set
    where: dict[str, str]
    #: where the host is first listed
    listed: str
    #: vars files of its groups or of itself sealed whole with Vault (unread here)
    sealed: tuple[Path, ...] = ()


class _Model:
    """The groups and hosts of an inventory as Ansible's YAML inventory plugin builds them
    from the files in order (``ansible.plugins.inventory.yaml``, ``InventoryData``)."""

    def __init__(self, inventory: Inventory):
        self.inventory = inventory
        self.groups: dict[str, _Group] = {}
        self.hosts: dict[str, _Host] = {}
        self.problems: list[str] = []
        self._group("all")
        self._group("ungrouped")
        self._child("all", "ungrouped", "")
        for f in inventory.files:
            if isinstance(f.data, dict):
                for name, body in f.data.items():
                    self._parse(f, _name(name), body, [name])
        for name, group in list(self.groups.items()):  # every group is under all
            if name != "all" and not group.parents:
                self._child("all", name, "")
        for host in self.hosts.values():
            mine = self._ancestry(host)
            if "ungrouped" in mine and mine - {"all", "ungrouped"}:
                self.groups["ungrouped"].hosts.remove(host.name)
                host.groups.remove("ungrouped")
            elif not mine - {"all"}:
                self.groups["ungrouped"].hosts.append(host.name)
                host.groups.append("ungrouped")
        self._depths: dict[str, int] = {}

    def _group(self, name: str) -> _Group:
        return self.groups.setdefault(name, _Group(name))

    def _parse(self, f: InventoryFile, name: str, body: Any, loc: list[Any]) -> None:
        group = self._group(name)
        if not isinstance(body, dict):
            return
        for key, value in body.items():
            if not isinstance(value, dict):
                continue  # None, or not a mapping (which the checks refuse)
            if key == "vars":
                for var, v in value.items():
                    if var == "ansible_group_priority":
                        try:
                            group.priority = int(v)
                        except (TypeError, ValueError):
                            pass  # the checks refuse it
                    else:
                        group.vars[var] = (v, self._at(f, [*loc, key, var]))
            elif key == "children":
                for child, child_body in value.items():
                    self._parse(f, _name(child), child_body, [*loc, key, child])
                    self._child(name, _name(child), self._at(f, [*loc, key, child]))
            elif key == "hosts":
                for pattern, hvars in value.items():
                    host = self._host(f, _name(pattern), name, [*loc, key, pattern])
                    for var, v in (hvars or {}).items() if isinstance(hvars, dict) else ():
                        host.vars[var] = (v, self._at(f, [*loc, key, pattern, var]))

    @staticmethod
    def _at(f: InventoryFile, loc: list[Any]) -> str:
        return f"{f.path}: line {_line(f.node, loc)}: {_where(loc)}"

    def _host(self, f: InventoryFile, pattern: str, group: str, loc: list[Any]) -> _Host:
        name, port = _host_port(pattern)
        host = self.hosts.get(name)
        if host is None:
            host = self.hosts[name] = _Host(name, self._at(f, loc))
            if port:  # set when the host is first seen, as Ansible does
                host.vars["ansible_port"] = (port, host.listed)
        if name not in self.groups[group].hosts:
            self.groups[group].hosts.append(name)
            host.groups.append(group)
        return host

    def _child(self, parent: str, child: str, where: str) -> None:
        if child == parent or child in self._ancestors(parent):
            self.problems.append(
                f"{where or child}: group {child} would be its own ancestor (a loop of "
                "children, which Ansible refuses)"
            )
            return
        if child not in self.groups[parent].children:
            self.groups[parent].children.append(child)
        if parent not in self.groups[child].parents:
            self.groups[child].parents.append(parent)

    def _ancestors(self, name: str) -> set[str]:
        seen: set[str] = set()
        todo = list(self.groups[name].parents)
        while todo:
            g = todo.pop()
            if g not in seen:
                seen.add(g)
                todo += self.groups[g].parents
        return seen

    def _ancestry(self, host: _Host) -> set[str]:
        out: set[str] = set()
        for g in host.groups:
            out |= {g} | self._ancestors(g)
        return out

    def depth(self, name: str) -> int:
        """The group's depth: its longest way down from ``all`` (Ansible's ``Group.depth``)."""
        if name not in self._depths:
            parents = self.groups[name].parents
            self._depths[name] = max((self.depth(p) + 1 for p in parents), default=0)
        return self._depths[name]

    def hosts_of(self, group: str) -> list[str]:
        """The hosts of ``group`` and its descendants, the group's own first."""
        if group not in self.groups:
            return []
        order, seen = [group], {group}
        for name in order:
            for child in self.groups[name].children:
                if child not in seen:
                    seen.add(child)
                    order.append(child)
        hosts: list[str] = []
        for name in order:
            hosts += [h for h in self.groups[name].hosts if h not in hosts]
        return hosts

    def _vars_files(self, sub: str, name: str) -> list[InventoryFile]:
        """The vars files Ansible reads for a group or host ``name`` in ``sub`` (its
        ``find_vars_files`` on the copy, which holds exactly the files read here): the first
        of ``name``, ``name.yml``, ``name.yaml``, ``name.json`` there, a file or a folder
        (whose files it reads in order, hidden ones and backups skipped)."""
        root = self.inventory.base / sub
        rels = {
            f.path.relative_to(root): f for f in self.inventory.vars if f.path.is_relative_to(root)
        }
        folders = {p.relative_to(root) for p in self.inventory.folders if p.is_relative_to(root)}
        for candidate in (name, *(name + s for s in VARS_SUFFIXES[1:])):
            if Path(candidate) in rels:
                return [rels[Path(candidate)]]
            if Path(candidate) in folders:
                under = sorted(r for r in rels if len(r.parts) > 1 and r.parts[0] == candidate)
                return [rels[r] for r in under if _read_in_folder(r)]
        return []

    def settings(self, name: str) -> HostSettings:
        """The host's variables, lowest first as Ansible's default precedence has them: the
        inventory's ``all`` vars, its other groups' vars (shallow groups first, then by
        ``ansible_group_priority`` and name), ``group_vars/all``, ``group_vars/<group>`` in
        that order, the host's own inventory vars, ``host_vars/<host>``."""
        host = self.hosts[name]
        ancestry = self._ancestry(host) | {"all"}
        groups = sorted(
            ancestry - {"all"}, key=lambda g: (self.depth(g), self.groups[g].priority, g)
        )
        settled: dict[str, Setting] = dict(self.groups["all"].vars)
        for g in groups:
            settled |= self.groups[g].vars
        sealed: list[Path] = []
        for sub, entity in [("group_vars", g) for g in ("all", *groups)] + [("host_vars", name)]:
            if sub == "host_vars":
                settled |= host.vars
            for f in self._vars_files(sub, entity):
                if f.sealed is not None:
                    sealed.append(f.path)
                elif isinstance(f.data, dict):
                    settled |= {
                        k: (v, f"{f.path}: line {_line(f.node, [k])}: {_name(k)}")
                        for k, v in f.data.items()
                    }
        values = {k: v for k, (v, _) in settled.items()}
        values |= {"inventory_hostname": name, "group_names": sorted(ancestry - {"all"})}
        where = {k: w for k, (_, w) in settled.items()}
        return HostSettings(name, values, where, host.listed, tuple(sealed))


def _read_in_folder(rel: Path) -> bool:
    """Whether Ansible reads the file ``rel`` of a group's or host's vars folder: no hidden
    name or backup on the way, folders without an extension, a file with none or a known one."""
    parts = rel.parts[1:]
    if any(_skipped_part(p) for p in parts):
        return False
    if any(os.path.splitext(p)[1] for p in parts[:-1]):
        return False
    return os.path.splitext(parts[-1])[1] in VARS_SUFFIXES


def group_settings(inventory: Inventory, group: str) -> list[HostSettings]:
    """Every host of ``group`` with its variables as Ansible settles them."""
    model = _Model(inventory)
    return [model.settings(h) for h in model.hosts_of(group)]


#: platforms whose plays act on this machine, so their storage hosts must be driven with
#: ``ansible_connection: local`` (anything else would build or measure on another host)
LOCAL_ONLY = {
    "sim": "the simulated array's state lives in the store on this machine",
    "local": "the local platform's target is on this machine, where fio runs",
}


def settled(path: Path, var: str) -> dict[str, tuple[Any, str]]:
    """Per host of the ``storage`` group: ``var`` as Ansible settles it from the inventory
    and the vars files beside it, and where it is set (None, and where the host is listed,
    where nothing sets it). A vars file sealed whole with Ansible Vault cannot be read and
    sets nothing here."""
    out: dict[str, tuple[Any, str]] = {}
    for host in group_settings(read_inventory(path), REQUIRED_GROUP):
        if var in host.where:
            out[host.name] = (host.vars[var], host.where[var])
        else:
            out[host.name] = (None, host.listed)
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
            said = "does not set it" if value is None else f"has {shown(value)}"
            problems.append(
                f"{where}: platform {platform} needs ansible_connection: local on storage "
                f"host {host} ({why}); it {said}"
            )
    return problems
