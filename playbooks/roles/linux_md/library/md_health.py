#!/usr/bin/python
"""Ansible module: put one of raidsweep's md arrays into the health a configuration measures."""

from __future__ import annotations

DOCUMENTATION = r"""
module: md_health
short_description: Fail a member of a raidsweep md array, rebuild onto a spare, or make it whole
description:
  - C(optimal) makes the array whole; a member missing is added back and the resync waited
    for (at the host's own resync speed limits, restored first).
  - C(degraded) runs the array with one member failed; the last declared member is failed,
    removed and wiped (a blank drive, as a replaced one would be).
  - C(rebuilding) measures while a spare resyncs; the missing member is added back as a blank
    spare and the recovery started, capped at C(rebuild_kib_s) when given; the rebuild rate
    is sampled over C(sample_s) seconds and reported.
  - Only arrays whose name starts with C(prefix) (raidsweep's own) are touched. Idempotent; an
    array already in the asked health is left as it is; check mode reports the plan only.
options:
  array:
    description: Name of the array (C(/dev/md/<array>)).
    type: str
    required: true
  devices:
    description: The array's declared members, in order (the last is the one failed).
    type: list
    elements: str
    required: true
  health:
    description: The health to put the array into.
    type: str
    choices: [optimal, degraded, rebuilding]
    required: true
  rebuild_kib_s:
    description: Resync speed cap (KiB/s) while C(rebuilding); the host's limits if not given.
    type: int
  sample_s:
    description: Seconds over which the rebuild rate is sampled.
    type: float
    default: 2.0
  prefix:
    description: Name prefix of raidsweep's own arrays.
    type: str
    default: raidsweep-
author: raidsweep
"""

EXAMPLES = r"""
- name: Measure while a spare resyncs at no more than 10 MB/s
  md_health:
    array: raidsweep-r0
    devices: [/dev/disk/by-id/virtio-data0, /dev/disk/by-id/virtio-data1,
              /dev/disk/by-id/virtio-data2, /dev/disk/by-id/virtio-data3]
    health: rebuilding
    rebuild_kib_s: 10000
"""

RETURN = r"""
health:
  description: The array's health after the module (optimal, degraded, rebuilding).
  type: str
  returned: always
found:
  description: The health the array was in before, with its C(sync_completed) at C(at) (a
    rebuild still running proves it lasted; with the rebuild's start, its rate over the runs).
  type: dict
  returned: always
rebuild:
  description: While rebuilding, the spare, the cap, the rate sampled and md's own in KiB/s,
    and how far the rebuild was (C(sync_completed), in sectors) at C(at) (epoch seconds).
  type: dict
  returned: when rebuilding
detail:
  description: mdadm --detail of the array afterwards.
  type: str
  returned: always
plan:
  description: What the module changed (or would change, in check mode).
  type: list
  returned: always
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.raidsweep.linux_block import kernel_name, read_text, run_checked


def state_of(md: str, devices: list[str]) -> dict:
    """The array's members as sysfs lists them and what it is doing."""
    base = f"/sys/block/{md}/md"
    states = {
        kernel_name(f"{base}/{d}/block"): read_text(f"{base}/{d}/state")
        for d in os.listdir(base)
        if d.startswith("dev-")
    }
    missing = [d for d in devices if kernel_name(d) not in states]
    faulty = [k for k, s in states.items() if "faulty" in s]
    action = read_text(f"{base}/sync_action")
    recovering = action in ("recover", "resync") or any(s == "spare" for s in states.values())
    health = (
        "rebuilding"
        if recovering
        else "degraded"
        if missing or faulty or int(read_text(f"{base}/degraded") or 0)
        else "optimal"
    )
    return {
        "health": health,
        "missing": missing,
        "faulty": faulty,
        "sync_action": action,
        "sync_completed": read_text(f"{base}/sync_completed"),
        "degraded": int(read_text(f"{base}/degraded") or 0),
        "at": round(time.time(), 3),
    }


def sectors_done(md: str) -> int | None:
    done = read_text(f"/sys/block/{md}/md/sync_completed").split("/")[0].strip()
    return int(done) if done.isdigit() else None


def set_speed(md: str, kib_s: int | None) -> None:
    """Cap the array's resync speed (both limits, so md neither exceeds nor is held above it),
    or give it back to the host's own limits."""
    value = "system" if kib_s is None else str(kib_s)
    for limit in ("sync_speed_min", "sync_speed_max"):
        with open(f"/sys/block/{md}/md/{limit}", "w") as f:
            f.write(value)


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "array": {"type": "str", "required": True},
            "devices": {"type": "list", "elements": "str", "required": True},
            "health": {
                "type": "str",
                "required": True,
                "choices": ["optimal", "degraded", "rebuilding"],
            },
            "rebuild_kib_s": {"type": "int"},
            "sample_s": {"type": "float", "default": 2.0},
            "prefix": {"type": "str", "default": "raidsweep-"},
        },
        supports_check_mode=True,
    )
    p = module.params
    if not p["array"].startswith(p["prefix"]):
        module.fail_json(msg=f"array {p['array']!r} is not raidsweep's (prefix {p['prefix']!r})")
    node = f"/dev/md/{p['array']}"
    if not os.path.exists(node):
        if module.check_mode:  # built by this configuration: its health follows
            plan = [f"put {p['array']} into health {p['health']} once built"]
            module.exit_json(changed=True, plan=plan, health=None, found={}, detail="")
        module.fail_json(msg=f"{node} does not exist")
    md = kernel_name(node)
    devices, want = p["devices"], p["health"]
    victim = devices[-1]
    found = state_of(md, devices)
    plan: list[str] = []
    act = not module.check_mode

    def fail_out(member: str) -> None:
        plan.append(f"fail and remove {member} from {p['array']}, and wipe it")
        if act:
            run_checked(module, ["mdadm", node, "--fail", member])
            # the kernel releases a failed member a moment later
            for _ in range(50):
                rc, _, _ = module.run_command(["mdadm", node, "--remove", member])
                if rc == 0:
                    break
                time.sleep(0.1)
            else:
                module.fail_json(msg=f"{member} could not be removed from {p['array']}")
            module.run_command(["mdadm", "--zero-superblock", member])
            run_checked(module, ["wipefs", "--all", "--quiet", member])

    def add_back(member: str, kib_s: int | None) -> None:
        plan.append(
            f"add {member} to {p['array']} as a spare and rebuild onto it"
            + (f" at no more than {kib_s} KiB/s" if kib_s else "")
        )
        if act:
            set_speed(md, kib_s)
            module.run_command(["mdadm", "--zero-superblock", member])
            run_checked(module, ["mdadm", node, "--add", member])

    rebuild = None
    spare = victim
    if want == "optimal" and found["health"] != "optimal":
        for k in found["faulty"]:
            fail_out(f"/dev/{k}")
        for member in found["missing"] + [f"/dev/{k}" for k in found["faulty"]]:
            add_back(member, None)
        plan.append(f"wait for the resync of {p['array']}")
        if act:
            set_speed(md, None)
            rc, _, err = module.run_command(["mdadm", "--wait", node])
            if rc not in (0, 1):
                module.fail_json(msg=f"waiting for the resync of {p['array']} failed: {err}")
    elif want == "degraded" and found["health"] != "degraded":
        fail_out(victim)  # a fresh member, or the spare being rebuilt onto
    elif want == "rebuilding":
        if found["health"] == "optimal":
            fail_out(victim)
        if found["health"] != "rebuilding":
            spare = victim if found["health"] == "optimal" else found["missing"][0]
            add_back(spare, p["rebuild_kib_s"])
        elif act:
            set_speed(md, p["rebuild_kib_s"])
        if act:
            for _ in range(100):  # md starts the recovery a moment after the spare is added
                if sectors_done(md) is not None:
                    break
                time.sleep(0.1)
            first, t0 = sectors_done(md), time.monotonic()
            time.sleep(p["sample_s"])
            last, seconds = sectors_done(md), time.monotonic() - t0
            rate = (
                round((last - first) * 512 / 1024 / seconds, 1)
                if first is not None and last is not None
                else None
            )
            rebuild = {
                "spare": spare,
                "cap_kib_s": p["rebuild_kib_s"],
                "rate_kib_s": rate,
                # md's own figure over its last window (it bursts, then holds the cap)
                "md_sync_speed_kib_s": int(read_text(f"/sys/block/{md}/md/sync_speed") or 0),
                "sync_completed": read_text(f"/sys/block/{md}/md/sync_completed"),
                "at": round(time.time(), 3),
            }
    after = found if module.check_mode else state_of(md, devices)
    if act and after["health"] != want:
        module.fail_json(msg=f"{p['array']} is {after['health']}, not {want}", found=found)
    module.exit_json(
        changed=bool(plan),
        plan=plan,
        health=after["health"],
        found=found,
        rebuild=rebuild,
        detail="" if module.check_mode else run_checked(module, ["mdadm", "--detail", node]),
    )


if __name__ == "__main__":
    main()
