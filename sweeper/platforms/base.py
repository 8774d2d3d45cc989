"""What every platform provides: supported values, Ansible variables, a load driver."""

from __future__ import annotations

import threading
from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ValidationError

from sweeper.ansible import PlayResult, run_playbook
from sweeper.configuration import Configuration
from sweeper.dimensions import Dimension, most_expensive
from sweeper.errors import InputError
from sweeper.load import LoadDriver

if TYPE_CHECKING:
    from sweeper.operator_room import OperatorPrompt


@dataclass(frozen=True)
class BuildRequest:
    """A configuration the sweep waits to have built: ``position`` of ``total`` is its place
    in the sweep, ``previous`` the configuration built before it (None: the first)."""

    config: Configuration
    matrix: Any
    position: int
    total: int
    previous: Configuration | None


def option_vars(prefix: str, options: BaseModel, names: tuple[str, ...]) -> dict[str, Any]:
    """The role variables ``<prefix><name>`` of these platform options, as the role's
    defaults name them."""
    return {f"{prefix}{name}": getattr(options, name) for name in names}


def option_errors(exc: Any) -> list[tuple[list[str | int], str]]:
    """A pydantic ValidationError of ``platform_options`` as (location, message) problems."""
    return [
        (["platform_options", *e["loc"]], e["msg"].removeprefix("Value error, "))
        for e in exc.errors()
    ]


class Platform(ABC):
    """A kind of test storage the playbooks can reconfigure."""

    name: ClassVar[str]
    #: the model ``platform_options`` must validate against (None: checked by the platform)
    options_model: ClassVar[type[BaseModel] | None] = None
    #: dimension -> values this platform can build
    supported: ClassVar[dict[str, tuple[Any, ...]]]
    #: dimensions ``configuration_problems`` never reads: validation checks them at one
    #: value (a large space is checked in a fraction of the configurations)
    checks_ignore: ClassVar[tuple[str, ...]] = ()
    #: an operator builds each configuration by hand (``await_configuration`` waits)
    operator_builds: ClassVar[bool] = False
    #: the dimensions this platform can sweep beyond the built-in ones
    declares: ClassVar[tuple[Dimension, ...]] = ()

    def __init__(self, options: dict[str, Any], state_dir: Path, inventory: Path | None = None):
        self.options = options
        self.state_dir = state_dir
        self.inventory = inventory

    @classmethod
    def supported_values(cls, options: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
        """Per dimension, the values this platform can build with these options."""
        return cls.supported

    @classmethod
    def declared_dimensions(cls, options: dict[str, Any]) -> dict[str, Dimension]:
        """The dimensions beyond the built-in ones this platform can sweep with these
        options, by name (``sweeper.dimensions``)."""
        return {d.name: d for d in cls.declares}

    def declared_change(self, previous: Configuration | None, new: Configuration) -> str | None:
        """The costliest class (format, volume, setting) of the declared dimensions that
        differ between ``previous`` and ``new``; None when none does."""
        if previous is None:
            return None
        before, after = dict(previous.dimensions), dict(new.dimensions)
        changed = [n for n in before.keys() | after.keys() if before.get(n) != after.get(n)]
        return most_expensive(changed, self.declared_dimensions(self.options))

    @classmethod
    def option_problems(cls, options: dict[str, Any]) -> list[tuple[list[str | int], str]]:
        """Problems with the spec's ``platform_options`` as (location, message): here those
        ``options_model`` finds; a platform adds its own checks once they validate."""
        if cls.options_model is None:
            return []
        try:
            cls.options_model.model_validate(options)
        except ValidationError as exc:
            return option_errors(exc)
        return []

    @classmethod
    def space_problems(cls, space: Any, options: dict[str, Any]) -> list[str]:
        """Why this platform cannot sweep ``space`` as a whole (empty if it can)."""
        return []

    @classmethod
    def configuration_problems(
        cls, config: Configuration, options: dict[str, Any], matrix: Any = None
    ) -> list[str]:
        """Why this platform cannot build ``config`` or run ``matrix`` on it (empty if it can)."""
        return []

    def preflight(self, space: Any) -> None:  # noqa: B027 - optional hook
        """Check, changing nothing, that the storage can sweep ``space``; raise InputError
        naming each problem. Called once before the sweep (also for ``--check``)."""

    def fio_versions(self) -> dict[str, str]:
        """What ``fio --version`` printed where the sweep's fio runs (a host's name, or ""
        for this host), as the preflight found it; checked against what the matrix needs
        before anything changes. Here: none (no fio, or not known before a configuration)."""
        return {}

    def preflight_facts_of(self, playbook: str, extravars: dict[str, Any]) -> dict[str, Any]:
        """The facts of a play that only looks (the preflight's); its failure is an input
        error against the inventory naming the task, host and Ansible's message."""
        assert self.inventory is not None
        play = run_playbook(playbook, self.inventory, extravars)
        if not play.ok:
            raise InputError(str(self.inventory), [f"{self.name} preflight: {play.failure()}"])
        return play.facts

    def await_configuration(
        self,
        config: Configuration,
        *,
        matrix: Any,
        position: int,
        total: int,
        previous: Configuration | None,
        stop: threading.Event,
        prompt: OperatorPrompt | None = None,
    ) -> bool:
        """Called before ``config`` is applied: wait until it can be (an operator building it
        by hand); False when ``stop`` is set while waiting. ``position`` of ``total``: its
        place in the sweep."""
        request = BuildRequest(config, matrix, position, total, previous)
        return self.wait_until_built(request, stop, prompt)

    def wait_until_built(
        self, request: BuildRequest, stop: threading.Event, prompt: OperatorPrompt | None
    ) -> bool:
        """Wait until ``request`` can be applied; False when ``stop`` is set first. Here: at
        once (nothing is built by hand)."""
        return True

    @classmethod
    def resolved_options(cls, options: dict[str, Any], spec_dir: Path) -> dict[str, Any]:
        """``platform_options`` with the paths in them taken relative to the spec's folder
        (as its inventory and class files are). Here: as given."""
        return options

    def applied(self, config: Configuration, play: PlayResult) -> str | None:
        """Called once ``config`` is applied (its play succeeded): why it cannot be measured
        (e.g. the role reported no test target), else None."""
        return None

    def warnings(self) -> list[str]:
        """What the user should know of the platform after a sweep (e.g. a role that is not
        idempotent)."""
        return []

    def pending_configuration(self) -> str | None:
        """The configuration an operator was asked to build when the sweep last stopped
        (a resumed sweep takes it first); None: none."""
        return None

    @abstractmethod
    def extravars(self, config: Configuration) -> dict[str, Any]:
        """Variables for ``reconfigure.yml`` that put the storage into ``config``."""

    @abstractmethod
    def teardown_extravars(self) -> dict[str, Any]:
        """Variables for ``teardown.yml``."""

    @abstractmethod
    def load_driver(self, config: Configuration, matrix: Any, seed: int) -> LoadDriver:
        """What measures the storage once it is in ``config`` (a driver of
        :mod:`sweeper.load` with the transport that reaches this storage)."""

    def reconfiguration_time(self, previous: Configuration | None, new: Configuration) -> float:
        """Array time (seconds) the step from ``previous`` to ``new`` takes on real storage."""
        return 0.0

    def plan_lines(self, matrix: Any) -> list[str]:
        """What the sweep will change or write on this platform, for ``--check``."""
        return []

    def target_identity(self) -> list[str]:
        """The storage this platform drives, one string per part that two sweeps must never
        drive at once (each gets a machine-wide lock while a sweep or a teardown runs);
        called after the preflight. Here: the platform's own state folder."""
        return [f"{self.name}:{self.state_dir.resolve()}"]

    def hardware(self) -> dict[str, Any]:
        """What the trade-offs need to know of the drives behind the configurations: keys
        ``media`` (hdd or flash), ``drive_gb``, ``raid_groups`` ({level: {data, redundancy}}),
        ``rebuild_mib_s``; a platform gives those it knows, the spec's ``hardware`` the rest."""
        return {}

    def run_time(self, matrix: Any) -> float:
        """Array time (seconds) of one run of the matrix."""
        return float(matrix.ramp + matrix.runtime)
