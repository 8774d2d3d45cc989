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

The modules: ``tags`` (the ``!vault`` and ``!unsafe`` values), ``listing`` (which files
Ansible reads), ``places`` (lines and places for messages), ``shape`` (groups and hosts as
Ansible accepts them), ``text`` (template syntax and control characters), ``reading`` (the
one reading), ``settings`` (each host's variables as Ansible settles them),
``storage_hosts`` (the storage group's hosts as a platform needs them).
"""

from sweeper.inventory.listing import (
    VARS_DIRS,
    VARS_SUFFIXES,
    YAML_SUFFIXES,
    vars_files,
    vars_folders,
)
from sweeper.inventory.reading import (
    REQUIRED_GROUP,
    VAULT_FILE,
    Inventory,
    InventoryFile,
    inventory_problems,
    load_inventory,
    read_inventory,
)
from sweeper.inventory.settings import HostSettings, Setting, group_settings
from sweeper.inventory.shape import GROUP_KEYS
from sweeper.inventory.storage_hosts import LOCAL_ONLY, platform_inventory_problems, settled
from sweeper.inventory.tags import Sealed, Unsafe, opaque, shown
from sweeper.inventory.text import text_problems

__all__ = [
    "GROUP_KEYS",
    "LOCAL_ONLY",
    "REQUIRED_GROUP",
    "VARS_DIRS",
    "VARS_SUFFIXES",
    "VAULT_FILE",
    "YAML_SUFFIXES",
    "HostSettings",
    "Inventory",
    "InventoryFile",
    "Sealed",
    "Setting",
    "Unsafe",
    "group_settings",
    "inventory_problems",
    "load_inventory",
    "opaque",
    "platform_inventory_problems",
    "read_inventory",
    "settled",
    "shown",
    "text_problems",
    "vars_files",
    "vars_folders",
]
