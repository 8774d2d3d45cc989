"""The host raidsweep connects to is the host the plays act on: for each layout (files of a
folder, ``host:port``, group depth and ``ansible_group_priority``, ``group_vars``/
``host_vars`` as files, folders, JSON, an empty folder, hidden files), every host's variables
as ``sweeper.remote`` reads them (from the one reading of ``sweeper.inventory``, no Ansible
plugin) are those ``ansible-inventory`` prints, on the user's folder and on the copy the
plays get."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sweeper.ansible_vars import Sealer, inventory_copy
from sweeper.inventory import inventory_problems
from sweeper.remote import _group_vars, inventory_host

pytestmark = pytest.mark.integration
ANSIBLE_INVENTORY = Path(sys.executable).parent / "ansible-inventory"

FIRST = """\
all:
  vars: {x: all_inv, conn: ssh}
  hosts:
    loner: {v: 1}
  children:
    lab:
      vars: {x: lab_inv, y: lab_inv, ansible_group_priority: 5}
      children:
        storage:
          vars: {x: storage_inv}
          hosts:
            s1:2222: {ansible_host: 10.0.0.1}
            s2:
    other:
      vars: {y: other_inv, ansible_group_priority: 2}
      hosts:
        s2: {z: s2_a}
"""
SECOND = """\
storage:
  hosts:
    s1: {z: s1_b}
    s2: {z: s2_b, ansible_port: 2200}
workers:
  hosts:
    w2:
    w1:
  children:
    storage:
ungrouped:
  hosts:
    s1:
"""

#: layout name → files beside the two inventory files (relative path → text; None: a folder)
LAYOUTS: dict[str, dict[str, str | None]] = {
    "inventory files alone": {},
    "group_vars folder before file, hidden and backup skipped": {
        "group_vars/all/10.yml": "x: gv_all_dir\n",
        "group_vars/all/20": "w: gv_all_dir_2\n",
        "group_vars/all/.hidden.yml": "x: hidden\n",
        "group_vars/all/30.yml~": "x: backup\n",
        "group_vars/all.yml": "x: file_not_read\n",
    },
    "an empty group folder hides the group's file": {
        "group_vars/lab": None,
        "group_vars/lab.yml": "q: not_read\n",
        "group_vars/other.json": '{"y": "gv_other"}\n',
    },
    ".yml before .yaml; deeper group's file last": {
        "group_vars/lab.yml": "q: lab_yml\ny: gv_lab\n",
        "group_vars/lab.yaml": "q: lab_yaml\n",
        "group_vars/storage.yml": "y: gv_storage\nansible_host: 10.9.9.9\n",
    },
    "host_vars beat everything; a folder per host": {
        "group_vars/storage.yml": "ansible_port: 1\nz: gv\n",
        "host_vars/s1/a.yml": "ansible_port: 3333\n",
        "host_vars/s1/sub/b.json": '{"z": "hv_nested"}\n',
        "host_vars/s1/sub.d/c.yml": "z: not_read\n",
        "host_vars/s2.yml": "ansible_host: 10.0.0.2\n",
    },
}


def _plain(value: Any) -> Any:
    """``ansible-inventory``'s JSON with the copy's ``!unsafe`` markers taken off."""
    if isinstance(value, dict):
        if set(value) == {"__ansible_unsafe"}:
            return value["__ansible_unsafe"]
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _ansible_view(inventory: Path) -> dict[str, Any]:
    out = subprocess.run(
        [str(ANSIBLE_INVENTORY), "-i", str(inventory), "--list"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={"PATH": "/usr/bin:/bin", "ANSIBLE_INVENTORY_ENABLED": "yaml"},
    )
    data = json.loads(out.stdout)
    return _plain(data["_meta"]["hostvars"]) | {"__groups": data}


@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_every_hosts_variables_are_ansibles_own(tmp_path: Path, layout: str) -> None:
    from sweeper.inventory import group_settings, load_inventory

    folder = tmp_path / "inv"
    folder.mkdir()
    (folder / "a.yml").write_text(FIRST)
    (folder / "b.yaml").write_text(SECOND)
    for rel, text in LAYOUTS[layout].items():
        path = folder / rel
        if text is None:
            path.mkdir(parents=True)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    assert inventory_problems(folder) == []
    copy = inventory_copy(folder, tmp_path / "play", Sealer())
    magic = ("inventory_hostname", "group_names")
    ours = {v["inventory_hostname"]: v for v in _group_vars(folder, "all")}
    assert set(ours) == {"loner", "s1", "s2", "w1", "w2"}
    for source in (folder, copy):
        theirs = _ansible_view(source)
        for host, mine in ours.items():
            assert {k: v for k, v in mine.items() if k not in magic} == theirs[host], (
                layout,
                source,
                host,
            )
            groups = [g for g in theirs["__groups"] if g not in ("all", "_meta")]
            member = sorted(g for g in groups if host in _all_hosts(theirs["__groups"], g))
            assert mine["group_names"] == member, (layout, host)
        for group in ("storage", "workers", "ungrouped"):
            listed = [h.name for h in group_settings(load_inventory(folder), group)]
            assert sorted(listed) == sorted(_all_hosts(theirs["__groups"], group)), group
    # fio's connection to the one storage host of a layout with one
    (folder / "b.yaml").write_text(SECOND.replace("    s2: {z: s2_b, ansible_port: 2200}\n", ""))
    (folder / "a.yml").write_text(FIRST.replace("            s2:\n", ""))
    host = inventory_host(folder)
    theirs = _ansible_view(inventory_copy(folder, tmp_path / "again", Sealer()))["s1"]
    assert (host.address, host.port) == (theirs["ansible_host"], theirs["ansible_port"])


def _hosts(body: Any) -> list[str]:
    return list(body.get("hosts", [])) if isinstance(body, dict) else []


def _all_hosts(groups: dict[str, Any], name: str) -> list[str]:
    body = groups.get(name, {})
    out = list(_hosts(body))
    for child in body.get("children", []):
        out += [h for h in _all_hosts(groups, child) if h not in out]
    return out
