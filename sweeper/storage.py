"""What the playbooks would do to the test storage, and taking it down again.

``plan_configurations`` runs ``reconfigure.yml`` in Ansible's check mode for each
configuration: the roles' modules report what they would create and destroy, from the
storage as it is now, and nothing changes. ``teardown`` runs ``teardown.yml``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from sweeper.ansible import PlayResult, run_playbook
from sweeper.configuration import Configuration
from sweeper.platforms.base import Platform
from sweeper.platforms.instructions import build_instructions


@dataclass
class ConfigurationPlan:
    """What applying one configuration would do, as the platform's role reported it."""

    config: Configuration
    #: the role's check-mode play; None where an operator builds the configuration
    play: PlayResult | None
    #: what the operator is told to do, where one builds it
    told: list[str] | None = None

    @property
    def ok(self) -> bool:
        return self.play is None or self.play.ok

    @property
    def actions(self) -> list[str]:
        if self.play is None:
            return [f"operator: {line}" for line in self.told or []]
        return actions(self.play, done=False) or ["no change"]


def actions(play: PlayResult, *, done: bool) -> list[str]:
    """What a play did (``done``) or, in check mode, would do: the role's own account (the
    ``plan`` in its facts), else Ansible's count of changed tasks; empty for nothing."""
    lines = play.facts.get("plan")
    if isinstance(lines, list):
        return [str(x) for x in lines]
    verb = "changed" if done else "would change"
    return [f"{play.changed} task(s) {verb}"] if play.changed else []


def plan_configurations(
    platform: Platform, inventory: Path, configs: list[Configuration]
) -> Iterator[ConfigurationPlan]:
    """Each configuration's plan from the storage as it is now (check mode; no change);
    where an operator builds them, what the operator will be told, in the sweep's order."""
    previous = None
    for config in configs:
        if platform.operator_builds:
            yield ConfigurationPlan(config, None, build_instructions(config, previous))
        else:
            extravars = platform.extravars(config)
            yield ConfigurationPlan(
                config, run_playbook("reconfigure.yml", inventory, extravars, check=True)
            )
        previous = config


def teardown(platform: Platform, inventory: Path, *, check: bool = False) -> PlayResult:
    """Remove what the sweep built on the storage (with ``check``: only say what)."""
    return run_playbook("teardown.yml", inventory, platform.teardown_extravars(), check=check)
