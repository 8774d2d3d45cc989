"""The ``sim`` platform: Ansible records the configuration; the load is the simulated
array's model (:class:`sweeper.load.SimDriver`), which answers in fio's JSON."""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from sweeper.configuration import Configuration
from sweeper.dimensions import WIDTH, Dimension
from sweeper.errors import InputError
from sweeper.load import LoadDriver, SimDriver
from sweeper.load.sim import DEFAULT_WORKING_SET
from sweeper.platforms.base import Platform
from sweeper.sim.model import ArrayState
from sweeper.sim.profile import PROFILE_DIR, ArrayProfile, list_profiles, load_profile
from sweeper.vocabulary import CACHE_POLICIES, LAYOUTS, RAID_LEVELS
from sweeper.yamlsource import read_text

HEALTH = ("optimal", "degraded", "rebuilding")
OPTION_KEYS = {"profile", "health", "rank_drives"}
#: the drives of one rank, per configuration (overrides ``rank_drives`` and the profile)
DECLARED = (
    Dimension(
        WIDTH,
        "int",
        tuple(range(2, 33)),
        "format",
        "drives of one rank (RAID group width) inside an array site",
    ),
)


def _profile(options: dict[str, Any]) -> ArrayProfile:
    return checked_profile(options.get("profile", "ds8800-like"))


def checked_profile(name: str) -> ArrayProfile:
    """The profile ``name``, read once while its file is unchanged (validation checks a
    space's every configuration against it)."""
    path = PROFILE_DIR / f"{name}.yaml"
    try:
        st = path.stat()
    except OSError:
        return load_profile(name)  # refused by name there
    return _cached_profile(name, st.st_mtime_ns, st.st_size)


@functools.lru_cache(maxsize=16)
def _cached_profile(name: str, mtime_ns: int, size: int) -> ArrayProfile:
    return load_profile(name)


def rank_drives(config: Configuration, options: dict[str, Any], profile: ArrayProfile) -> int:
    """Drives of each of the configuration's ranks: its ``drives_per_rank``, else the
    sweep's ``rank_drives`` for its level, else the profile's group of the level."""
    width = config.dimension(WIDTH)
    if width is not None:
        return int(width)
    per_level = options.get("rank_drives") or {}
    if config.raid_level in per_level:
        return int(per_level[config.raid_level])
    return profile.rank_drives(config.raid_level)


def _width_problems(given: Any, profile: ArrayProfile) -> list[tuple[list[str | int], str]]:
    """Problems of the ``rank_drives`` option: a mapping of RAID level to drives per rank."""
    where: list[str | int] = ["platform_options", "rank_drives"]
    if given is None:
        return []
    if not isinstance(given, dict) or not given:
        return [(where, "give the drives of a rank per RAID level, e.g. {raid10: 4}")]
    problems: list[tuple[list[str | int], str]] = []
    for level, drives in given.items():
        if level not in profile.raid_groups:
            levels = ", ".join(profile.raid_groups)
            problems.append(([*where, str(level)], f"profile {profile.name} has {levels}"))
        elif type(drives) is not int:
            problems.append(([*where, level], f"{drives!r} is not a number of drives"))
        elif (problem := profile.width_problem(level, drives)) is not None:
            problems.append(([*where, level], problem))
    return problems


class SimPlatform(Platform):
    name = "sim"
    declares = DECLARED
    # configuration_problems reads no cache policy: a large space is checked at one
    checks_ignore = ("cache_policy",)
    # The profile decides which of these its hardware can build (configuration_problems).
    supported = {
        "raid_level": RAID_LEVELS,
        "layout": LAYOUTS,
        "cache_policy": CACHE_POLICIES,
    }

    def __init__(self, options: dict[str, Any], state_dir: Path, inventory: Path | None = None):
        super().__init__(options, state_dir, inventory)
        self.profile = _profile(options)
        self.health = options.get("health", "optimal")

    @classmethod
    def supported_values(cls, options: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
        try:
            profile = _profile(options)
        except (InputError, TypeError):
            return cls.supported  # option_problems reports the profile itself
        levels = tuple(r for r in RAID_LEVELS if r in profile.raid_groups)
        return cls.supported | {"raid_level": levels}

    @classmethod
    def option_problems(cls, options: dict[str, Any]) -> list[tuple[list[str | int], str]]:
        problems: list[tuple[list[str | int], str]] = []
        for key in options:
            if key not in OPTION_KEYS:
                problems.append(
                    (
                        ["platform_options", key],
                        f"unknown key for platform 'sim' (known: {', '.join(sorted(OPTION_KEYS))})",
                    )
                )
        health = options.get("health", "optimal")
        if health not in HEALTH:
            problems.append(
                (["platform_options", "health"], f"{health!r} is not one of {', '.join(HEALTH)}")
            )
        name = options.get("profile", "ds8800-like")
        if not isinstance(name, str) or name not in list_profiles():
            problems.append(
                (
                    ["platform_options", "profile"],
                    f"unknown array profile {name!r} (shipped: {', '.join(list_profiles())})",
                )
            )
        else:
            try:
                problems += _width_problems(options.get("rank_drives"), load_profile(name))
            except InputError as exc:
                problems.append((["platform_options", "profile"], exc.render()))
        return problems

    @classmethod
    def configuration_problems(
        cls, config: Configuration, options: dict[str, Any], matrix: Any = None
    ) -> list[str]:
        p = _profile(options)
        level = config.raid_level
        if level not in p.raid_groups:
            return [f"profile {p.name} has no {level} groups (it has {', '.join(p.raid_groups)})"]
        problems = []
        width = rank_drives(config, options, p)
        if (problem := p.width_problem(level, width)) is not None:
            return [f"{problem} ({WIDTH} is {width})"]
        p = p.with_rank_drives(level, width)
        limit = p.max_ranks(level)
        if config.rank_count > limit:
            problems.append(
                f"{config.rank_count} ranks of {level} exceed the {limit} that profile "
                f"{p.name}'s {p.drives.count} drives in sites of {p.site_width} allow "
                f"(ranks of {width} drives)"
            )
        if config.layout == "pool_stripe" and config.stripe_kib is not None:
            if config.stripe_kib not in p.pool.extent_kib:
                sizes = ", ".join(str(e) for e in p.pool.extent_kib)
                problems.append(
                    f"pool_stripe spreads extents of {config.stripe_kib} KiB, but profile "
                    f"{p.name} offers extents of {sizes} KiB"
                )
            if p.full_stripe_kib(level) > config.stripe_kib:
                problems.append(
                    f"a {level} stripe of {p.full_stripe_kib(level)} KiB is larger than the "
                    f"{config.stripe_kib} KiB extent"
                )
        if config.snapshots and p.snapshots is None:
            problems.append(f"profile {p.name} has no snapshots")
        if config.data_reduction and p.data_reduction is None:
            problems.append(f"profile {p.name} has no data reduction")
        working_set = getattr(matrix, "working_set", None) or DEFAULT_WORKING_SET
        usable = p.usable_gb(level, config.rank_count) * 1e9
        if working_set > usable:
            problems.append(
                f"the working set ({working_set / 1e9:,.0f} GB) is larger than the "
                f"{usable / 1e9:,.0f} GB a {config.rank_count}-rank {level} volume holds"
            )
        return problems

    def extravars(self, config: Configuration) -> dict[str, Any]:
        return {
            "raidsweep_platform": "sim",
            "sim_state_dir": str(self.state_dir),
            "sim_profile": self.profile.name,
            "sim_health": self.health,
            "sim_rank_drives": rank_drives(config, self.options, self.profile),
            **{k: v for k, v in config.params().items() if k != WIDTH},
        }

    def teardown_extravars(self) -> dict[str, Any]:
        return {"raidsweep_platform": "sim", "sim_state_dir": str(self.state_dir)}

    def load_driver(self, config: Configuration, matrix: Any, seed: int) -> LoadDriver:
        state_dir = self.state_dir
        return SimDriver(self.profile, matrix, seed, lambda: read_array_state(state_dir))

    def hardware(self) -> dict[str, Any]:
        p = self.profile
        widths = self.options.get("rank_drives") or {}
        # a swept drives_per_rank gives each configuration its own (the trade-offs)
        groups = {level: p.with_rank_drives(level, widths.get(level)) for level in p.raid_groups}
        return {
            "media": "hdd" if p.drives.type == "hdd" else "flash",
            "drive_gb": p.drives.capacity_gb,
            "raid_groups": {
                level: {
                    "data": g.raid_groups[level].data,
                    "redundancy": g.raid_groups[level].redundancy,
                }
                for level, g in groups.items()
            },
            "rebuild_mib_s": p.timing.rebuild_mib_s,
        }

    def reconfiguration_time(self, previous: Configuration | None, new: Configuration) -> float:
        """What the array would need: formatting ranks dominates, as on real arrays."""
        t = self.profile.timing
        if (
            previous is None
            or previous.raid_level != new.raid_level
            or previous.rank_count != new.rank_count
            or self.declared_change(previous, new) == "format"
        ):
            # Every drive of the new ranks formats at once, each at the drives' format rate.
            drive_bytes = self.profile.drives.capacity_gb * 1e9
            return drive_bytes / (t.rank_init_mib_s * 1024**2) + t.volume_create_s
        seconds = 0.0
        if (
            previous.layout != new.layout
            or previous.stripe_kib != new.stripe_kib
            or previous.data_reduction != new.data_reduction
        ):
            seconds += t.volume_create_s
        elif previous.cache_policy != new.cache_policy:
            seconds += t.cache_policy_change_s
        if new.snapshots and (seconds or not previous.snapshots) and self.profile.snapshots:
            seconds += self.profile.snapshots.create_s
        return seconds


def read_array_state(state_dir: Path) -> tuple[dict[str, Any], ArrayState]:
    """The array's own view, as the playbook left it (``array.json``), not what the sweeper
    intended: its record for the disclosure and the model's state."""
    # read as a user's file is (bounded, a FIFO refused unread): it lies in the store
    s = json.loads(read_text(state_dir / "array.json", kind="array state"))
    state = ArrayState(
        raid_level=s["raid_level"],
        layout=s["layout"],
        ranks=int(s["ranks"]),
        stripe_kib=int(s["stripe_kib"]) if s.get("stripe_kib") else None,
        cache_policy=s["cache_policy"],
        snapshots=bool(s.get("snapshots", False)),
        data_reduction=bool(s.get("data_reduction", False)),
        health=s.get("health", "optimal"),
        rank_drives=int(s["rank_drives"]) if s.get("rank_drives") else None,
    )
    return s, state
