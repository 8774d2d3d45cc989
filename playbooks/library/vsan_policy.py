#!/usr/bin/python
"""Ansible module: a vSAN storage policy on the worker VMs' test disks, through pyvmomi.

The community modules manage only tag-based policies; this one writes vSAN rules (SPBM),
applies the policy to named virtual disks, sets the cluster's deduplication and compression
(vSAN cluster configuration service) and holds a VM snapshot on each worker during the runs.

This file holds the documentation and the order of the steps; the code is in
module_utils/raidsweep: the vCenter connection (vsan_connection), the rules (vsan_rules), what
the cluster offers (vsan_offer), and the steps plan (vsan_plan), apply (vsan_apply) and
verify (vsan_verify).
"""

from __future__ import annotations

DOCUMENTATION = r"""
---
module: vsan_policy
short_description: A vSAN storage policy on the worker VMs' test disks
description:
  - Creates or updates a vSAN storage policy (SPBM) with the rules failures to tolerate,
    failure tolerance method, number of disk stripes per object, object space reservation
    and flash read cache reservation; applies it to the named disks of the worker VMs; sets
    the cluster's deduplication and compression; holds (or releases) a snapshot of each worker.
  - Everything is checked before anything changes (vCenter reachable, login accepted, cluster,
    VMs and disks present, every rule offered by the cluster); a problem fails with a message
    that names the host, rule, VM or disk, never the password, and nothing is changed.
  - Check mode reports the planned changes and changes nothing.
  - C(state=query) changes nothing and reports what the cluster, VMs and policy are now.
options:
  hostname:
    description: vCenter server name or address.
    type: str
    required: true
  port:
    description: vCenter HTTPS port.
    type: int
    default: 443
  username:
    description: vCenter user; from C(VSAN_USERNAME) or C(VMWARE_USER) when not given.
    type: str
  password:
    description:
      - vCenter password; from Ansible Vault, or C(VSAN_PASSWORD) or C(VMWARE_PASSWORD).
      - Never logged, never returned.
    type: str
  validate_certs:
    description: Verify vCenter's TLS certificate.
    type: bool
    default: true
  cluster:
    description: Name of the vSAN cluster (compute resource) the workers run on.
    type: str
    required: true
  vms:
    description: The worker VMs, each with the labels of its test disks (C(Hard disk 2)).
    type: list
    elements: dict
    required: true
  policy:
    description:
      - The storage policy, in vSphere's terms, for C(state=present).
      - Keys C(name), C(failures_to_tolerate), C(failure_tolerance_method)
        (C(RAID-1 (Mirroring)) or C(RAID-5/6 (Erasure Coding))), C(stripe_width),
        C(object_space_reservation) and C(flash_read_cache_reservation) (percent).
    type: dict
  policy_name:
    description: Name of the policy for C(state=absent) and C(state=query).
    type: str
    default: raidsweep
  data_reduction:
    description: Deduplication and compression on the cluster; omitted leaves them as they are.
    type: bool
  snapshots:
    description: Hold a snapshot of every worker VM; omitted leaves snapshots as they are.
    type: bool
  snapshot_name:
    description: Name of the snapshot this module holds and removes (no other is touched).
    type: str
    default: raidsweep-hold
  task_timeout:
    description: Seconds to wait for one vCenter task.
    type: int
    default: 900
  check_policies:
    description:
      - With C(state=query), policies (keys as in I(policy)) to check against what the
        cluster offers; the problems are returned per policy, in order.
    type: list
    elements: dict
    default: []
  state:
    description: C(present) applies, C(absent) removes the snapshot, the disks' policy and
      the policy itself, C(query) only reports.
    type: str
    choices: [present, absent, query]
    default: present
"""

EXAMPLES = r"""
- name: RAID-5 erasure coding, each component striped over 4 capacity devices
  vsan_policy:
    hostname: vcenter.example.com
    username: sweep@vsphere.local
    password: "{{ vsan_password }}"
    cluster: vsan-cluster
    vms: [{name: worker-1, disks: [Hard disk 2]}]
    policy:
      name: raidsweep
      failures_to_tolerate: 1
      failure_tolerance_method: RAID-5/6 (Erasure Coding)
      stripe_width: 4
    data_reduction: false
    snapshots: true
"""

RETURN = r"""
policy:
  description: The policy as vCenter reads it back (name, id, rules in vSphere's terms).
  type: dict
  returned: always
policies:
  description: Names of every storage requirement policy on the server after the call.
  type: list
  returned: always
disks:
  description: Per test disk, the policy vCenter reports for it (null where it reports none).
  type: list
  returned: always
data_reduction:
  description: Deduplication and compression as requested and as the cluster reports them.
  type: dict
  returned: always
snapshots:
  description: Per worker VM, whether the module's snapshot exists after the call.
  type: dict
  returned: always
flash:
  description:
    - With C(state=query), whether the cluster is all-flash (C(all_flash), null where vSAN
      reports no disk groups), its architecture (ESA or OSA) and each host's disk groups.
  type: dict
  returned: when state is query
capacity_devices:
  description:
    - With C(state=query), the disk groups' capacity devices (C(count), and C(smallest_gb),
      the smallest's size in GB); null where vSAN reports no disk groups.
  type: dict
  returned: when state is query
policy_problems:
  description: Per policy of I(check_policies), what the cluster does not offer of it.
  type: list
  returned: when state is query
data_reduction_problems:
  description: Why the cluster cannot turn deduplication and compression on, if it cannot.
  type: list
  returned: when state is query
changes:
  description: What was changed, or in check mode what would be.
  type: list
  returned: always
"""

from typing import Any  # noqa: E402 - the documentation blocks come first in an Ansible module

from ansible.module_utils.basic import AnsibleModule, env_fallback  # noqa: E402
from ansible.module_utils.raidsweep.vsan_apply import apply  # noqa: E402
from ansible.module_utils.raidsweep.vsan_connection import (  # noqa: E402
    HAS_PYVMOMI,
    Connection,
    MethodFault,
)
from ansible.module_utils.raidsweep.vsan_offer import Offer  # noqa: E402
from ansible.module_utils.raidsweep.vsan_plan import plan  # noqa: E402
from ansible.module_utils.raidsweep.vsan_rules import (  # noqa: E402
    VsanError,
    capability_values,
    capacity_devices_of,
    flash_of,
    hosts_needed,
    policy_rules,
    rule_problems,
    rules_from_capabilities,
)
from ansible.module_utils.raidsweep.vsan_verify import read_back, report, verify  # noqa: E402

#: Besides main() and run(), the module's pure half, for Python callers: the rules, their
#: vSAN capability values, the all-flash reading and the read-back check (``_verify``).
__all__ = [
    "VsanError",
    "capability_values",
    "capacity_devices_of",
    "flash_of",
    "hosts_needed",
    "main",
    "policy_rules",
    "rule_problems",
    "rules_from_capabilities",
    "run",
]
_verify = verify


def run(conn: Connection, params: dict[str, Any], check_mode: bool) -> dict[str, Any]:
    """Plan (everything is checked first), then, unless in check mode or for state=query,
    apply the changes and verify them against what the servers read back."""
    p = plan(conn, params)
    result = p.result()
    if p.state == "query" or check_mode or not p.changes:
        result["changed"] = bool(p.changes) and p.state != "query"
        if p.state == "query":
            result["changes"] = []
            result |= Offer(conn, p.cluster).query(params.get("check_policies") or [])
        report(conn, result, p, p.profile, p.snaps, p.dr_now)
        return result
    # From here on the changes are made, in the order planned.
    result["changed"] = True
    action = apply(conn, p, float(params.get("task_timeout") or 900))
    if action is not None:
        result["policy_action"] = action
    read_back(conn, p, result)
    if p.state == "present":
        verify(result, p.rules, p.name, p.keep)
    return result


# ---------------------------------------------------------------------------- Ansible


def main() -> None:
    module = AnsibleModule(
        argument_spec={
            "hostname": {"type": "str", "required": True},
            "port": {"type": "int", "default": 443},
            "username": {
                "type": "str",
                "fallback": (env_fallback, ["VSAN_USERNAME", "VMWARE_USER"]),
            },
            "password": {
                "type": "str",
                "no_log": True,
                "fallback": (env_fallback, ["VSAN_PASSWORD", "VMWARE_PASSWORD"]),
            },
            "validate_certs": {"type": "bool", "default": True},
            "cluster": {"type": "str", "required": True},
            "vms": {"type": "list", "elements": "dict", "required": True},
            "policy": {"type": "dict"},
            "policy_name": {"type": "str", "default": "raidsweep"},
            "data_reduction": {"type": "bool"},
            "snapshots": {"type": "bool"},
            "snapshot_name": {"type": "str", "default": "raidsweep-hold"},
            "task_timeout": {"type": "int", "default": 900},
            "check_policies": {"type": "list", "elements": "dict", "default": []},
            "state": {
                "type": "str",
                "choices": ["present", "absent", "query"],
                "default": "present",
            },
        },
        supports_check_mode=True,
    )
    if not HAS_PYVMOMI:
        module.fail_json(msg="the vsan_policy module needs pyvmomi on the controller")
    p = module.params
    asked_for = {
        "username": "vsan_username, VSAN_USERNAME",
        "password": "vsan_password in Ansible Vault, VSAN_PASSWORD",
    }
    for key, where in asked_for.items():
        if not p[key]:
            module.fail_json(
                msg=f"no {key} for vCenter {p['hostname']}: give it in {where} or "
                f"VMWARE_{'USER' if key == 'username' else 'PASSWORD'}"
            )
    conn = None
    try:
        conn = Connection(
            p["hostname"], p["port"], p["username"], p["password"], p["validate_certs"]
        )
        result = run(conn, p, module.check_mode)
    except VsanError as exc:
        module.fail_json(msg=str(exc))
    except MethodFault as exc:
        text = conn.scrub(exc.msg or type(exc).__name__) if conn else type(exc).__name__
        where = conn.where if conn else f"vCenter {p['hostname']}"
        module.fail_json(msg=f"{where} refused a request: {text}")
    finally:
        if conn is not None:
            conn.close()
    module.exit_json(**result)


if __name__ == "__main__":
    main()
