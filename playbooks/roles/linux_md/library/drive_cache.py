#!/usr/bin/python
"""Ansible module: the drives' volatile write cache on or off, where the drive lets us.

The kernel exposes the drive's write cache enable bit as ``cache_type``: for SCSI and SATA
disks under ``scsi_disk`` (writing it sends a MODE SELECT to the drive), for virtio disks on
the block device when the host offers the toggle. A drive without a writable ``cache_type``
is reported as unsupported, not refused: its cache is what it is, and the record says so.
"""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: drive_cache
short_description: Turn the drives' volatile write cache on or off where supported
description:
  - Sets C(cache_type) of each device to C(write back) (I(write_cache) true) or
    C(write through) (false) where the kernel lets it be written, and reports per device
    what it was, what it is and whether it could be set.
  - Check mode reports the plan and changes nothing.
options:
  devices:
    description: The drives (any path to the block device).
    type: list
    elements: str
    required: true
  write_cache:
    description: Volatile write cache on (write back) or off (write through).
    type: bool
    required: true
author: raidsweep
"""

EXAMPLES = r"""
- name: Turn the drives' volatile write cache off (write through)
  drive_cache:
    devices: [/dev/disk/by-id/virtio-d0, /dev/disk/by-id/virtio-d1]
    write_cache: false
  register: drives
"""

RETURN = r"""
drives:
  description: Per device, C(before), C(after) and C(supported).
  type: dict
  returned: always
plan:
  description: What was (or, in check mode, would be) changed.
  type: list
  returned: always
"""

import glob
import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.raidsweep.linux_block import kernel_name


def cache_type_file(name: str) -> str | None:
    """The writable cache_type attribute of a drive, or None."""
    for path in [
        *glob.glob(f"/sys/block/{name}/device/scsi_disk/*/cache_type"),
        f"/sys/block/{name}/cache_type",
    ]:
        if os.path.exists(path) and os.access(path, os.W_OK) and os.stat(path).st_mode & 0o200:
            return path
    return None


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "devices": {"type": "list", "elements": "str", "required": True},
            "write_cache": {"type": "bool", "required": True},
        },
        supports_check_mode=True,
    )
    want = "write back" if module.params["write_cache"] else "write through"
    drives: dict[str, dict] = {}
    plan: list[str] = []
    changed = False
    for dev in module.params["devices"]:
        name = kernel_name(dev)
        path = cache_type_file(name)
        if path is None:
            drives[dev] = {"supported": False, "before": None, "after": None}
            continue
        with open(path) as f:
            before = f.read().strip()
        after = before
        if before != want:
            changed = True
            plan.append(f"set the write cache of {dev} to {want}")
            if not module.check_mode:
                try:
                    with open(path, "w") as f:
                        f.write(want)
                except OSError as exc:
                    module.fail_json(msg=f"{dev}: setting its write cache to {want} failed: {exc}")
                with open(path) as f:
                    after = f.read().strip()
        drives[dev] = {"supported": True, "before": before, "after": after}
    module.exit_json(changed=changed, drives=drives, plan=plan)


if __name__ == "__main__":
    main()
