"""vSAN storage policy rules in vSphere's terms, their vSAN capability values, and the
all-flash reading of a cluster: the pure half of the vsan_policy module (no server needed)."""

from __future__ import annotations

from typing import Any

MIRRORING = "RAID-1 (Mirroring)"
ERASURE_CODING = "RAID-5/6 (Erasure Coding)"
#: vSAN's own value strings of the replicaPreference capability
REPLICA_PREFERENCE = {
    MIRRORING: "RAID-1 (Mirroring) - Performance",
    ERASURE_CODING: "RAID-5/6 (Erasure Coding) - Capacity",
}
#: rule (vSphere UI name) -> vSAN capability id
RULE_IDS = {
    "failures_to_tolerate": "hostFailuresToTolerate",
    "failure_tolerance_method": "replicaPreference",
    "stripe_width": "stripeWidth",
    "object_space_reservation": "proportionalCapacity",
    "flash_read_cache_reservation": "cacheReservation",
}
RULE_TITLES = {
    "failures_to_tolerate": "Failures to tolerate",
    "failure_tolerance_method": "Failure tolerance method",
    "stripe_width": "Number of disk stripes per object",
    "object_space_reservation": "Object space reservation",
    "flash_read_cache_reservation": "Flash read cache reservation",
}
#: vSAN keeps the flash read cache reservation in ten-thousandths of a percent
CACHE_RESERVATION_SCALE = 10000


class VsanError(Exception):
    """A problem stated for the engineer: names the host, rule, VM or disk; never a secret."""


def policy_rules(policy: dict[str, Any]) -> dict[str, Any]:
    """The policy's rules in vSphere's terms, defaults filled in."""
    return {
        "failures_to_tolerate": int(policy.get("failures_to_tolerate", 1)),
        "failure_tolerance_method": policy.get("failure_tolerance_method", MIRRORING),
        "stripe_width": int(policy.get("stripe_width", 1)),
        "object_space_reservation": int(policy.get("object_space_reservation", 0)),
        "flash_read_cache_reservation": float(policy.get("flash_read_cache_reservation", 0)),
    }


def hosts_needed(rules: dict[str, Any]) -> int:
    """Hosts (fault domains) vSAN needs for the rules: 2n+1 mirrored, 4 RAID-5, 6 RAID-6."""
    ftt = rules["failures_to_tolerate"]
    if rules["failure_tolerance_method"] == ERASURE_CODING:
        return 4 if ftt == 1 else 6
    return 2 * ftt + 1


def rule_problems(rules: dict[str, Any]) -> list[str]:
    """Values vSAN does not accept for a rule, whatever the cluster."""
    problems = []
    method = rules["failure_tolerance_method"]
    if method not in REPLICA_PREFERENCE:
        problems.append(
            f"rule {RULE_TITLES['failure_tolerance_method']!r}: {method!r} is not "
            f"{MIRRORING!r} or {ERASURE_CODING!r}"
        )
    ftt = rules["failures_to_tolerate"]
    allowed = (1, 2) if method == ERASURE_CODING else (0, 1, 2, 3)
    if ftt not in allowed:
        problems.append(
            f"rule {RULE_TITLES['failures_to_tolerate']!r}: {ftt} is not offered with "
            f"{method} (offered: {', '.join(map(str, allowed))})"
        )
    if not 1 <= rules["stripe_width"] <= 12:
        problems.append(
            f"rule {RULE_TITLES['stripe_width']!r}: {rules['stripe_width']} is outside 1..12"
        )
    for key in ("object_space_reservation", "flash_read_cache_reservation"):
        if not 0 <= rules[key] <= 100:
            problems.append(f"rule {RULE_TITLES[key]!r}: {rules[key]}% is outside 0..100")
    return problems


def capability_values(rules: dict[str, Any]) -> dict[str, Any]:
    """vSAN capability id -> value, as SPBM stores it."""
    return {
        "hostFailuresToTolerate": rules["failures_to_tolerate"],
        "replicaPreference": REPLICA_PREFERENCE[rules["failure_tolerance_method"]],
        "stripeWidth": rules["stripe_width"],
        "proportionalCapacity": rules["object_space_reservation"],
        "cacheReservation": round(rules["flash_read_cache_reservation"] * CACHE_RESERVATION_SCALE),
    }


def rules_from_capabilities(caps: dict[str, Any]) -> dict[str, Any]:
    """The inverse of :func:`capability_values`, for a policy read back from SPBM."""
    method = {v: k for k, v in REPLICA_PREFERENCE.items()}.get(
        caps.get("replicaPreference", REPLICA_PREFERENCE[MIRRORING]),
        caps.get("replicaPreference"),
    )
    return {
        "failures_to_tolerate": int(caps.get("hostFailuresToTolerate", 1)),
        "failure_tolerance_method": method,
        "stripe_width": int(caps.get("stripeWidth", 1)),
        "object_space_reservation": int(caps.get("proportionalCapacity", 0)),
        "flash_read_cache_reservation": int(caps.get("cacheReservation", 0))
        / CACHE_RESERVATION_SCALE,
    }


def flash_of(esa: bool | None, host_storage: dict[str, Any]) -> dict[str, Any]:
    """Whether the cluster is all-flash, from what vSAN reports: an ESA cluster is (NVMe
    only); an OSA host is all-flash when every disk group's capacity devices are flash.
    ``host_storage`` maps a host's name to its ``vsanHostConfig.storageInfo`` (or None).
    ``all_flash`` is None where no host reports disk groups (vcsim reports none)."""
    if esa:
        return {"architecture": "ESA", "all_flash": True, "hosts": {}}
    hosts: dict[str, str] = {}
    for name, storage in sorted(host_storage.items()):
        mappings = list(getattr(storage, "diskMapping", None) or [])
        capacity = [d for m in mappings for d in (m.nonSsd or [])]
        if not capacity:
            hosts[name] = "no disk groups reported"
        elif all(getattr(d, "ssd", False) for d in capacity):
            hosts[name] = "all-flash"
        else:
            hosts[name] = "hybrid"
    known = [v for v in hosts.values() if v != "no disk groups reported"]
    return {
        "architecture": "OSA" if known else None,
        "all_flash": all(v == "all-flash" for v in known) if known else None,
        "hosts": hosts,
    }


def capacity_devices_of(host_storage: dict[str, Any]) -> dict[str, Any] | None:
    """The disk groups' capacity devices as vSAN reports them: how many, and the smallest's
    size in GB (the drive a rebuild copies); None where no host reports any (vcsim)."""
    sizes = []
    for storage in host_storage.values():
        for mapping in getattr(storage, "diskMapping", None) or []:
            for disk in mapping.nonSsd or []:
                dims = getattr(disk, "capacity", None)
                if dims is not None and dims.block and dims.blockSize:
                    sizes.append(dims.block * dims.blockSize)
    if not sizes:
        return None
    return {"count": len(sizes), "smallest_gb": round(min(sizes) / 1e9, 3)}


def describe(rules: dict[str, Any]) -> str:
    """The rules in the vSphere Client's words, for the planned changes."""
    return ", ".join(f"{RULE_TITLES[k]} {v}" for k, v in rules.items())
