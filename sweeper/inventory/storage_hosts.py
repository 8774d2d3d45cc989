"""The storage group's hosts as a platform needs them: a variable as Ansible settles it per
storage host, and, for the platforms that act on this machine, connection local."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sweeper.inventory.reading import REQUIRED_GROUP, read_inventory
from sweeper.inventory.settings import group_settings
from sweeper.inventory.tags import shown

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
