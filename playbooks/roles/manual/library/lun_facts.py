#!/usr/bin/python
"""Ansible module: what this host sees of a LUN, for the disclosure of a manual sweep.

Reads only: lsblk's description, the SCSI device's vendor, model, revision and serial and
its VPD pages 0x80 (unit serial number) and 0x83 (device identification) where the kernel
exposes them, the names it is known by under /dev/disk/by-id, the multipath map that holds
it where there is one, a loop device's backing file, and the block queue's settings.
"""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: lun_facts
short_description: Describe a LUN as this host sees it (read only)
description:
  - Reports the block device's lsblk description, SCSI inquiry data and VPD pages where
    readable, its stable names, multipath topology and queue settings.
  - Changes nothing; runs the same in check mode.
options:
  path:
    description: The LUN's device node (any path to it, e.g. C(/dev/disk/by-id/wwn-0x...)).
    type: path
    required: true
author: raidsweep
"""

EXAMPLES = r"""
- name: Describe the LUN the operator named
  lun_facts:
    path: /dev/disk/by-id/wwn-0x600507680c8082018000000000000123
  register: lun
"""

RETURN = r"""
lun:
  description:
    - C(device) (lsblk's columns), C(scsi) (vendor, model, rev, serial, wwid), C(vpd)
      (pages 0x80 and 0x83 in hex, and the unit serial number), C(by_id), C(multipath),
      C(loop_backing_file) and C(queue) (the block queue's settings).
  type: dict
  returned: always
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.raidsweep.linux_block import kernel_name, read_text

LSBLK_COLUMNS = (
    "NAME,KNAME,PATH,SIZE,TYPE,ROTA,VENDOR,MODEL,REV,SERIAL,WWN,TRAN,HCTL,"
    "LOG-SEC,PHY-SEC,MIN-IO,OPT-IO,SCHED,RQ-SIZE,RA,RO,DISC-GRAN,DISC-MAX"
)
QUEUE_FILES = (
    "scheduler",
    "nr_requests",
    "max_sectors_kb",
    "max_hw_sectors_kb",
    "rotational",
    "read_ahead_kb",
    "logical_block_size",
    "physical_block_size",
    "minimum_io_size",
    "optimal_io_size",
    "write_cache",
    "discard_max_bytes",
)
SCSI_FILES = ("vendor", "model", "rev", "serial", "wwid")


def read_hex(path: str) -> str | None:
    """A binary sysfs file (a VPD page) as hex; None where it cannot be read."""
    try:
        with open(path, "rb") as f:
            return f.read().hex()
    except OSError:
        return None


def unit_serial(page80: str | None) -> str | None:
    """The unit serial number of VPD page 0x80 (its length at byte 3, the text after)."""
    if not page80 or len(page80) < 8:
        return None
    raw = bytes.fromhex(page80)
    return raw[4 : 4 + raw[3]].decode("ascii", "replace").strip() or None


def by_id_names(name: str) -> list[str]:
    folder = "/dev/disk/by-id"
    try:
        entries = sorted(os.listdir(folder))
    except OSError:
        return []
    return [
        os.path.join(folder, e) for e in entries if kernel_name(os.path.join(folder, e)) == name
    ]


def multipath(module: AnsibleModule, name: str) -> dict | None:
    """The multipath map this device is (or is a path of), with multipath's own view."""
    maps = [name] if read_text(f"/sys/block/{name}/dm/uuid").startswith("mpath-") else []
    holders = f"/sys/block/{name}/holders"
    for holder in sorted(os.listdir(holders)) if os.path.isdir(holders) else []:
        if read_text(f"/sys/block/{holder}/dm/uuid").startswith("mpath-"):
            maps.append(holder)
    if not maps:
        return None
    dm = maps[0]
    found = {
        "map": read_text(f"/sys/block/{dm}/dm/name"),
        "paths": sorted(os.listdir(f"/sys/block/{dm}/slaves")),
    }
    tool = module.get_bin_path("multipath")
    if tool:
        rc, out, _ = module.run_command([tool, "-ll", found["map"]])
        found["multipath_ll"] = out if rc == 0 else None
    return found


def describe(module: AnsibleModule, path: str) -> dict:
    name = kernel_name(path)
    rc, out, err = module.run_command(
        ["lsblk", "--json", "--bytes", "--nodeps", "--output", LSBLK_COLUMNS, path]
    )
    if rc != 0:
        module.fail_json(msg=f"lsblk {path} failed (exit {rc}): {(err or out).strip()}")
    device = json.loads(out)["blockdevices"][0]
    scsi = {k: read_text(f"/sys/block/{name}/device/{k}") or None for k in SCSI_FILES}
    page80 = read_hex(f"/sys/block/{name}/device/vpd_pg80")
    return {
        "path": path,
        "realpath": os.path.realpath(path),
        "device": device,
        "scsi": scsi,
        "vpd": {
            "pg80": page80,
            "pg83": read_hex(f"/sys/block/{name}/device/vpd_pg83"),
            "unit_serial": unit_serial(page80),
        },
        "by_id": by_id_names(name),
        "multipath": multipath(module, name),
        "loop_backing_file": read_text(f"/sys/block/{name}/loop/backing_file") or None,
        "queue": {k: read_text(f"/sys/block/{name}/queue/{k}") for k in QUEUE_FILES},
    }


def main() -> None:
    module = AnsibleModule(
        argument_spec={"path": {"type": "path", "required": True}},
        supports_check_mode=True,
    )
    path = module.params["path"]
    if not os.path.exists(path):
        module.fail_json(msg=f"{path} does not exist")
    module.exit_json(changed=False, lun=describe(module, path))


if __name__ == "__main__":
    main()
