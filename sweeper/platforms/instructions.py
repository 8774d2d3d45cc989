"""What to build, in plain words: the instructions an operator follows for a configuration,
and what of the previous one to remove first."""

from __future__ import annotations

from sweeper.configuration import Configuration

RAID_WORDS = {
    "raid0": "RAID 0 (striping, no redundancy)",
    "raid1": "RAID 1 (mirrored pairs)",
    "raid5": "RAID 5 (single parity)",
    "raid6": "RAID 6 (double parity)",
    "raid10": "RAID 10 (striped mirrors)",
}
CACHE_WORDS = {
    "wb": "write cache on (write-back)",
    "wt": "write cache off (write-through)",
    "ra": "read-ahead on",
    "nora": "read-ahead off",
}


def _kib(kib: int | None) -> str:
    if kib is None:
        return "?"
    if kib % (1024 * 1024) == 0:
        return f"{kib // (1024 * 1024)} GiB"
    if kib % 1024 == 0:
        return f"{kib // 1024} MiB"
    return f"{kib} KiB"


def describe(config: Configuration) -> list[str]:
    """The configuration in plain words, one line per thing to set on the array."""
    level = RAID_WORDS.get(config.raid_level, config.raid_level)
    if config.layout == "single_rank":
        volume = f"one LUN on a single RAID group (rank) of {level}"
    elif config.layout == "host_stripe":
        volume = (
            f"{config.ranks} LUNs, each on its own RAID group of {level}, striped by this "
            f"host's LVM in stripes of {_kib(config.stripe_kib)} (lvcreate -i "
            f"{config.ranks} -I {config.stripe_kib}k); name the striped volume"
        )
    else:
        volume = (
            f"one LUN from a pool (extent pool) of {config.ranks} RAID groups of {level}, "
            f"its extents of {_kib(config.stripe_kib)} rotated across them by the array"
        )
    cache = ", ".join(CACHE_WORDS.get(p, p) for p in config.cache_policy.split("-"))
    lines = [f"build: {volume}", f"cache policy {config.cache_policy}: {cache}"]
    lines.append(
        "snapshots: hold one snapshot of the LUN during the runs"
        if config.snapshots
        else "snapshots: none on the LUN"
    )
    lines.append(
        "data reduction (compression, deduplication): on"
        if config.data_reduction
        else "data reduction (compression, deduplication): off"
    )
    return lines


def build_instructions(config: Configuration, previous: Configuration | None) -> list[str]:
    """What the operator does for ``config``: what to remove of ``previous`` (None: nothing
    is known to be built), then what to build."""
    lines: list[str] = []
    if previous is not None:
        same_groups = (previous.raid_level, previous.rank_count) == (
            config.raid_level,
            config.rank_count,
        )
        if not same_groups:
            lines.append(f"remove: the LUN(s) and RAID group(s) of {previous.key}")
        elif (previous.layout, previous.stripe_kib) != (config.layout, config.stripe_kib):
            groups = previous.raid_level
            lines.append(f"remove: the LUN(s) of {previous.key}; keep its RAID groups ({groups})")
        else:
            lines.append(f"keep: the LUN of {previous.key}; change only what differs below")
    return lines + describe(config)
