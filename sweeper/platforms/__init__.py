"""Platforms, chosen by name from the spec through one factory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sweeper import rank_forms
from sweeper.configuration import enumerate_configurations, space_size
from sweeper.dimensions import listing_problems
from sweeper.platforms.base import Platform
from sweeper.platforms.linux_md import LinuxMdPlatform
from sweeper.platforms.local import LocalPlatform
from sweeper.platforms.manual import ManualPlatform
from sweeper.platforms.own_role import AnsibleRolePlatform
from sweeper.platforms.sim import SimPlatform
from sweeper.platforms.vsan import VsanPlatform

PLATFORMS: dict[str, type[Platform]] = {
    p.name: p
    for p in (
        SimPlatform,
        LocalPlatform,
        ManualPlatform,
        AnsibleRolePlatform,
        LinuxMdPlatform,
        VsanPlatform,
    )
}

__all__ = [
    "PLATFORMS",
    "Platform",
    "get_platform",
    "platform_problems",
]


def get_platform(
    name: str, options: dict[str, Any], state_dir: Path, inventory: Path | None = None
) -> Platform:
    try:
        cls = PLATFORMS[name]
    except KeyError:
        raise ValueError(f"unknown platform {name!r} (known: {', '.join(PLATFORMS)})") from None
    return cls(options, state_dir, inventory)


#: the most configurations grid mode measures: beyond, a sweep would take months of array
#: time; optimize mode searches a larger space with a budget
GRID_LIMIT = 10_000
#: the most configurations any mode takes (the study enumerates them to choose from)
SPACE_LIMIT = 1_000_000


def declared_problems(cls: type[Platform], spec: Any) -> list[tuple[list[str | int], str]]:
    """The dimensions ``config_space`` lists beyond the built-in ones, against those the
    platform declares: an unknown one (naming the platforms that have it), values outside
    its declared type or choices."""
    if cls.option_problems(spec.platform_options):
        return []  # the options decide what a role declares: their problems come first
    declared = cls.declared_dimensions(spec.platform_options)
    problems = []
    for name in spec.config_space.dimensions:
        others = [p for p, c in PLATFORMS.items() if name in {d.name for d in c.declares}]
        elsewhere = (
            f"platform {' and '.join(others)} can" if others and name not in declared else ""
        )
        problems += listing_problems(
            {name: (spec.config_space.model_extra or {})[name]}, declared, cls.name, elsewhere
        )
    return problems


def platform_problems(spec: Any) -> list[tuple[list[str | int], str]]:
    """Spec problems that depend on the platform: unknown name, unsupported values, a space
    too large to sweep, configurations the platform cannot build.

    Fast for large spaces: the size is known by multiplication before anything is
    enumerated, and the configurations are checked over the dimensions the platform's
    ``configuration_problems`` reads (``Platform.checks_ignore`` names those it does not).
    """
    cls = PLATFORMS.get(spec.platform)
    if cls is None:
        return [
            (["platform"], f"unknown platform {spec.platform!r} (known: {', '.join(PLATFORMS)})")
        ]
    problems = cls.option_problems(spec.platform_options)
    space = spec.config_space
    problems += declared_problems(cls, spec)
    for dim, allowed in cls.supported_values(spec.platform_options).items():
        given = getattr(space, dim)
        # ranks and stripe_kib may be given per layout, ranks per RAID level (and layout)
        places = (
            [
                ([*place.split("."), i], v)
                for place, vs in rank_forms.lists(given)
                for i, v in enumerate(vs)
            ]
            if isinstance(given, dict)
            else [([i], v) for i, v in enumerate(given)]
        )
        for where, value in places:
            if value not in allowed:
                shown = ", ".join(str(a) for a in allowed)
                problems.append(
                    (
                        ["config_space", dim, *where],
                        f"{value!r} is not supported by platform {cls.name!r} (supported: {shown})",
                    )
                )
    if problems:
        return problems
    size = space_size(space)
    mode = spec.study.mode
    if size > SPACE_LIMIT or (mode == "grid" and size > GRID_LIMIT):
        limit = SPACE_LIMIT if size > SPACE_LIMIT else GRID_LIMIT
        advice = (
            "narrow the dimensions"
            if size > SPACE_LIMIT
            else "use study: {mode: optimize, budget: ...} to search it, or narrow the dimensions"
        )
        what = "any mode" if size > SPACE_LIMIT else "grid mode"
        return [
            (
                ["config_space"],
                f"{size:,} configurations are more than {what} takes ({limit:,}): {advice}",
            )
        ]
    space_issues = cls.space_problems(space, spec.platform_options)
    if space_issues:
        return [(["config_space"], msg) for msg in space_issues]
    # Dimensions the checks do not read are checked at one value and counted for all.
    fixed = {dim: getattr(space, dim)[:1] for dim in cls.checks_ignore}
    weight = size // space_size(space.model_copy(update=fixed)) if fixed else 1
    reasons: dict[str, list[str]] = {}
    for config in enumerate_configurations(space.model_copy(update=fixed)):
        for reason in cls.configuration_problems(config, spec.platform_options, spec.matrix):
            reasons.setdefault(reason, []).append(config.key)
    for reason, keys in reasons.items():
        problems.append(
            (
                ["config_space"],
                f"{reason} ({len(keys) * weight} configuration(s), e.g. {keys[0]})",
            )
        )
    return problems
