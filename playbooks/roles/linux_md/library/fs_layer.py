#!/usr/bin/python
"""Ansible module: the optional filesystem layer on raidsweep's test volume."""

from __future__ import annotations

DOCUMENTATION = r"""
module: fs_layer
short_description: Make an XFS or ext4 filesystem on the test volume, aligned to the RAID stripe
description:
  - C(xfs) or C(ext4) makes the filesystem on C(volume), aligned to the RAID geometry (stripe
    unit C(chunk_kib), stripe width C(chunk_kib) times C(data_disks)), mounts it on
    C(mountpoint) and allocates the file fio measures (C(file), C(file_pct) of the free space).
  - C(none) leaves the volume raw; a filesystem raidsweep made on it is unmounted and wiped.
  - A filesystem that is there as asked (type and geometry, mounted) is kept. Only a volume
    of raidsweep's volume group is touched. Check mode reports the plan only.
options:
  volume:
    description: The test volume (C(/dev/<vg>/volume)).
    type: str
    required: true
  filesystem:
    description: The filesystem, or none.
    type: str
    choices: [none, xfs, ext4]
    required: true
  chunk_kib:
    description: The arrays' chunk in KiB (the stripe unit).
    type: int
    required: true
  data_disks:
    description: Data drives of one array (the stripe width in units).
    type: int
    required: true
  mountpoint:
    description: Where the filesystem is mounted.
    type: str
    default: /mnt/raidsweep
  file:
    description: The file fio measures, in the mount point.
    type: str
    default: fio.data
  file_pct:
    description: Share of the filesystem's free space the file takes.
    type: int
    default: 90
author: raidsweep
"""

EXAMPLES = r"""
- name: ext4 on the test volume, aligned to 64 KiB chunks of a 3+1 RAID 5
  fs_layer:
    volume: /dev/raidsweep/volume
    filesystem: ext4
    chunk_kib: 64
    data_disks: 3
"""

RETURN = r"""
target:
  description: What fio measures (the file, or the volume itself without a filesystem).
  type: str
  returned: always
geometry:
  description: The filesystem's stripe unit and width in KiB, as its own tools report them.
  type: dict
  returned: with a filesystem
plan:
  description: What the module changed (or would change, in check mode).
  type: list
  returned: always
"""

import os
import re

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.raidsweep.linux_block import read_text, run_checked

BLOCK = 4096


def fs_type(module: AnsibleModule, volume: str) -> str:
    rc, out, _ = module.run_command(["blkid", "-o", "value", "-s", "TYPE", volume])
    return out.strip() if rc == 0 else ""


def mounted_at(volume: str, mountpoint: str) -> bool:
    real = os.path.realpath(volume)
    for line in read_text("/proc/self/mounts").splitlines():
        parts = line.split()
        if len(parts) > 1 and parts[1] == mountpoint and os.path.realpath(parts[0]) == real:
            return True
    return False


def geometry(module: AnsibleModule, kind: str, volume: str, mountpoint: str) -> dict:
    """Stripe unit and width (KiB) as the filesystem's own tools report them."""
    if kind == "ext4":
        tool = "dumpe2fs -h"
        out = run_checked(module, ["dumpe2fs", "-h", volume])
        found = [
            re.search(rf"^{name}:\s+(\d+)", out, re.M)
            for name in ("Block size", "RAID stride", "RAID stripe width")
        ]
        size, unit, width = (int(m.group(1)) if m else None for m in found)
    else:
        tool = "xfs_info"
        out = run_checked(module, ["xfs_info", mountpoint])
        m = re.search(r"bsize=(\d+).*?sunit=(\d+)\s+swidth=(\d+) blks", out, re.S)
        size, unit, width = (int(g) for g in m.groups()) if m else (None, None, None)
    size = size or BLOCK
    return {
        "tool": tool,
        "unit_kib": unit * size // 1024 if unit is not None else None,
        "width_kib": width * size // 1024 if width is not None else None,
    }


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "volume": {"type": "str", "required": True},
            "filesystem": {"type": "str", "required": True, "choices": ["none", "xfs", "ext4"]},
            "chunk_kib": {"type": "int", "required": True},
            "data_disks": {"type": "int", "required": True},
            "mountpoint": {"type": "str", "default": "/mnt/raidsweep"},
            "file": {"type": "str", "default": "fio.data"},
            "file_pct": {"type": "int", "default": 90},
        },
        supports_check_mode=True,
    )
    p = module.params
    volume, mnt, kind = p["volume"], p["mountpoint"], p["filesystem"]
    if not re.fullmatch(r"/dev/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", volume):
        module.fail_json(msg=f"{volume!r} is not a volume of a volume group")
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", p["file"]) or not 1 <= p["file_pct"] <= 100:
        module.fail_json(msg="file must be a plain file name and file_pct 1..100")
    act = not module.check_mode
    plan: list[str] = []
    have = fs_type(module, volume) if os.path.exists(volume) else ""
    mounted = mounted_at(volume, mnt)
    unit, width = p["chunk_kib"], p["chunk_kib"] * p["data_disks"]
    target = os.path.join(mnt, p["file"])
    if kind == "none":
        if mounted:
            plan.append(f"unmount {mnt}")
            if act:
                run_checked(module, ["umount", mnt])
        if have in ("xfs", "ext4"):
            plan.append(f"wipe the {have} filesystem on {volume}")
            if act:
                run_checked(module, ["wipefs", "--all", "--quiet", volume])
        module.exit_json(changed=bool(plan), plan=plan, target=volume)
    kept = have == kind and mounted and os.path.isfile(target)
    if kept:
        found = geometry(module, kind, volume, mnt)
        kept = (found["unit_kib"], found["width_kib"]) == (unit, width)
    if not kept:
        plan.append(
            f"make {kind} on {volume} (stripe unit {unit} KiB, width {width} KiB), mount it "
            f"on {mnt} and allocate {p['file_pct']}% of it to {p['file']}"
        )
        if act:
            if mounted:
                run_checked(module, ["umount", mnt])
            if kind == "ext4":
                stride = unit * 1024 // BLOCK
                extended = (
                    f"stride={stride},stripe_width={stride * p['data_disks']},"
                    "lazy_itable_init=0,lazy_journal_init=0"
                )
                argv = ["mkfs.ext4", "-q", "-F", "-b", str(BLOCK), "-E", extended, volume]
                run_checked(module, argv)
            else:
                data = f"su={unit}k,sw={p['data_disks']}"
                rc, out, err = module.run_command(["mkfs.xfs", "-f", "-q", "-d", data, volume])
                if rc != 0 and "Log size must be at least" in (err or out):
                    # A striped volume of some hundred MB (a lab's): xfs's default allocation
                    # groups are too small to hold its 64 MB minimum log; two larger ones can.
                    data += ",agcount=2"
                    run_checked(module, ["mkfs.xfs", "-f", "-q", "-d", data, volume])
                elif rc != 0:
                    module.fail_json(msg=f"mkfs.xfs -d {data} {volume} failed (exit {rc}): {err}")
            os.makedirs(mnt, exist_ok=True)
            run_checked(module, ["mount", "-t", kind, volume, mnt])
            st = os.statvfs(mnt)
            size = st.f_bavail * st.f_frsize * p["file_pct"] // 100 // (1024**2) * 1024**2
            run_checked(module, ["fallocate", "-l", str(size), target])
    module.exit_json(
        changed=bool(plan),
        plan=plan,
        target=target,
        geometry=None if module.check_mode else geometry(module, kind, volume, mnt),
        size_bytes=os.path.getsize(target) if os.path.exists(target) else None,
    )


if __name__ == "__main__":
    main()
