#!/usr/bin/python
"""Ansible module: raidsweep's test volume on LVM, as one declaration.

community.general's lvg and lvol set a volume group and a volume one at a time, and neither
rebuilds a volume group whose extent size or physical volumes must change. The test volume
is one object with one lifetime, so one task builds, compares and tears down all of it.
"""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: lvm_volume
short_description: A test volume on LVM over given physical volumes (linear or striped)
description:
  - Makes volume group I(vg) over exactly I(pvs) with extents of I(extent_kib), and in it
    the logical volume I(lv) over I(size_pct) percent of the group, linear (I(stripes) 1) or
    striped over I(stripes) physical volumes in units of I(stripe_kib).
  - A volume group or volume that exists but differs is removed and built again; one as
    declared is left alone, so a second run changes nothing.
  - Optionally holds a snapshot C(<lv>-hold) of the volume, caches it with dm-cache on a
    faster device in writeback or writethrough mode, and sets its read-ahead.
  - C(state=absent) removes the group with everything in it and the PV labels.
  - Check mode reports the plan (I(plan)) and changes nothing.
options:
  vg:
    description: Name of the volume group (raidsweep's own; no other is touched).
    type: str
    required: true
  pvs:
    description: The physical volumes, in order.
    type: list
    elements: str
    default: []
  extent_kib:
    description: Physical extent size of the group in KiB.
    type: int
    default: 4096
  lv:
    description: Name of the test volume.
    type: str
    default: volume
  size_pct:
    description: Share of the group's extents the volume takes (the rest holds the snapshot).
    type: int
    default: 50
  stripes:
    description: Number of stripes (1 is linear).
    type: int
    default: 1
  stripe_kib:
    description: Stripe size in KiB when I(stripes) is more than 1.
    type: int
  read_ahead_kib:
    description: Read-ahead of the volume in KiB; null is LVM's C(auto).
    type: int
  snapshot:
    description: Hold a snapshot C(<lv>-hold) of the volume over the rest of the group.
    type: bool
    default: false
  cache_device:
    description:
      - A faster device to cache the volume on with dm-cache (lvmcache); it joins the group
        and holds only the cache. Omitted, the volume is not cached (a cache is removed).
    type: str
  cache_mode:
    description: The dm-cache's write mode.
    type: str
    choices: [writeback, writethrough]
    default: writethrough
  cache_pct:
    description: Share of the cache device the cache takes (the rest holds its metadata spare).
    type: int
    default: 80
  assume_absent:
    description:
      - Plan as if the group did not exist (check mode, when the arrays under it are to be
        rebuilt first and take it with them).
    type: bool
    default: false
  state:
    description: C(present) or C(absent).
    type: str
    choices: [present, absent]
    default: present
author: raidsweep
"""

EXAMPLES = r"""
- name: A test volume striped over two arrays in 64 KiB units, with a held snapshot
  lvm_volume:
    vg: raidsweep
    pvs: [/dev/md/raidsweep-r0, /dev/md/raidsweep-r1]
    extent_kib: 4096
    size_pct: 50
    stripes: 2
    stripe_kib: 64
    read_ahead_kib: 1024
    snapshot: true

- name: The same volume linear over one array, cached in writeback on a faster device
  lvm_volume:
    vg: raidsweep
    pvs: [/dev/md/raidsweep-r0]
    cache_device: /dev/disk/by-id/nvme-fast0
    cache_mode: writeback

- name: Remove the volume group, its volumes and the PV labels
  lvm_volume:
    vg: raidsweep
    state: absent
"""

RETURN = r"""
report:
  description: C(lvs) of the group after the change (stripes, stripe size, devices, read-ahead).
  type: list
  returned: always
plan:
  description: What was (or, in check mode, would be) created and destroyed.
  type: list
  returned: always
"""

import json
import os

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.raidsweep.linux_block import release_mounts, run_checked

LV_FIELDS = (
    "lv_name,lv_size,seg_count,segtype,stripes,stripe_size,origin,lv_read_ahead,devices,lv_attr,"
    "cache_mode,pool_lv"
)


def _report(module: AnsibleModule, argv: list[str], key: str) -> list[dict]:
    rc, out, _ = module.run_command([*argv, "--reportformat", "json", "--units", "b", "--nosuffix"])
    if rc != 0 or not out.strip():
        return []
    return json.loads(out)["report"][0][key]


def state_of(module: AnsibleModule, vg: str) -> dict:
    vgs = _report(module, ["vgs", "-o", "vg_name,vg_extent_size,vg_extent_count", vg], "vg")
    if not vgs:
        return {}
    pvs = {
        os.path.realpath(p["pv_name"]): int(p["pv_pe_count"] or 0)
        for p in _report(module, ["pvs", "-o", "pv_name,vg_name,pv_pe_count"], "pv")
        if p["vg_name"] == vg
    }
    # -a: a cached volume's geometry is that of its hidden origin, [<lv>_corig]
    lvs = [
        x | {"lv_name": x["lv_name"].strip("[]")}
        for x in _report(module, ["lvs", "-a", "-o", LV_FIELDS, vg], "lv")
    ]
    return {
        "extent_bytes": int(vgs[0]["vg_extent_size"]),
        "extents": int(vgs[0]["vg_extent_count"]),
        "pvs": sorted(pvs),
        "pv_extents": pvs,
        "lvs": lvs,
    }


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "vg": {"type": "str", "required": True},
            "pvs": {"type": "list", "elements": "str", "default": []},
            "extent_kib": {"type": "int", "default": 4096},
            "lv": {"type": "str", "default": "volume"},
            "size_pct": {"type": "int", "default": 50},
            "stripes": {"type": "int", "default": 1},
            "stripe_kib": {"type": "int"},
            "read_ahead_kib": {"type": "int"},
            "snapshot": {"type": "bool", "default": False},
            "assume_absent": {"type": "bool", "default": False},
            "cache_device": {"type": "str"},
            "cache_mode": {
                "type": "str",
                "choices": ["writeback", "writethrough"],
                "default": "writethrough",
            },
            "cache_pct": {"type": "int", "default": 80},
            "state": {"type": "str", "choices": ["present", "absent"], "default": "present"},
        },
        supports_check_mode=True,
    )
    p = module.params
    vg, lv, snap = p["vg"], p["lv"], f"{p['lv']}-hold"
    have = {} if p["assume_absent"] and module.check_mode else state_of(module, vg)
    plan: list[str] = []
    act = not module.check_mode

    def remove_vg() -> None:
        plan.append(f"destroy volume group {vg} and its volumes ({', '.join(have['pvs'])})")
        if act:
            release_mounts(module, vg)
            run_checked(module, ["vgremove", "--force", "--yes", vg])
            for pv in have["pvs"]:
                module.run_command(["pvremove", "--force", "--force", "--yes", pv])

    if p["state"] == "absent":
        if have:
            remove_vg()
        module.exit_json(changed=bool(plan), plan=plan, report=[])

    if not 1 <= p["size_pct"] <= 100 or not p["pvs"] or p["stripes"] < 1:
        module.fail_json(msg="size_pct must be 1..100, pvs not empty and stripes at least 1")
    if p["stripes"] > len(p["pvs"]):
        module.fail_json(
            msg=f"{p['stripes']} stripes need as many physical volumes, not {len(p['pvs'])}"
        )
    cache_dev = p["cache_device"]
    data_pvs = [os.path.realpath(x) for x in p["pvs"]]
    want_pvs = sorted(data_pvs + ([os.path.realpath(cache_dev)] if cache_dev else []))
    extent = p["extent_kib"] * 1024
    if have and (have["pvs"] != want_pvs or have["extent_bytes"] != extent):
        remove_vg()
        have = {}
    if not have:
        members = [*p["pvs"], *([cache_dev] if cache_dev else [])]
        plan.append(
            f"create volume group {vg} over {', '.join(members)} with {p['extent_kib']} KiB extents"
        )
        if act:
            for pv in members:
                run_checked(module, ["pvcreate", "--yes", "--force", pv])
            run_checked(
                module,
                ["vgcreate", "--yes", "--physicalextentsize", f"{p['extent_kib']}k", vg, *members],
            )
            have = state_of(module, vg)
    # The volume's share is of the arrays' extents; the cache device holds only the cache.
    total = sum(have.get("pv_extents", {}).get(pv, 0) for pv in data_pvs)
    # Whole stripes only, so the size LVM makes is the size asked for and compares equal.
    extents = total * p["size_pct"] // 100 // p["stripes"] * p["stripes"]
    lvs = {x["lv_name"]: x for x in have.get("lvs", [])}
    cur = lvs.get(lv)
    geometry = lvs.get(f"{lv}_corig", cur) if cur and cur.get("segtype") == "cache" else cur
    stripe_bytes = (p["stripe_kib"] or 0) * 1024 if p["stripes"] > 1 else 0
    if (
        cur
        and geometry
        and (
            int(cur["lv_size"]) != extents * extent
            or int(geometry["stripes"] or 1) != p["stripes"]
            or (p["stripes"] > 1 and int(geometry["stripe_size"] or 0) != stripe_bytes)
        )
    ):
        plan.append(f"destroy volume {vg}/{lv} (its layout changes; contents are lost)")
        if act:
            release_mounts(module, vg)
            run_checked(module, ["lvremove", "--force", "--yes", f"{vg}/{lv}"])
        cur = None
        lvs.pop(snap, None)  # a snapshot goes with its origin
    if cur is None:
        layout = (
            f"striped over {p['stripes']} PVs in {p['stripe_kib']} KiB units"
            if p["stripes"] > 1
            else "linear"
        )
        size = f"{extents} extents" if total else f"{p['size_pct']}% of the group"
        plan.append(f"create volume {vg}/{lv}: {size}, {layout}")
        if act:
            argv = [
                "lvcreate",
                "--yes",
                "--wipesignatures",
                "y",
                "--zero",
                "n",
                "--extents",
                str(extents),
                "--name",
                lv,
            ]
            if p["stripes"] > 1:
                argv += ["--stripes", str(p["stripes"]), "--stripesize", f"{p['stripe_kib']}k"]
            run_checked(module, [*argv, vg, *p["pvs"]])
    mode = p["cache_mode"]
    cached = cur is not None and cur.get("segtype") == "cache"
    want_cache = bool(cache_dev)
    if cached != want_cache or (cached and cur.get("cache_mode") != mode):
        if snap in lvs:  # LVM changes the caching of a volume without snapshots only
            plan.append(f"drop snapshot {vg}/{snap} while the cache changes")
            if act:
                run_checked(module, ["lvremove", "--force", "--yes", f"{vg}/{snap}"])
            lvs.pop(snap)
        if cached and not want_cache:
            plan.append(f"remove the dm-cache of {vg}/{lv} (dirty blocks are written first)")
            if act:
                run_checked(module, ["lvconvert", "--yes", "--uncache", f"{vg}/{lv}"])
        elif cached:
            plan.append(f"switch the dm-cache of {vg}/{lv} to {mode}")
            if act:
                run_checked(module, ["lvchange", "--yes", "--cachemode", mode, f"{vg}/{lv}"])
        else:
            plan.append(f"cache {vg}/{lv} with dm-cache on {cache_dev} ({p['cache_pct']}%), {mode}")
            if act:
                run_checked(
                    module,
                    [
                        "lvcreate",
                        "--yes",
                        "--type",
                        "cache-pool",
                        "--poolmetadataspare",  # a spare would take extents of the arrays
                        "n",
                        "--extents",
                        f"{p['cache_pct']}%PVS",
                        "--name",
                        f"{lv}_cache",
                        vg,
                        cache_dev,
                    ],
                )
                run_checked(
                    module,
                    [
                        "lvconvert",
                        "--yes",
                        "--type",
                        "cache",
                        "--cachemode",
                        mode,
                        "--cachepool",
                        f"{vg}/{lv}_cache",
                        f"{vg}/{lv}",
                    ],
                )
    ra = "auto" if p["read_ahead_kib"] is None else str(p["read_ahead_kib"] * 2)
    ra_bytes = None if p["read_ahead_kib"] is None else p["read_ahead_kib"] * 1024
    have_ra = (cur or {}).get("lv_read_ahead")
    if cur is None or str(have_ra) != ("auto" if ra_bytes is None else str(ra_bytes)):
        shown = "auto" if ra_bytes is None else f"{p['read_ahead_kib']} KiB"
        plan.append(f"set read-ahead of {vg}/{lv} to {shown}")
        if act:
            run_checked(module, ["lvchange", "--readahead", ra, f"{vg}/{lv}"])
    if p["snapshot"] and snap not in lvs:
        plan.append(f"hold snapshot {vg}/{snap} of {vg}/{lv}")
        if act:
            # on the arrays only, not on the cache device
            run_checked(
                module,
                [
                    "lvcreate",
                    "--yes",
                    "--snapshot",
                    "--extents",
                    "100%PVS",
                    "--name",
                    snap,
                    f"{vg}/{lv}",
                    *p["pvs"],
                ],
            )
    elif not p["snapshot"] and snap in lvs:
        plan.append(f"drop snapshot {vg}/{snap}")
        if act:
            run_checked(module, ["lvremove", "--force", "--yes", f"{vg}/{snap}"])
    report = [] if module.check_mode else state_of(module, vg).get("lvs", [])
    module.exit_json(changed=bool(plan), plan=plan, report=report, path=f"/dev/{vg}/{lv}")


if __name__ == "__main__":
    main()
