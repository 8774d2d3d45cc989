"""The state as the servers read it back after a vsan_policy call, and the check that it is
what was asked."""

from __future__ import annotations

from typing import Any

from ansible.module_utils.raidsweep.vsan_connection import Connection, policy_view
from ansible.module_utils.raidsweep.vsan_plan import Plan
from ansible.module_utils.raidsweep.vsan_rules import VsanError, capability_values


def report(
    conn: Connection,
    result: dict[str, Any],
    p: Plan,
    profile: Any,
    snaps: dict[str, Any],
    dr_now: bool | None,
) -> None:
    """The state as the servers read it back."""
    result["policy"] = policy_view(conn, profile)
    result["policies"] = sorted(x.name for x in conn.policies())
    result["pbm_path"] = conn.pbm_path
    result["disks"] = [
        {"vm": vm.name, "disk": d.deviceInfo.label, "policy_id": conn.disk_policy(vm, d)}
        for vm, disks in p.workers
        for d in disks
    ]
    result["snapshots"] = {name: snap is not None for name, snap in snaps.items()}
    result["snapshot_name"] = p.snap_name
    cluster = conn.cluster(result["cluster"])
    reported = dr_now if dr_now is not None else conn.data_efficiency(cluster)
    result["data_reduction"] = {"requested": p.want_dr, "reported": reported}


def read_back(conn: Connection, p: Plan, result: dict[str, Any]) -> None:
    """After the changes: the policy, the snapshots and the cluster read anew."""
    profile = conn.find_policy(p.name)
    snaps = {vm.name: conn.snapshot(vm, p.snap_name) for vm, _ in p.workers}
    report(conn, result, p, profile, snaps, None)


def verify(
    result: dict[str, Any], rules: dict[str, Any] | None, name: str, keep: dict[str, bool]
) -> None:
    """Compare what the servers read back with what was asked. Where a server reports a
    fact (real vCenter: the disks' policy, dedup and compression) it must match; where it
    reports none (vcsim keeps neither) the result says so instead."""
    assert rules is not None
    policy = result["policy"]
    if policy is None or policy["capabilities"] != capability_values(rules):
        raise VsanError(f"storage policy {name!r} reads back as {policy}, not as asked")
    reported = [d for d in result["disks"] if d["policy_id"] is not None]
    for d in reported:
        if d["policy_id"] != policy["id"]:
            raise VsanError(
                f"VM {d['vm']!r} disk {d['disk']!r} reports policy {d['policy_id']}, "
                f"not {name!r} ({policy['id']})"
            )
    result["disk_policy_verified"] = bool(reported) and len(reported) == len(result["disks"])
    dr = result["data_reduction"]
    if dr["requested"] is not None and dr["reported"] is not None:
        if dr["requested"] != dr["reported"]:
            raise VsanError(
                f"cluster {result['cluster']!r} reports deduplication and compression "
                f"{'on' if dr['reported'] else 'off'} after asking for "
                f"{'on' if dr['requested'] else 'off'}"
            )
    for vm, held in result["snapshots"].items():
        if held != keep[vm]:
            raise VsanError(f"VM {vm!r}: snapshot {result['snapshot_name']!r} is not as asked")
