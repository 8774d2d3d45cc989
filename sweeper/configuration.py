"""Configurations: points of the config space, each with a stable, readable key."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from sweeper.spec import LAYOUTS, MULTI_RANK_LAYOUTS, RAID_LEVELS, ConfigSpace

_KEY_RE = re.compile(
    r"^(?P<raid>raid\d+)/(?P<layout>[a-z_]+)(?:/ranks(?P<ranks>\d+)/stripe(?P<stripe>\d+)k)?"
    r"/(?P<cache>w[bt]-(?:no)?ra)$"
)


@dataclass(frozen=True)
class Configuration:
    """One configuration of the test storage.

    ``ranks`` and ``stripe_kib`` exist only for multi-rank layouts: ``stripe_kib`` is the
    unit in which the volume is spread over the ranks (the host LVM stripe size for
    ``host_stripe``, the extent size for ``pool_stripe``).
    """

    raid_level: str
    layout: str
    cache_policy: str
    ranks: int | None = None
    stripe_kib: int | None = None

    def __post_init__(self) -> None:
        multi = self.layout in MULTI_RANK_LAYOUTS
        if multi and (self.ranks is None or self.stripe_kib is None):
            raise ValueError(f"layout {self.layout} needs ranks and stripe_kib")
        if not multi and (self.ranks is not None or self.stripe_kib is not None):
            raise ValueError(f"layout {self.layout} takes neither ranks nor stripe_kib")

    @property
    def key(self) -> str:
        parts = [self.raid_level, self.layout]
        if self.layout in MULTI_RANK_LAYOUTS:
            parts += [f"ranks{self.ranks}", f"stripe{self.stripe_kib}k"]
        parts.append(self.cache_policy)
        return "/".join(parts)

    @property
    def rank_count(self) -> int:
        return self.ranks or 1

    def params(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> Configuration:
        return cls(
            raid_level=params["raid_level"],
            layout=params["layout"],
            cache_policy=params["cache_policy"],
            ranks=params.get("ranks"),
            stripe_kib=params.get("stripe_kib"),
        )

    @classmethod
    def from_key(cls, key: str) -> Configuration:
        m = _KEY_RE.match(key.strip())
        if not m or m["raid"] not in RAID_LEVELS or m["layout"] not in LAYOUTS:
            raise ValueError(f"{key!r} is not a configuration key (e.g. raid10/single_rank/wb-ra)")
        return cls(
            raid_level=m["raid"],
            layout=m["layout"],
            cache_policy=m["cache"],
            ranks=int(m["ranks"]) if m["ranks"] else None,
            stripe_kib=int(m["stripe"]) if m["stripe"] else None,
        )


def enumerate_configurations(space: ConfigSpace) -> list[Configuration]:
    """Every valid configuration, grouped so that one RAID build serves all its layouts."""
    out: list[Configuration] = []
    for raid in space.raid_level:
        for layout in space.layout:
            for cache in space.cache_policy:
                if layout in MULTI_RANK_LAYOUTS:
                    for ranks in space.ranks:
                        for stripe in space.stripe_kib:
                            out.append(Configuration(raid, layout, cache, ranks, stripe))
                else:
                    out.append(Configuration(raid, layout, cache))
    return out
