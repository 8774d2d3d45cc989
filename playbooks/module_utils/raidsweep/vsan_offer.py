"""What a vSAN cluster offers, read once, and what of a policy it does not: the checks
the vsan_policy module makes before anything changes, and reports with state=query."""

from __future__ import annotations

from typing import Any

from ansible.module_utils.raidsweep.vsan_connection import Connection
from ansible.module_utils.raidsweep.vsan_rules import (
    ERASURE_CODING,
    RULE_IDS,
    RULE_TITLES,
    VsanError,
    capacity_devices_of,
    flash_of,
    hosts_needed,
    policy_rules,
    rule_problems,
)


class Offer:
    """What the cluster offers, read once: usable hosts, SPBM's capability metadata where the
    server serves it, and whether the cluster is all-flash and its capacity devices where
    vSAN reports them."""

    def __init__(self, conn: Connection, cluster: Any):
        self.conn = conn
        self.cluster = cluster
        self.hosts = conn.usable_hosts(cluster)
        self.capabilities = conn.offered_capabilities()
        storage = conn.host_storage(cluster)
        self.flash = flash_of(conn.esa_enabled(cluster), storage)
        self.capacity_devices = capacity_devices_of(storage)

    def _hybrid(self) -> str:
        hybrid = [h for h, v in self.flash["hosts"].items() if v == "hybrid"]
        return f"hybrid disk groups (flash cache, magnetic capacity) on {', '.join(hybrid)}"

    def problems(self, rules: dict[str, Any]) -> list[str]:
        """Everything about ``rules`` that the cluster does not offer, each naming the
        cluster and the rule."""
        name = self.cluster.name
        problems = [f"cluster {name!r}: {p}" for p in rule_problems(rules)]
        if problems:
            return problems
        if self.capabilities is not None:
            problems += [
                f"cluster {name!r} does not offer the rule {RULE_TITLES[key]!r} "
                f"(vSAN capability {cap_id}) in {self.conn.where}"
                for key, cap_id in RULE_IDS.items()
                if cap_id not in self.capabilities
            ]
        method = rules["failure_tolerance_method"]
        ftt = rules["failures_to_tolerate"]
        level = {1: "RAID-5", 2: "RAID-6"}.get(ftt) if method == ERASURE_CODING else "RAID-1"
        rule = (
            f"the rule {RULE_TITLES['failure_tolerance_method']!r} = {method} with failures "
            f"to tolerate {ftt} ({level})"
        )
        need = hosts_needed(rules)
        if len(self.hosts) < need:
            problems.append(
                f"cluster {name!r} does not offer {rule}: that needs {need} hosts, the "
                f"cluster has {len(self.hosts)} usable"
            )
        if method == ERASURE_CODING and self.flash["all_flash"] is False:
            problems.append(
                f"cluster {name!r} does not offer {rule}: erasure coding needs an all-flash "
                f"cluster, and it has {self._hybrid()}"
            )
        return problems

    def data_reduction_problems(self) -> list[str]:
        """Deduplication and compression need an all-flash cluster (where it is known)."""
        if self.flash["all_flash"] is not False:
            return []
        return [
            f"cluster {self.cluster.name!r} does not offer deduplication and compression: "
            f"they need an all-flash cluster, and it has {self._hybrid()}"
        ]

    def checked(self, rules: dict[str, Any]) -> dict[str, Any]:
        return {
            "usable_hosts": len(self.hosts),
            "hosts_needed": hosts_needed(rules),
            "capability_metadata": self.capabilities is not None,
            "all_flash": self.flash["all_flash"],
        }

    def check(self, rules: dict[str, Any], data_reduction: bool | None) -> dict[str, Any]:
        """What was checked of ``rules`` (and of deduplication and compression, when they are
        to be on); every problem at once, as one VsanError, before anything changes."""
        problems = self.problems(rules)
        if data_reduction:
            problems += self.data_reduction_problems()
        if problems:
            raise VsanError("; ".join(problems))
        return self.checked(rules)

    def query(self, check_policies: list[dict[str, Any]]) -> dict[str, Any]:
        """What state=query reports of the cluster, with every policy the caller will ask for
        checked now (a sweep's preflight)."""
        return {
            "usable_hosts": self.hosts,
            "flash": self.flash,
            "capacity_devices": self.capacity_devices,
            "capability_metadata": self.capabilities is not None,
            "policy_problems": [self.problems(policy_rules(p)) for p in check_policies],
            "data_reduction_problems": self.data_reduction_problems(),
        }
