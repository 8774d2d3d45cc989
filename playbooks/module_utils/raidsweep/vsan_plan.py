"""The plan of one vsan_policy call: what the servers hold now, checked against what the
cluster offers, and the changes in the order they are made. Planning changes nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ansible.module_utils.raidsweep.vsan_connection import Connection, policy_view
from ansible.module_utils.raidsweep.vsan_offer import Offer
from ansible.module_utils.raidsweep.vsan_rules import (
    VsanError,
    capability_values,
    describe,
    policy_rules,
)

#: (VM, its test disks)
Worker = tuple[Any, list[Any]]


@dataclass
class Plan:
    """What one call found, and what it will change."""

    state: str
    #: the storage policy's name
    name: str
    cluster: Any
    workers: list[Worker]
    snap_name: str
    #: the policy's rules (state=present only)
    rules: dict[str, Any] | None
    #: what was checked of the rules against the cluster (state=present only)
    checked: dict[str, Any] | None
    #: the policy as found, and as read back (None: there is none)
    profile: Any
    before: dict[str, Any] | None
    #: per worker, the module's snapshot as found (None: none)
    snaps: dict[str, Any]
    #: deduplication and compression as asked (None: leave as is) and as found
    want_dr: bool | None
    dr_now: bool | None
    #: per worker, whether its snapshot is held once the call is done
    keep: dict[str, bool]
    policy_changes: bool = False
    #: the workers whose disks get the policy
    to_assign: list[Worker] = field(default_factory=list)
    #: the changes in words, in the order they are made
    changes: list[str] = field(default_factory=list)

    def releases(self, vm: Any) -> bool:
        """Whether the worker's snapshot goes: a snapshot taken before a policy change would
        hold the old layout, so it is released first and taken again afterwards."""
        held = self.snaps[vm.name] is not None
        return held and (self.policy_changes or not self.keep[vm.name])

    @property
    def dr_changes(self) -> bool:
        return self.want_dr is not None and self.dr_now is not self.want_dr

    def diff(self) -> dict[str, Any]:
        """What the change does, in the terms of the vSphere Client, for --check --diff."""
        before = {
            "policy": self.before["rules"] if self.before else None,
            "snapshots": {vm: snap is not None for vm, snap in self.snaps.items()},
            "data_reduction": self.dr_now,
        }
        if self.state == "query":
            return {"before": before, "after": before}
        present = self.state == "present"
        after = {
            "policy": self.rules if present else None,
            "snapshots": dict(self.keep) if present else dict.fromkeys(self.snaps, False),
            "data_reduction": self.want_dr if self.want_dr is not None else self.dr_now,
        }
        return {"before": before, "after": after}

    def result(self) -> dict[str, Any]:
        """The module's result as planned, before anything is read back."""
        result: dict[str, Any] = {"changed": False, "changes": self.changes}
        result["cluster"] = self.cluster.name
        if self.checked is not None:
            result["checked"] = self.checked
        result["diff"] = self.diff()
        result["disks"] = []
        return result


def plan(conn: Connection, params: dict[str, Any]) -> Plan:
    """Read what is there and check what is asked; every problem fails before anything
    changes."""
    state = params.get("state") or "present"
    cluster = conn.cluster(params["cluster"])
    workers = conn.vms(params["vms"])
    snap_name = params.get("snapshot_name") or "raidsweep-hold"
    policy_spec = params.get("policy") or {}
    name = policy_spec.get("name") or params.get("policy_name") or "raidsweep"
    want_dr = params.get("data_reduction")
    rules, checked = None, None
    if state == "present":
        if not policy_spec:
            raise VsanError("state=present needs a policy")
        rules = policy_rules(policy_spec)
        checked = Offer(conn, cluster).check(rules, want_dr)
    profile = conn.find_policy(name)
    before = policy_view(conn, profile)
    snaps = {vm.name: conn.snapshot(vm, snap_name) for vm, _ in workers}
    want_snap = params.get("snapshots")
    dr_now = conn.data_efficiency(cluster) if (want_dr is not None or state == "query") else None
    keep = {
        vm.name: (snaps[vm.name] is not None) if want_snap is None else want_snap
        for vm, _ in workers
    }
    p = Plan(
        state=state,
        name=name,
        cluster=cluster,
        workers=workers,
        snap_name=snap_name,
        rules=rules,
        checked=checked,
        profile=profile,
        before=before,
        snaps=snaps,
        want_dr=want_dr,
        dr_now=dr_now,
        keep=keep,
    )
    if state == "present":
        _plan_present(conn, p)
    elif state == "absent":
        _plan_absent(p)
    return p


def _plan_present(conn: Connection, p: Plan) -> None:
    assert p.rules is not None
    before, name, changes = p.before, p.name, p.changes
    p.policy_changes = before is None or before["capabilities"] != capability_values(p.rules)
    if before is None:
        changes.append(f"create storage policy {name!r}: {describe(p.rules)}")
    elif p.policy_changes:
        changes.append(f"update storage policy {name!r}: {describe(p.rules)}")
    for vm, disks in p.workers:
        # Where vCenter reports every disk on the policy already, there is nothing to
        # apply; vcsim reports none, so there the policy is applied every time.
        current = {conn.disk_policy(vm, d) for d in disks}
        if p.policy_changes or before is None or current != {before["id"]}:
            p.to_assign.append((vm, disks))
    for vm, _ in p.workers:
        if p.releases(vm):
            changes.append(f"remove snapshot {p.snap_name!r} of VM {vm.name!r}")
    for vm, disks in p.to_assign:
        labels = ", ".join(d.deviceInfo.label for d in disks)
        changes.append(f"apply storage policy {name!r} to VM {vm.name!r} disks {labels}")
    if p.dr_changes:
        changes.append(
            f"turn deduplication and compression {'on' if p.want_dr else 'off'} on cluster "
            f"{p.cluster.name!r}"
        )
    for vm, _ in p.workers:
        if p.keep[vm.name] and (p.snaps[vm.name] is None or p.policy_changes):
            changes.append(f"take snapshot {p.snap_name!r} of VM {vm.name!r}")


def _plan_absent(p: Plan) -> None:
    for vm, _ in p.workers:
        if p.snaps[vm.name] is not None:
            p.changes.append(f"remove snapshot {p.snap_name!r} of VM {vm.name!r}")
    if p.before is not None:
        for vm, disks in p.workers:
            labels = ", ".join(d.deviceInfo.label for d in disks)
            p.changes.append(f"give VM {vm.name!r} disks {labels} the datastore's default policy")
        p.changes.append(f"delete storage policy {p.name!r}")
