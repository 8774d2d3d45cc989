#!/usr/bin/python
"""Ansible module: refuse, before anything changes, a device raidsweep must not touch.

Modelled on linux-system-roles/storage's safe_mode. It only reads (sysfs, /proc, blkid),
so it runs the same in check mode, and the role calls it before any task that changes.
"""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: device_guard
short_description: Refuse devices that are not allow-listed, in use or carry data
description:
  - Checks every device a configuration will use, and fails before anything changes when
    one is not in the allow-list by a stable id (C(/dev/disk/by-id/...)), does not exist,
    is the root disk, is mounted or used as swap (itself or a partition), has holders that
    are not raidsweep's own arrays, or carries a filesystem, partition table, RAID or LVM
    signature that is not raidsweep's own, unless the device is marked wipeable.
  - Every refused device is named with its reason, all at once.
  - Read-only; runs the same in check mode.
options:
  allow:
    description: The allow-list, by stable id (C(/dev/disk/by-id/...)).
    type: list
    elements: str
    required: true
  devices:
    description: The devices the configuration uses (by stable id).
    type: list
    elements: str
    required: true
  wipeable:
    description: Devices whose existing signatures may be destroyed.
    type: list
    elements: str
    default: []
  array_prefix:
    description: Name prefix of raidsweep's own md arrays; their members are not refused.
    type: str
    default: raidsweep-
  vg:
    description: >-
      raidsweep's own volume group; its physical volumes (a cache device) are not refused.
    type: str
    default: raidsweep
author: raidsweep
"""

EXAMPLES = r"""
- name: Refuse, before anything changes, a device that is not allow-listed, in use or holds data
  device_guard:
    allow: [/dev/disk/by-id/virtio-d0, /dev/disk/by-id/virtio-d1, /dev/disk/by-id/virtio-d2]
    devices: [/dev/disk/by-id/virtio-d0, /dev/disk/by-id/virtio-d1]
    wipeable: [/dev/disk/by-id/virtio-d1]
    array_prefix: raidsweep-
    vg: raidsweep
  register: guard
"""

RETURN = r"""
devices:
  description: Per device (as given), its kernel path, size and whether it is raidsweep's.
  type: dict
  returned: always
"""

import json
import os
import re

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.raidsweep.linux_block import (
    kernel_name,
    md_name,
    read_text,
    vg_of,
)

BY_ID = "/dev/disk/by-id/"
STABLE_ID = re.compile(r"/dev/disk/by-id/[A-Za-z0-9][A-Za-z0-9._:+@\\-]{0,200}")


def _majmin(name: str) -> str:
    with open(f"/sys/class/block/{name}/dev") as f:
        return f.read().strip()


def _disk_of(name: str) -> str:
    """The whole disk a partition belongs to (a disk is its own)."""
    if os.path.exists(f"/sys/class/block/{name}/partition"):
        return os.path.basename(os.path.dirname(os.path.realpath(f"/sys/class/block/{name}")))
    return name


def _partitions(name: str) -> list[str]:
    base = f"/sys/class/block/{name}"
    return [e for e in os.listdir(base) if os.path.exists(f"{base}/{e}/partition")]


def _mounted_majmins() -> dict[str, str]:
    """major:minor -> mount point of every mounted block filesystem, plus swap areas."""
    out: dict[str, str] = {}
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            out.setdefault(fields[2], fields[4])
    with open("/proc/swaps") as f:
        for line in f.readlines()[1:]:
            dev = line.split()[0]
            if os.path.exists(dev):
                try:
                    out[_majmin(kernel_name(dev))] = "swap"
                except OSError:
                    pass
    return out


def _root_disks() -> set[str]:
    """The disks under the root filesystem, through any md or dm layers below it."""
    st = os.stat("/")
    majmin = f"{os.major(st.st_dev)}:{os.minor(st.st_dev)}"
    todo = []
    for name in os.listdir("/sys/class/block"):
        if _majmin(name) == majmin:
            todo.append(name)
    disks: set[str] = set()
    while todo:
        name = todo.pop()
        slaves = f"/sys/class/block/{name}/slaves"
        below = os.listdir(slaves) if os.path.isdir(slaves) else []
        if below:
            todo += below
        else:
            disks.add(_disk_of(name))
    return disks


def _dm_name(holder: str) -> str:
    return read_text(f"/sys/class/block/{holder}/dm/name")


def _signatures(node: str, module: AnsibleModule) -> list[dict[str, str]]:
    """What wipefs would erase: filesystem, RAID, LVM signatures and partition tables."""
    rc, out, err = module.run_command(["wipefs", "--no-act", "--json", node])
    if rc != 0:
        module.fail_json(msg=f"cannot read the signatures of {node}: {err.strip()}")
    return json.loads(out).get("signatures", []) if out.strip() else []


def _blkid_label(node: str, module: AnsibleModule) -> str:
    rc, out, _ = module.run_command(["blkid", "-p", "-o", "export", node])
    m = re.search(r"^LABEL=(.*)$", out, re.M) if rc == 0 else None
    return m.group(1) if m else ""


def check(module: AnsibleModule) -> tuple[dict[str, dict], list[str]]:
    p = module.params
    allowed = {}
    problems: list[str] = []
    for a in p["allow"]:
        if not STABLE_ID.fullmatch(a):
            problems.append(
                f"{a}: the allow-list names devices by stable id ({BY_ID}...), "
                "not by a kernel name that can change at the next boot"
            )
        elif os.path.exists(a):
            allowed[os.path.realpath(a)] = a
    wipeable = {os.path.realpath(w) for w in p["wipeable"] if os.path.exists(w)}
    mounted = _mounted_majmins()
    roots = _root_disks()
    prefix = p["array_prefix"]
    report: dict[str, dict] = {}
    for dev in p["devices"]:
        if dev not in p["allow"]:
            problems.append(f"{dev}: not in the inventory's allow-list (linux_md_devices)")
            continue
        if not STABLE_ID.fullmatch(dev):
            continue  # already named above
        if not os.path.exists(dev):
            problems.append(f"{dev}: no such device on this host")
            continue
        real = os.path.realpath(dev)
        name = kernel_name(real)
        if not os.path.exists(f"/sys/class/block/{name}"):
            problems.append(f"{dev}: {real} is not a block device")
            continue
        if _disk_of(name) in roots or name in roots:
            problems.append(f"{dev}: {real} holds the root filesystem")
            continue
        parts = _partitions(name)
        for n in [name, *parts]:
            where = mounted.get(_majmin(n))
            if where:
                problems.append(f"{dev}: /dev/{n} is mounted on {where}")
        holders = sorted(os.listdir(f"/sys/class/block/{name}/holders"))
        ours = []
        own_pv = bool(p["vg"]) and vg_of(module, real) == p["vg"]
        for h in holders:
            md = md_name(module, h) if h.startswith("md") else None
            if md and md.startswith(prefix):
                ours.append(md)
            elif own_pv and _dm_name(h).startswith(f"{p['vg']}-"):
                ours.append(_dm_name(h))  # a volume of raidsweep's group (the cache)
            else:
                problems.append(f"{dev}: in use by /dev/{h} (holders), which is not raidsweep's")
        foreign = []
        for sig in _signatures(real, module):
            kind = sig.get("type", "?")
            if kind == "linux_raid_member" and _blkid_label(real, module).split(":")[-1].startswith(
                prefix
            ):
                continue  # a member of one of raidsweep's own arrays
            if kind == "LVM2_member" and own_pv:
                continue  # a physical volume of raidsweep's own group (the cache device)
            foreign.append(kind)
        if foreign and real not in wipeable:
            problems.append(
                f"{dev}: carries a {', '.join(sorted(set(foreign)))} signature; mark it "
                "wipeable in the inventory (linux_md_wipeable) if its data may be destroyed"
            )
        with open(f"/sys/class/block/{name}/size") as f:
            size = int(f.read()) * 512
        report[dev] = {
            "path": real,
            "size_bytes": size,
            "arrays": ours,
            "signatures": foreign,
            "partitions": parts,
        }
    return report, problems


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "allow": {"type": "list", "elements": "str", "required": True},
            "devices": {"type": "list", "elements": "str", "required": True},
            "wipeable": {"type": "list", "elements": "str", "default": []},
            "array_prefix": {"type": "str", "default": "raidsweep-"},
            "vg": {"type": "str", "default": "raidsweep"},
        },
        supports_check_mode=True,
    )
    report, problems = check(module)
    if problems:
        module.fail_json(
            msg="safe mode refuses to touch: " + "; ".join(problems), problems=problems
        )
    module.exit_json(changed=False, devices=report)


if __name__ == "__main__":
    main()
