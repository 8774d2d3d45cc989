"""Carries out a vsan_policy plan, in the order it was planned (never in check mode)."""

from __future__ import annotations

from ansible.module_utils.raidsweep.vsan_connection import Connection
from ansible.module_utils.raidsweep.vsan_plan import Plan


def apply(conn: Connection, p: Plan, timeout_s: float) -> str | None:
    """Make the planned changes; returns what became of the policy (``created``,
    ``updated`` or ``recreated``), None where it was left as it was or removed."""
    if p.state == "present":
        return _apply_present(conn, p, timeout_s)
    for vm, _ in p.workers:
        if p.snaps[vm.name] is not None:
            conn.remove_snapshot(vm, p.snaps[vm.name], p.snap_name, timeout_s)
    if p.profile is not None:
        for vm, disks in p.workers:
            conn.assign(vm, disks, None, timeout_s)
        conn.delete_policy(p.profile)
    return None


def _apply_present(conn: Connection, p: Plan, timeout_s: float) -> str | None:
    assert p.rules is not None
    action = None
    policy_id = p.before["id"] if p.before else None
    if p.before is None:
        policy_id = conn.create_policy(p.name, p.rules)
        action = "created"
    elif p.policy_changes:
        policy_id, action = conn.update_policy(p.profile, p.rules)
    held = dict(p.snaps)
    for vm, _ in p.workers:
        if p.releases(vm):
            conn.remove_snapshot(vm, held[vm.name], p.snap_name, timeout_s)
            held[vm.name] = None
    for vm, disks in p.to_assign:
        conn.assign(vm, disks, policy_id, timeout_s)
    if p.dr_changes:
        assert p.want_dr is not None
        conn.set_data_efficiency(p.cluster, p.want_dr, timeout_s)
    for vm, _ in p.workers:
        if p.keep[vm.name] and held[vm.name] is None:
            conn.take_snapshot(vm, p.snap_name, timeout_s)
    return action
