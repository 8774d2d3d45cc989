"""The ``ansible`` platform: your own Ansible role builds each configuration.

For an array with an Ansible collection (NetApp, IBM Storage Virtualize, Dell, Pure, …, or
stock modules on a Linux host), the spec names a role of the user's and maps the
configuration's dimensions onto the role's variables::

    platform: ansible
    platform_options:
      role: roles/my_array            # a folder, relative to the spec
      variables: {raid_level: myarray_raid, layout: myarray_layout, ranks: myarray_groups}
      load: storage                   # fio on the inventory's storage host over SSH; or local
      dimensions: {myarray_tier: setting}   # the role's own variables swept as dimensions

A variable named in ``dimensions`` is swept like a built-in dimension: ``config_space`` lists
its values under the variable's name (``myarray_tier: [gold, silver]``), its type and choices
are those the role's argument spec declares, and its cost class (format, volume, setting)
places it in the build order.

The role meets the contract of ``examples/roles/README.md`` (checked before the first
configuration by :mod:`sweeper.platforms.role_contract`): its variables declared in
``meta/argument_specs.yml`` with entry points ``main`` and ``teardown``; ``main`` applies one
configuration, idempotent and safe in check mode; it reports the test target as the fact
``raidsweep_target`` and anything for the disclosure as ``raidsweep_facts``. raidsweep runs
it through the same runner as its own roles, the configuration's values as data (never
templated), in check mode for ``--check`` and ``plan``; after the first configuration it
applies ``main`` again in check mode and warns when that would change anything.
"""

from __future__ import annotations

import glob
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator

from sweeper import rank_forms
from sweeper.ansible import PlayResult, run_playbook
from sweeper.configuration import Configuration
from sweeper.dimensions import KINDS, CostClass, Dimension, name_problem
from sweeper.errors import InputError
from sweeper.fio.jobfile import check_filename
from sweeper.load import (
    FioDriver,
    FioLoad,
    LoadDriver,
    LocalFio,
    SshFio,
)
from sweeper.load.settings import FioTargetOptions
from sweeper.platforms.base import Platform
from sweeper.platforms.manual import answer_problems, manual_options
from sweeper.platforms.role_contract import argument_specs, contract_problems
from sweeper.remote import RemoteHostError, inventory_host
from sweeper.vocabulary import CACHE_POLICIES, CONFIGURATION_COLUMNS, LAYOUTS, RAID_LEVELS


class RoleOptions(FioTargetOptions):
    """``platform_options`` of the ansible platform."""

    #: the role's folder (relative to the spec's folder)
    role: str = Field(min_length=1, max_length=4096)
    #: configuration dimension -> the role's variable that takes it
    variables: dict[str, str] = Field(min_length=1)
    #: where fio runs: this host, or the inventory's storage host (over SSH)
    load: Literal["local", "storage"] = "local"
    #: the role's own variables swept as dimensions, each with what changing it costs
    dimensions: dict[str, CostClass] = Field(default_factory=dict)
    # allow (with load: local) may name patterns, /dev/sd*: a role builds new LUNs

    @field_validator("variables")
    @classmethod
    def _names(cls, v: dict[str, str]) -> dict[str, str]:
        for dim, var in v.items():
            if dim not in CONFIGURATION_COLUMNS:
                known = ", ".join(CONFIGURATION_COLUMNS)
                raise ValueError(f"{dim!r} is not a configuration dimension ({known})")
            if not var.isidentifier() or var.startswith("raidsweep_"):
                raise ValueError(f"{dim}: {var!r} is not a variable name of the role's")
        return v

    @field_validator("dimensions")
    @classmethod
    def _dimension_names(cls, v: dict[str, str]) -> dict[str, str]:
        for var in v:
            problem = name_problem(var)
            if problem is None and var.startswith("raidsweep_"):
                problem = f"{var!r} is raidsweep's own variable"
            if problem:
                raise ValueError(problem)
        return v


def _space_values(space: Any, dim: str) -> list[Any]:
    """Every value ``dim`` takes in the space (over every layout, for ranks and stripes)."""
    value = getattr(space, dim)
    if isinstance(value, dict):
        return sorted({v for _, values in rank_forms.lists(value) for v in values})
    return list(value)


def role_options(options: dict[str, Any]) -> RoleOptions:
    return RoleOptions.model_validate(options)


class AnsibleRolePlatform(Platform):
    name = "ansible"
    options_model = RoleOptions
    supported = {"raid_level": RAID_LEVELS, "layout": LAYOUTS, "cache_policy": CACHE_POLICIES}
    checks_ignore = ("cache_policy",)

    def __init__(self, options: dict[str, Any], state_dir: Path, inventory: Path | None = None):
        super().__init__(options, state_dir, inventory)
        self.opts = role_options(options)
        self.target: str | None = None
        #: what the second, check-mode apply of the first configuration found, once checked
        self.idempotence: str | None = None

    @classmethod
    def supported_values(cls, options: dict[str, Any]) -> dict[str, tuple[Any, ...]]:
        """What the role's argument spec offers for each mapped dimension (its ``choices``)."""
        try:
            opts = role_options(options)
            declared = argument_specs(Path(opts.role))["main"].get("options") or {}
        except (ValueError, TypeError, KeyError, AttributeError):
            return cls.supported  # option_problems and space_problems name the problem
        offered = dict(cls.supported)
        for dim, var in opts.variables.items():
            choices = (
                (declared.get(var) or {}).get("choices") if isinstance(declared, dict) else None
            )
            if choices:
                offered[dim] = tuple(choices)
        return offered

    @classmethod
    def declared_dimensions(cls, options: dict[str, Any]) -> dict[str, Dimension]:
        """The role's variables the options name in ``dimensions``, with the type and
        choices its argument spec declares (one it does not declare is left out here and
        named by ``space_problems``)."""
        try:
            opts = role_options(options)
            declared = argument_specs(Path(opts.role))["main"].get("options") or {}
        except (ValueError, TypeError, KeyError, AttributeError):
            return {}
        out = {}
        for var, cost in opts.dimensions.items():
            option = declared.get(var) if isinstance(declared, dict) else None
            if isinstance(option, dict) and option.get("type", "str") in KINDS:
                choices = option.get("choices")
                out[var] = Dimension(
                    var,
                    option.get("type", "str"),
                    tuple(choices) if isinstance(choices, list) and choices else None,
                    cost,
                    str(option.get("description") or ""),
                )
        return out

    @classmethod
    def resolved_options(cls, options: dict[str, Any], spec_dir: Path) -> dict[str, Any]:
        role = options.get("role")
        if isinstance(role, str) and role and not Path(role).is_absolute():
            return options | {"role": str((spec_dir / role).resolve())}
        return options

    @classmethod
    def space_problems(cls, space: Any, options: dict[str, Any]) -> list[str]:
        opts = role_options(options)
        values = {dim: _space_values(space, dim) for dim in opts.variables}
        problems = [
            f"platform_options.{key}: {msg}"
            for key, msg in contract_problems(Path(opts.role), opts.variables, values)
        ]
        if problems:
            return problems
        offered = cls.declared_dimensions(options)
        kinds = ", ".join(KINDS)
        return [
            f"platform_options.dimensions.{var}: the role's main declares no variable {var} "
            f"of type {kinds}"
            for var in opts.dimensions
            if var not in offered
        ]

    def role_vars(self, config: Configuration) -> dict[str, Any]:
        """The configuration as the role's variables (a dimension the configuration has no
        value for, e.g. ranks of a single rank, is left to the role's default)."""
        params = config.params() | {
            "snapshots": config.snapshots,
            "data_reduction": config.data_reduction,
        }
        mapped = {var: params[dim] for dim, var in self.opts.variables.items() if dim in params}
        return mapped | dict(config.dimensions)

    def extravars(self, config: Configuration) -> dict[str, Any]:
        return {
            "raidsweep_platform": "ansible",
            "raidsweep_role": self.opts.role,
            "raidsweep_role_entry": "main",
        } | self.role_vars(config)

    def teardown_extravars(self) -> dict[str, Any]:
        return {
            "raidsweep_platform": "ansible",
            "raidsweep_role": self.opts.role,
            "raidsweep_role_entry": "teardown",
        }

    def applied(self, config: Configuration, play: PlayResult) -> str | None:
        """The test target the role reported, checked; why the configuration cannot be
        measured otherwise. After the first configuration, whether the role is idempotent."""
        target = play.facts.get("target")
        if not isinstance(target, str) or not target:
            return "the role reported no test target (set_fact raidsweep_target)"
        try:
            check_filename(target)
        except ValueError as exc:
            return f"the role's test target: {exc}"
        if self.opts.load == "local":
            # A role builds new LUNs: the allow-list may name them by pattern (/dev/sd*).
            allowed = [p for a in self.opts.allow for p in (glob.glob(a) or [a])]
            safety = manual_options(
                {"allow": allowed, "overwrite_signatures": self.opts.overwrite_signatures}
            )
            problems = answer_problems(target, safety, None)
            if problems:
                return "the role's test target: " + "; ".join(problems)
        self.target = target
        if self.idempotence is None and self.inventory is not None:
            again = run_playbook(
                "reconfigure.yml", self.inventory, self.extravars(config), check=True
            )
            self.idempotence = (
                "idempotent: applying main again would change nothing"
                if again.ok and not again.changed
                else f"not idempotent: applying main again would change {again.changed} "
                f"task(s){'' if again.ok else ' and fail: ' + again.failure()}"
            )
        return None

    def warnings(self) -> list[str]:
        if self.idempotence and self.idempotence.startswith("not idempotent"):
            return [f"the role {self.opts.role} is {self.idempotence}"]
        return []

    def load_driver(self, config: Configuration, matrix: Any, seed: int) -> LoadDriver:
        assert self.target is not None, "applied() takes the role's test target"
        o = self.opts
        load = FioLoad(self.target, o.fio, o.fill, o.precondition, o.hang_grace_s, o.purge)
        if o.load == "local":
            return FioDriver(load, self.state_dir, matrix, LocalFio())
        if self.inventory is None:
            raise RuntimeError("load: storage needs an inventory")
        try:
            host = inventory_host(self.inventory)
        except (RemoteHostError, OSError, ValueError) as exc:
            raise InputError(str(self.inventory), [str(exc)]) from None
        return FioDriver(load, self.state_dir, matrix, SshFio([host]))

    def plan_lines(self, matrix: Any) -> list[str]:
        where = "on this host" if self.opts.load == "local" else "on the storage host (SSH)"
        return [
            f"applies the role {self.opts.role} (entry point main) once per configuration, "
            f"with {', '.join(f'{d} as {v}' for d, v in self.opts.variables.items())}",
            f"fio writes {where} to the test target the role reports; its contents are destroyed",
            "`raidsweep plan SPEC` shows what each configuration changes (the role in check mode)",
        ]
