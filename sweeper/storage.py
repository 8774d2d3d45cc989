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


@dataclass
class ConfigurationPlan:
    """What applying one configuration would do, as the platform's role reported it."""

    config: Configuration
    play: PlayResult

    @property
    def actions(self) -> list[str]:
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
    """Each configuration's plan from the storage as it is now (check mode; no change)."""
    for config in configs:
        play = run_playbook("reconfigure.yml", inventory, platform.extravars(config), check=True)
        yield ConfigurationPlan(config, play)


def teardown(platform: Platform, inventory: Path, *, check: bool = False) -> PlayResult:
    """Remove what the sweep built on the storage (with ``check``: only say what)."""
    return run_playbook("teardown.yml", inventory, platform.teardown_extravars(), check=check)
