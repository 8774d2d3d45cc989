"""The one reading of an inventory that every side uses: its files and the vars files beside
it read once into an ``Inventory``, with every problem named by file and line.

The files the checks read are the files the plays get (as the marked copy of
``ansible_vars.inventory_copy``) and the files raidsweep itself takes a host's connection from
(``sweeper.remote``), from the same parsed data: no Ansible inventory plugin runs, nothing is
executed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from sweeper.errors import InputError
from sweeper.inventory.listing import inventory_files, vars_files, vars_folders
from sweeper.inventory.places import line_of, name_of
from sweeper.inventory.settings import Model
from sweeper.inventory.shape import walk_group
from sweeper.inventory.tags import InventoryLoader
from sweeper.inventory.text import text_problems
from sweeper.yamlsource import load_text, read_text

REQUIRED_GROUP = "storage"  # reconfigure.yml and teardown.yml run on it
#: the text a file sealed whole with Ansible Vault starts with
VAULT_FILE = "$ANSIBLE_VAULT;"


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
        model = Model(self)
        return (
            any(var in h.vars for h in model.hosts.values())
            or any(var in g.vars for g in model.groups.values())
            or any(isinstance(f.data, dict) and var in f.data for f in self.vars)
        )


def _read(path: Path) -> tuple[Any, yaml.Node | None, str | None]:
    text = read_text(path)
    if text.startswith(VAULT_FILE):
        return None, None, text
    data, node = load_text(text, str(path), InventoryLoader)
    return data, node, None


def read_inventory(path: Path) -> Inventory:
    """Read the YAML inventory at ``path`` (a file or a folder of files) and the vars files
    beside it, each once, with every problem named by file and line (none raised)."""
    path = Path(path)
    names, shape = inventory_files(path)
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
                f"line {line_of(node, ['plugin'])}: plugin: an inventory plugin's configuration, "
                "not a YAML inventory (raidsweep reads static YAML inventories only)"
            )
        for group, body in data.items():
            walk_group(name_of(group), body, [group], node, mine)
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
        shape += Model(inventory).problems
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
    if not problems and not Model(inventory).hosts_of(REQUIRED_GROUP):
        problems.append(
            f"{path}: no host in group {REQUIRED_GROUP!r} (the playbooks reconfigure the "
            "storage through it)"
        )
    return problems
