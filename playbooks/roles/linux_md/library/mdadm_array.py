#!/usr/bin/python
"""Ansible module: Linux software RAID arrays (mdadm), declared as a set.

No community collection has an mdadm module. This one takes every array of the test
storage at once, so one task (one round trip to the host) builds a whole configuration's
ranks, and an array already as declared is left alone: a second run changes nothing.
"""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: mdadm_array
short_description: Linux software RAID arrays (mdadm), declared as a set
description:
  - Makes the md arrays whose names start with I(prefix) exactly the ones in I(arrays).
    An array that exists as declared (level, members, chunk, metadata, bitmap) is kept;
    one that differs, and every other array of the prefix, is stopped, its members'
    superblocks and signatures erased, and it is created anew.
  - Waits for the initial resync of the arrays it creates (unless I(wait) is false or the
    array is created with I(assume_clean)), and reports how long it took.
  - An array to be removed that still has holders (an LVM volume group on it) is refused,
    unless the holder is the volume group I(release_vg), which is then removed first.
  - Sets C(stripe_cache_size) of RAID 5 and 6 arrays.
  - Check mode reports the plan (I(plan)) and changes nothing.
  - The members must have been checked by the C(device_guard) module first; creating an
    array erases whatever its members held.
options:
  arrays:
    description:
      - The arrays, each with C(name), C(level) (0, 1, 5, 6 or 10), C(devices),
        C(chunk_kib) (not for RAID 1), C(metadata) (default C(1.2)), C(bitmap)
        (C(internal) or C(none)) and C(assume_clean) (skip the initial resync).
    type: list
    elements: dict
    default: []
  prefix:
    description: Name prefix of the arrays this module owns; no other array is touched.
    type: str
    default: raidsweep-
  state:
    description: C(present) makes the set exactly I(arrays); C(absent) removes every owned array.
    type: str
    choices: [present, absent]
    default: present
  wait:
    description: Wait for the initial resync of new arrays.
    type: bool
    default: true
  stripe_cache_size:
    description: C(stripe_cache_size) (pages per device) of RAID 5 and 6 arrays; null leaves it.
    type: int
  release_vg:
    description: >-
      An LVM volume group of raidsweep's that may be removed when an array under it must go.
    type: str
author: raidsweep
"""

EXAMPLES = r"""
- name: A RAID 5 rank and a RAID 10 rank of four drives each, waiting for their initial resync
  mdadm_array:
    arrays:
      - name: raidsweep-r0
        level: 5
        devices: [/dev/disk/by-id/virtio-d0, /dev/disk/by-id/virtio-d1,
                  /dev/disk/by-id/virtio-d2, /dev/disk/by-id/virtio-d3]
        chunk_kib: 64
        bitmap: internal
      - {name: raidsweep-r1, level: 10, chunk_kib: 128, bitmap: none,
         devices: [/dev/disk/by-id/virtio-d4, /dev/disk/by-id/virtio-d5,
                   /dev/disk/by-id/virtio-d6, /dev/disk/by-id/virtio-d7]}
    stripe_cache_size: 4096
    release_vg: raidsweep

- name: Stop every raidsweep array and erase its members
  mdadm_array:
    prefix: raidsweep-
    state: absent
"""

RETURN = r"""
arrays:
  description: Every owned array as the kernel reports it after the change, with C(mdadm --detail).
  type: list
  returned: always
mdstat:
  description: The contents of /proc/mdstat after the change.
  type: str
  returned: always
plan:
  description: What was (or, in check mode, would be) created and destroyed.
  type: list
  returned: always
destroyed:
  description: Whether arrays were (or would be) destroyed, with whatever was on them.
  type: bool
  returned: always
"""

import json
import os
import time

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.raidsweep.linux_block import (
    kernel_name,
    md_name,
    read_text,
    release_mounts,
    run_checked,
    vg_of,
)

LEVELS = {"0": "raid0", "1": "raid1", "5": "raid5", "6": "raid6", "10": "raid10"}


def existing_arrays(module: AnsibleModule, prefix: str) -> dict[str, dict]:
    """Owned arrays now running, by name, as sysfs describes them."""
    out: dict[str, dict] = {}
    for md in sorted(os.listdir("/sys/block")):
        if not md.startswith("md") or not os.path.isdir(f"/sys/block/{md}/md"):
            continue
        name = md_name(module, md) or ""
        if not name.startswith(prefix):
            continue
        base = f"/sys/block/{md}/md"
        members = sorted(
            kernel_name(f"{base}/{d}/block") for d in os.listdir(base) if d.startswith("dev-")
        )
        chunk = read_text(f"{base}/chunk_size")
        bitmap = read_text(f"{base}/bitmap/location")
        out[name] = {
            "name": name,
            "md": md,
            "level": read_text(f"{base}/level"),
            "members": members,
            "chunk_kib": int(chunk) // 1024 if chunk.isdigit() and int(chunk) else None,
            "metadata": read_text(f"{base}/metadata_version"),
            "bitmap": "none" if bitmap in ("", "none") else "internal",
            "holders": sorted(os.listdir(f"/sys/block/{md}/holders")),
            "sync_action": read_text(f"{base}/sync_action"),
            "raid_disks": int(read_text(f"{base}/raid_disks") or 0),
            "degraded": int(read_text(f"{base}/degraded") or 0),
        }
    return out


def wanted(spec: dict) -> dict:
    """A declared array in the terms ``existing_arrays`` reports."""
    level = LEVELS.get(str(spec["level"]).removeprefix("raid"))
    return {
        "name": spec["name"],
        "level": level,
        "members": sorted(kernel_name(d) for d in spec["devices"]),
        "chunk_kib": None if level == "raid1" else spec.get("chunk_kib"),
        "metadata": str(spec.get("metadata") or "1.2"),
        "bitmap": "none" if level == "raid0" else spec.get("bitmap") or "none",
    }


def same(have: dict, want: dict) -> bool:
    """Whether an array is the one declared. One with a declared member failed, removed or
    being rebuilt onto (a health the sweep measures) is the same build: the health step makes
    it whole again where the configuration asks for that."""
    keys = ("level", "metadata", "bitmap")
    if any(have[k] != want[k] for k in keys):
        return False
    members_ok = have["members"] == want["members"] or (
        set(have["members"]) <= set(want["members"]) and have["raid_disks"] == len(want["members"])
    )
    return members_ok and (want["chunk_kib"] is None or have["chunk_kib"] == want["chunk_kib"])


def remove(module: AnsibleModule, have: dict, release_vg: str | None) -> None:
    md = have["md"]
    # Read now, not from the first look: removing the volume group under an earlier array
    # may have released this one too.
    holders = sorted(os.listdir(f"/sys/block/{md}/holders"))
    if holders:
        vg = vg_of(module, f"/dev/{md}")
        if not vg or vg != release_vg:
            module.fail_json(
                msg=f"/dev/{md} ({have['name']}) is in use by {', '.join(holders)}"
                f"{f' (volume group {vg})' if vg else ''}; not removing it"
            )
        release_mounts(module, vg)
        run_checked(module, ["vgremove", "--force", "--yes", vg])
    # The PV label and any filesystem inside the array go first: an array built again on
    # the same members with the same geometry would otherwise show them again.
    run_checked(module, ["wipefs", "--all", "--quiet", f"/dev/{md}"])
    run_checked(module, ["mdadm", "--stop", f"/dev/{md}"])
    for m in have["members"]:
        run_checked(module, ["mdadm", "--zero-superblock", f"/dev/{m}"])
        run_checked(module, ["wipefs", "--all", "--quiet", f"/dev/{m}"])


def create(module: AnsibleModule, spec: dict, want: dict) -> dict:
    for d in spec["devices"]:
        # Leftovers of an earlier array or a wipeable device's old contents (the guard
        # allowed it) would make mdadm ask before creating.
        module.run_command(["mdadm", "--zero-superblock", d])
        run_checked(module, ["wipefs", "--all", "--quiet", d])
    argv = ["mdadm", "--create", f"/dev/md/{spec['name']}", "--run", "--name", spec["name"]]
    argv += ["--homehost", "any", f"--level={want['level'].removeprefix('raid')}"]
    argv += [f"--raid-devices={len(spec['devices'])}", f"--metadata={want['metadata']}"]
    if want["level"] != "raid0":  # RAID 0 has nothing to resync: mdadm refuses any bitmap
        argv.append(f"--bitmap={want['bitmap']}")
    if want["chunk_kib"]:
        argv.append(f"--chunk={want['chunk_kib']}")
    if spec.get("assume_clean"):
        argv.append("--assume-clean")
    run_checked(module, [*argv, *spec["devices"]])
    run_checked(module, ["udevadm", "settle"])
    record = {"name": spec["name"], "resync_s": 0.0, "assume_clean": bool(spec.get("assume_clean"))}
    if module.params["wait"] and not spec.get("assume_clean") and want["level"] != "raid0":
        t0 = time.monotonic()
        # mdadm --wait exits 1 when there was nothing to wait for.
        rc, _, err = module.run_command(["mdadm", "--wait", f"/dev/md/{spec['name']}"])
        if rc not in (0, 1):
            module.fail_json(msg=f"waiting for the resync of {spec['name']} failed: {err}")
        record["resync_s"] = round(time.monotonic() - t0, 2)
    return record


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "arrays": {"type": "list", "elements": "dict", "default": []},
            "prefix": {"type": "str", "default": "raidsweep-"},
            "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
            "wait": {"type": "bool", "default": True},
            "stripe_cache_size": {"type": "int"},
            "release_vg": {"type": "str"},
        },
        supports_check_mode=True,
    )
    p = module.params
    specs = p["arrays"] if p["state"] == "present" else []
    for s in specs:
        if not str(s.get("name", "")).startswith(p["prefix"]):
            module.fail_json(msg=f"array name {s.get('name')!r} must start with {p['prefix']!r}")
        if LEVELS.get(str(s.get("level", "")).removeprefix("raid")) is None:
            module.fail_json(
                msg=f"array {s['name']}: RAID level {s.get('level')!r} is not 0/1/5/6/10"
            )
        if not s.get("devices"):
            module.fail_json(msg=f"array {s['name']}: no devices")
    have = existing_arrays(module, p["prefix"])
    wants = {s["name"]: (s, wanted(s)) for s in specs}
    doomed = [h for n, h in have.items() if n not in wants or not same(h, wants[n][1])]
    building = [n for n in wants if n not in have or not same(have[n], wants[n][1])]
    plan = []
    if any(h["holders"] for h in doomed) and p["release_vg"]:
        plan.append(f"destroy volume group {p['release_vg']} (its arrays are rebuilt)")
    plan += [
        f"destroy md array {h['name']} (/dev/{h['md']}: {h['level']} over "
        f"{', '.join(h['members'])}; its contents are lost)"
        for h in doomed
    ]
    for n in building:
        s, w = wants[n]
        chunk = f", chunk {w['chunk_kib']} KiB" if w["chunk_kib"] else ""
        plan.append(
            f"create md array {n}: {w['level']} over {', '.join(s['devices'])}{chunk}, "
            f"metadata {w['metadata']}, bitmap {w['bitmap']}"
            f"{', assume-clean (no initial resync)' if s.get('assume_clean') else ''}"
        )
    changed = bool(doomed or building)
    created = []
    if not module.check_mode:
        for h in doomed:
            remove(module, h, p["release_vg"])
        for n in building:
            created.append(create(module, *wants[n]))
    after = have if module.check_mode else existing_arrays(module, p["prefix"])
    if p["stripe_cache_size"] and not module.check_mode:
        for a in after.values():
            path = f"/sys/block/{a['md']}/md/stripe_cache_size"
            if a["level"] in ("raid5", "raid6") and read_text(path) != str(p["stripe_cache_size"]):
                with open(path, "w") as f:
                    f.write(str(p["stripe_cache_size"]))
                changed = True
                plan.append(f"set stripe_cache_size of {a['name']} to {p['stripe_cache_size']}")
    arrays = []
    for a in after.values():
        detail = (
            ""
            if module.check_mode
            else run_checked(module, ["mdadm", "--detail", f"/dev/{a['md']}"])
        )
        info = next((c for c in created if c["name"] == a["name"]), None)
        arrays.append(
            a
            | {
                "device": f"/dev/md/{a['name']}",
                "detail": detail,
                "stripe_cache_size": read_text(f"/sys/block/{a['md']}/md/stripe_cache_size")
                or None,
                "created": info is not None,
                "resync_s": info["resync_s"] if info else None,
                "assume_clean": info["assume_clean"] if info else None,
            }
        )
    module.exit_json(
        changed=changed,
        plan=plan,
        arrays=arrays,
        mdstat=read_text("/proc/mdstat"),
        destroyed=bool(doomed),
        wanted=json.loads(json.dumps([w for _, w in wants.values()])),
    )


if __name__ == "__main__":
    main()
