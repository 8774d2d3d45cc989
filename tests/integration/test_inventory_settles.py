"""Where an inventory's ``ansible_connection`` comes from, read as Ansible itself reads it:
for each layout (the inventory's own vars, ``group_vars/`` and ``host_vars/`` beside it, files
and folders of them), raidsweep's settled value must be the one ``ansible-inventory --host``
prints, and the sim platform is refused exactly where that value is not ``local``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sweeper.inventory import platform_inventory_problems, settled

ANSIBLE_INVENTORY = Path(sys.executable).parent / "ansible-inventory"

HOSTS = (
    "all:\n  vars: {ansible_connection: ssh}\n  children:\n    lab:\n      children:\n"
    "        storage:\n          vars: {ansible_connection: local}\n          hosts:\n"
    "            a:\n            b: {ansible_connection: local}\n"
)

#: layout name → the vars files beside the inventory (relative path → text)
LAYOUTS: dict[str, dict[str, str]] = {
    "inventory alone": {},
    "group_vars/all under the inventory's group vars": {
        "group_vars/all.yml": "ansible_connection: paramiko\n"
    },
    "group_vars of the storage group": {"group_vars/storage.yml": "ansible_connection: ssh\n"},
    "a parent group's group_vars file beats the storage group's inventory vars": {
        "group_vars/lab": "ansible_connection: ssh\n"
    },
    "a deeper group's file beats a shallower one's": {
        "group_vars/lab.yml": "ansible_connection: ssh\n",
        "group_vars/storage.yaml": "ansible_connection: local\n",
    },
    "host_vars beat the host's own inventory value": {
        "host_vars/b.yml": "ansible_connection: ssh\n"
    },
    "host_vars folder, json": {"host_vars/a/conn.json": '{"ansible_connection": "ssh"}\n'},
    "the host's own inventory value beats group_vars": {
        "group_vars/storage.yml": "ansible_connection: ssh\n",
        "host_vars/a.yml": "ansible_connection: local\n",
    },
}


def _ansible_view(inventory: Path, host: str) -> str | None:
    out = subprocess.run(
        [str(ANSIBLE_INVENTORY), "-i", str(inventory), "--host", host],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={"PATH": "/usr/bin:/bin", "ANSIBLE_INVENTORY_ENABLED": "yaml"},
    )
    return json.loads(out.stdout).get("ansible_connection")


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_settled_connection_is_ansibles_own(tmp_path: Path, layout: str) -> None:
    inventory = tmp_path / "hosts.yml"
    inventory.write_text(HOSTS)
    for rel, text in LAYOUTS[layout].items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    ours = settled(inventory, "ansible_connection")
    assert set(ours) == {"a", "b"}
    problems = platform_inventory_problems(inventory, "sim")
    for host in ("a", "b"):
        theirs = _ansible_view(inventory, host)
        value, where = ours[host]
        assert value == theirs, (layout, host, where)
        refused = [p for p in problems if f"storage host {host} " in p]
        assert bool(refused) == (theirs != "local"), (layout, host, problems)
        if refused:  # the message names the file that sets it
            assert refused[0].startswith(where.split(": line")[0]), refused[0]
