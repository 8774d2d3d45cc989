"""Each host's variables as Ansible settles them: the groups and hosts of an inventory built
as Ansible's YAML inventory plugin builds them, and the vars files beside it read in
Ansible's default precedence."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sweeper.inventory.listing import VARS_SUFFIXES, read_in_folder
from sweeper.inventory.places import line_of, name_of, place_of
from sweeper.inventory.shape import host_port

if TYPE_CHECKING:
    from sweeper.inventory.reading import Inventory, InventoryFile

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


class Model:
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
                    self._parse(f, name_of(name), body, [name])
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
                    self._parse(f, name_of(child), child_body, [*loc, key, child])
                    self._child(name, name_of(child), self._at(f, [*loc, key, child]))
            elif key == "hosts":
                for pattern, hvars in value.items():
                    host = self._host(f, name_of(pattern), name, [*loc, key, pattern])
                    for var, v in (hvars or {}).items() if isinstance(hvars, dict) else ():
                        host.vars[var] = (v, self._at(f, [*loc, key, pattern, var]))

    @staticmethod
    def _at(f: InventoryFile, loc: list[Any]) -> str:
        return f"{f.path}: line {line_of(f.node, loc)}: {place_of(loc)}"

    def _host(self, f: InventoryFile, pattern: str, group: str, loc: list[Any]) -> _Host:
        name, port = host_port(pattern)
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
                return [rels[r] for r in under if read_in_folder(r)]
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
                        k: (v, f"{f.path}: line {line_of(f.node, [k])}: {name_of(k)}")
                        for k, v in f.data.items()
                    }
        values = {k: v for k, (v, _) in settled.items()}
        values |= {"inventory_hostname": name, "group_names": sorted(ancestry - {"all"})}
        where = {k: w for k, (_, w) in settled.items()}
        return HostSettings(name, values, where, host.listed, tuple(sealed))


def group_settings(inventory: Inventory, group: str) -> list[HostSettings]:
    """Every host of ``group`` with its variables as Ansible settles them."""
    model = Model(inventory)
    return [model.settings(h) for h in model.hosts_of(group)]
