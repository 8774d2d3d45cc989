"""Platforms, chosen by name from the spec through one factory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sweeper.configuration import enumerate_configurations
from sweeper.platforms.base import Platform, RunOutput, WorkloadRunner
from sweeper.platforms.linux_md import LinuxMdPlatform
from sweeper.platforms.local import LocalPlatform
from sweeper.platforms.sim import SimPlatform
from sweeper.platforms.vsan import VsanPlatform

PLATFORMS: dict[str, type[Platform]] = {
    p.name: p for p in (SimPlatform, LocalPlatform, LinuxMdPlatform, VsanPlatform)
}

__all__ = [
    "PLATFORMS",
    "Platform",
    "RunOutput",
    "WorkloadRunner",
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


def platform_problems(spec: Any) -> list[tuple[list[str | int], str]]:
    """Spec problems that depend on the platform: unknown name, unsupported values."""
    cls = PLATFORMS.get(spec.platform)
    if cls is None:
        return [
            (["platform"], f"unknown platform {spec.platform!r} (known: {', '.join(PLATFORMS)})")
        ]
    problems = cls.option_problems(spec.platform_options)
    space = spec.config_space
    for dim, allowed in cls.supported_values(spec.platform_options).items():
        for i, value in enumerate(getattr(space, dim)):
            if value not in allowed:
                shown = ", ".join(str(a) for a in allowed)
                problems.append(
                    (
                        ["config_space", dim, i],
                        f"{value!r} is not supported by platform {cls.name!r} (supported: {shown})",
                    )
                )
    if problems:
        return problems
    problems += [
        (["config_space"], msg) for msg in cls.space_problems(space, spec.platform_options)
    ]
    reasons: dict[str, list[str]] = {}
    configs = enumerate_configurations(space)
    for config in configs:
        for reason in cls.configuration_problems(config, spec.platform_options, spec.matrix):
            reasons.setdefault(reason, []).append(config.key)
    for reason, keys in reasons.items():
        problems.append(
            (["config_space"], f"{reason} ({len(keys)} configuration(s), e.g. {keys[0]})")
        )
    return problems
