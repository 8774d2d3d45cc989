"""Configurations: points of the config space, each with a stable, readable key."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from sweeper.dimensions import name_problem, value_of, value_text
from sweeper.rank_forms import parameter_names
from sweeper.vocabulary import (
    CONFIGURATION_KEY_RE,
    LAYOUTS,
    MULTI_RANK_LAYOUTS,
    RAID_LEVELS,
)

if TYPE_CHECKING:
    from sweeper.spec import ConfigSpace


_UNIT_KIB = {"k": 1, "m": 1024, "g": 1024**2}


def _kib_text(kib: int | None) -> str:
    """16 -> '16k', 1024 -> '1m', 1048576 -> '1g': readable keys for extents and stripes."""
    assert kib is not None
    for unit in ("g", "m"):
        if kib % _UNIT_KIB[unit] == 0:
            return f"{kib // _UNIT_KIB[unit]}{unit}"
    return f"{kib}k"


@dataclass(frozen=True)
class Configuration:
    """One configuration of the test storage.

    ``ranks`` and ``stripe_kib`` exist only for multi-rank layouts: ``stripe_kib`` is the
    unit in which the volume is spread over the ranks (the host LVM stripe size for
    ``host_stripe``, the extent size for ``pool_stripe``). ``dimensions``: the values of the
    dimensions the platform declares (``sweeper.dimensions``), by name; given as a mapping or
    pairs, kept as pairs sorted by name.
    """

    raid_level: str
    layout: str
    cache_policy: str
    ranks: int | None = None
    stripe_kib: int | None = None
    snapshots: bool = False
    data_reduction: bool = False
    dimensions: tuple[tuple[str, Any], ...] = field(default=())

    def __post_init__(self) -> None:
        pairs = self.dimensions.items() if isinstance(self.dimensions, Mapping) else self.dimensions
        object.__setattr__(self, "dimensions", tuple(sorted(pairs, key=lambda p: p[0])))
        names = [name for name, _ in self.dimensions]
        for name in names:
            if problem := name_problem(name):
                raise ValueError(problem)
        if len(set(names)) < len(names):
            raise ValueError(f"a dimension is given twice: {', '.join(names)}")
        multi = self.layout in MULTI_RANK_LAYOUTS
        if multi and (self.ranks is None or self.stripe_kib is None):
            raise ValueError(f"layout {self.layout} needs ranks and stripe_kib")
        if not multi and (self.ranks is not None or self.stripe_kib is not None):
            raise ValueError(f"layout {self.layout} takes neither ranks nor stripe_kib")

    @property
    def key(self) -> str:
        parts = [self.raid_level, self.layout]
        if self.layout in MULTI_RANK_LAYOUTS:
            parts += [f"ranks{self.ranks}", f"stripe{_kib_text(self.stripe_kib)}"]
        parts.append(self.cache_policy)
        if self.snapshots:
            parts.append("snap")
        if self.data_reduction:
            parts.append("dr")
        parts += [f"{name}={value_text(value)}" for name, value in self.dimensions]
        return "/".join(parts)

    def dimension(self, name: str, default: Any = None) -> Any:
        """The value of the declared dimension ``name`` (``default`` where the sweep does not
        sweep it)."""
        return dict(self.dimensions).get(name, default)

    @property
    def rank_count(self) -> int:
        return self.ranks or 1

    def params(self) -> dict[str, Any]:
        # Optional dimensions appear only when on, so keys and params of plain
        # configurations stay as they were; declared dimensions by their own names.
        fixed = {k: v for k, v in asdict(self).items() if k != "dimensions"}
        return {k: v for k, v in fixed.items() if v is not None and v is not False} | dict(
            self.dimensions
        )

    @classmethod
    def from_params(cls, params: dict[str, Any]) -> Configuration:
        return cls(
            raid_level=params["raid_level"],
            layout=params["layout"],
            cache_policy=params["cache_policy"],
            # per-layout (per-level) value lists name their parameters ranks_<layout>,
            # ranks_<level>, ranks_<level>_<layout>, stripe_kib_<layout>
            ranks=_multi_rank_param(params, "ranks"),
            stripe_kib=_multi_rank_param(params, "stripe_kib"),
            snapshots=bool(params.get("snapshots", False)),
            data_reduction=bool(params.get("data_reduction", False)),
            dimensions={k: v for k, v in params.items() if _declared(k)},
        )

    @classmethod
    def from_key(cls, key: str) -> Configuration:
        m = CONFIGURATION_KEY_RE.fullmatch(key.strip()) if isinstance(key, str) else None
        if not m or m["raid"] not in RAID_LEVELS or m["layout"] not in LAYOUTS:
            raise ValueError(f"{key!r} is not a configuration key (e.g. raid10/single_rank/wb-ra)")
        return cls(
            raid_level=m["raid"],
            layout=m["layout"],
            cache_policy=m["cache"],
            ranks=int(m["ranks"]) if m["ranks"] else None,
            stripe_kib=int(m["stripe"]) * _UNIT_KIB[m["unit"]] if m["stripe"] else None,
            snapshots=bool(m["snap"]),
            data_reduction=bool(m["dr"]),
            dimensions=[
                (name, value_of(text))
                for name, text in (part.split("=", 1) for part in m["dims"].split("/")[1:])
            ],
        )


def _multi_rank_param(params: dict[str, Any], dim: str) -> Any:
    names = parameter_names(dim, params["layout"], params["raid_level"])
    return next((params[name] for name in names if name in params), None)


def _declared(param: str) -> bool:
    """Whether a study parameter is a declared dimension (not a built-in one, nor a built-in
    one's per-layout or per-level parameter ``ranks_<layout>``, ``ranks_<level>``)."""
    return name_problem(param) is None


def enumerate_configurations(space: ConfigSpace) -> list[Configuration]:
    """Every valid configuration, grouped so that one RAID build serves all its layouts."""
    out: list[Configuration] = []
    for raid in space.raid_level:
        for layout in space.layout:
            multi = layout in MULTI_RANK_LAYOUTS
            ranks_list = space.values("ranks", layout, raid) if multi else [None]
            stripes = space.values("stripe_kib", layout) if multi else [None]
            for ranks in ranks_list:
                for stripe in stripes:
                    for cache in space.cache_policy:
                        for snap in space.snapshots:
                            for dr in space.data_reduction:
                                out += [
                                    Configuration(raid, layout, cache, ranks, stripe, snap, dr, d)
                                    for d in declared_points(space)
                                ]
    return out


def declared_points(space: ConfigSpace) -> list[tuple[tuple[str, Any], ...]]:
    """Every combination of the declared dimensions' values (one empty one without any)."""
    dims = space.dimensions
    return [tuple(zip(dims, values, strict=True)) for values in itertools.product(*dims.values())]


def space_size(space: ConfigSpace) -> int:
    """How many configurations ``space`` holds, by multiplication (nothing enumerated): the
    size of ``enumerate_configurations(space)``, known at once for any space."""
    builds = 0  # (level, layout, ranks, stripe) combinations
    for raid in space.raid_level:
        for layout in space.layout:
            if layout in MULTI_RANK_LAYOUTS:
                builds += len(space.values("ranks", layout, raid)) * len(
                    space.values("stripe_kib", layout)
                )
            else:
                builds += 1
    return (
        builds
        * len(space.cache_policy)
        * len(space.snapshots)
        * len(space.data_reduction)
        * math.prod(len(values) for values in space.dimensions.values())
    )


def in_space(config: Configuration, space: ConfigSpace) -> bool:
    """Whether ``config`` is one of the configurations ``space`` enumerates."""
    if (
        config.raid_level not in space.raid_level
        or config.layout not in space.layout
        or config.cache_policy not in space.cache_policy
        or config.snapshots not in space.snapshots
        or config.data_reduction not in space.data_reduction
    ):
        return False
    dims = space.dimensions
    if {n for n, _ in config.dimensions} != set(dims) or any(
        not any(type(v) is type(w) and v == w for w in dims[n]) for n, v in config.dimensions
    ):
        return False
    if config.layout in MULTI_RANK_LAYOUTS:
        return config.ranks in space.values("ranks", config.layout, config.raid_level) and (
            config.stripe_kib in space.values("stripe_kib", config.layout)
        )
    return True
