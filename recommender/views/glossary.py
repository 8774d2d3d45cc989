"""What the parts of a configuration key and a workload cell mean, in a storage engineer's
words: the app's tooltips and glossary."""

from __future__ import annotations

import re

from recommender.views.labels import declared_label

#: the terms of configuration keys and cells, and what each means
GLOSSARY: dict[str, str] = {
    "raid5 / raid6 / raid10": "the RAID level of each RAID group (rank): RAID 5 survives one "
    "failed drive, RAID 6 two, RAID 10 mirrors pairs of drives",
    "single_rank": "one RAID group (rank) holds the volume",
    "host_stripe": "the host stripes the volume over volumes of several ranks (LVM -i N -I size)",
    "pool_stripe": "the array spreads the volume's extents round-robin over several ranks "
    "(DS8000 rotate extents; an LVM stripe of extent size)",
    "ranks4": "the number of RAID groups (ranks) the volume spreads over",
    "stripe64k / stripe1g": "the stripe: the host's LVM stripe size (host_stripe) or the pool's "
    "extent size (pool_stripe); 1g = 1 GiB",
    "wb / wt": "write cache: write-back (wb, acknowledged from cache) or write-through "
    "(wt, acknowledged from the drives)",
    "ra / nora": "read-ahead on (ra) or off (nora)",
    "snap / dr": "a snapshot is held during the runs / data reduction is on",
    "qd1x16": "concurrency: I/O depth 1 per job × 16 jobs (16 I/Os in flight)",
    "randrw70": "random I/O, 70% reads and 30% writes",
    "rank (of a ranking)": "competition rank by mean score: =N is tied with the configuration "
    "ranked N (their 95% intervals overlap)",
}

_PARTS: list[tuple[str, str]] = [
    (r"raid(\d+)", "RAID {0}"),
    (r"single_rank", GLOSSARY["single_rank"]),
    (r"host_stripe", GLOSSARY["host_stripe"]),
    (r"pool_stripe", GLOSSARY["pool_stripe"]),
    (r"ranks(\d+)", "{0} RAID groups (ranks)"),
    (r"stripe(\d+)([kmgt])", "a stripe of {0} {1}iB (the host's LVM stripe or the pool's extent)"),
    (r"(wb|wt)-(ra|nora)", "{0}, {1}"),
    (r"snap", "a snapshot held during the runs"),
    (r"dr", "data reduction on"),
    (r"qd(\d+)x(\d+)", "I/O depth {0} × {1} jobs"),
]
_CACHE = {"wb": "write-back cache", "wt": "write-through cache"}
_READ_AHEAD = {"ra": "read-ahead on", "nora": "read-ahead off"}


def explain_part(part: str) -> str | None:
    """What one ``/``-separated part of a configuration key or cell says, or None."""
    for pattern, words in _PARTS:
        match = re.fullmatch(pattern, part)
        if match:
            groups = list(match.groups())
            if pattern.startswith("(wb"):
                groups = [_CACHE[groups[0]], _READ_AHEAD[groups[1]]]
            elif pattern.startswith("stripe"):
                groups[1] = groups[1].upper()
            return words.format(*groups)
    return None


def explain_key(key: str) -> str:
    """A configuration key (or a cell) part by part, one Markdown line each."""
    lines = []
    for part in key.split("/"):
        name, _, value = part.partition("=")
        meaning = declared_label(name, value) if value else explain_part(part)
        if meaning:
            lines.append(f"- `{part}`: {meaning}")
    return "\n".join(lines)


def glossary_markdown() -> str:
    """The whole glossary as a Markdown list."""
    return "\n".join(f"- **{term}**: {words}" for term, words in GLOSSARY.items())
