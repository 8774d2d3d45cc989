"""The ``local`` platform: real fio on this host against a block device, loop, zram or file.

Nothing can be reconfigured there, so the config space is one point that describes the
target as it was built (a LUN configured by hand, a single disk). Ansible checks the target
and gathers its facts; fio measures.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic import field_validator

from sweeper.configuration import Configuration, space_size
from sweeper.fio.jobfile import check_filename
from sweeper.fio.runner import FioMissingError, find_fio
from sweeper.load import (
    FioClients,
    FioDriver,
    FioLoad,
    LoadDriver,
    LocalFio,
)
from sweeper.load.purge import nvme_format_problem, purge_plan
from sweeper.load.settings import FioTargetOptions
from sweeper.platforms.base import Platform
from sweeper.target import inspect_target, target_problems
from sweeper.target_identity import local_identity
from sweeper.units import format_size, parse_size
from sweeper.vocabulary import CACHE_POLICIES, LAYOUTS, RAID_LEVELS


class LocalOptions(FioTargetOptions):
    """``platform_options`` of the local platform: the fio side shared with the platforms
    whose target a person or a role names, and the target itself."""

    #: the block device, loop, zram or file fio overwrites; ``allow`` lists further paths
    #: (any spelling: /dev/disk/by-id/… works), compared by realpath
    target: str
    #: create the target as a file of this size when it does not exist
    file_size: int | None = None
    #: any path or name of fio (the shared options' pattern does not apply here)
    fio: str = "fio"
    #: run fio on every host of the inventory's ``loadgen`` group at once (fio client/server)
    multi_host: bool = False

    @field_validator("file_size", mode="before")
    @classmethod
    def _size(cls, v: Any) -> Any:
        return None if v is None else parse_size(v)


def _options(options: dict[str, Any]) -> LocalOptions:
    return LocalOptions.model_validate(options)


class LocalPlatform(Platform):
    name = "local"
    # configuration_problems reads no cache policy: a large space is checked at one
    checks_ignore = ("cache_policy",)
    options_model = LocalOptions
    supported = {"raid_level": RAID_LEVELS, "layout": LAYOUTS, "cache_policy": CACHE_POLICIES}

    def __init__(self, options: dict[str, Any], state_dir: Path, inventory: Path | None = None):
        super().__init__(options, state_dir, inventory)
        self.opts = _options(options)

    @classmethod
    def option_problems(cls, options: dict[str, Any]) -> list[tuple[list[str | int], str]]:
        problems = super().option_problems(options)
        if problems:
            return problems
        opts = _options(options)
        try:
            # The target goes into fio's job files: refuse, before anything is created, a
            # name whose characters fio would read as syntax.
            check_filename(opts.target)
        except ValueError as exc:
            return [(["platform_options", "target"], str(exc))]
        problems = [
            (["platform_options", key], msg)
            for key, msg in target_problems(
                opts.target,
                allow=opts.allow,
                file_size=opts.file_size,
                overwrite_signatures=opts.overwrite_signatures,
            )
        ]
        if opts.purge == "nvme-format" and not problems:
            problem = nvme_format_problem(opts.target)
            if problem is not None:
                problems.append((["platform_options", "purge"], problem))
        try:
            find_fio(opts.fio)
        except FioMissingError as exc:
            problems.append((["platform_options", "fio"], str(exc)))
        return problems

    @classmethod
    def space_problems(cls, space: Any, options: dict[str, Any]) -> list[str]:
        n = space_size(space)
        if n > 1:
            return [
                f"the local platform cannot reconfigure its target, so the config space must "
                f"be one point that describes the target as it was built ({n} given)"
            ]
        return []

    @classmethod
    def configuration_problems(
        cls, config: Configuration, options: dict[str, Any], matrix: Any = None
    ) -> list[str]:
        opts = _options(options)
        working_set = getattr(matrix, "working_set", None)
        target = inspect_target(opts.target)
        capacity = target.size if target.kind != "missing" else (opts.file_size or 0)
        if working_set and capacity and working_set > capacity:
            return [
                f"the working set ({working_set} bytes) is larger than {opts.target} "
                f"({capacity} bytes)"
            ]
        return []

    def extravars(self, config: Configuration) -> dict[str, Any]:
        return {
            "raidsweep_platform": "local",
            "local_target": self.opts.target,
            "local_file_size": self.opts.file_size,
        }

    def teardown_extravars(self) -> dict[str, Any]:
        return {"raidsweep_platform": "local", "local_target": self.opts.target}

    def fio_versions(self) -> dict[str, str]:
        try:
            return {"": find_fio(self.opts.fio).version}
        except FioMissingError:  # the spec's check names it (platform_options.fio)
            return {}

    def load_driver(self, config: Configuration, matrix: Any, seed: int) -> LoadDriver:
        o = self.opts
        load = FioLoad(o.target, o.fio, o.fill, o.precondition, o.hang_grace_s, o.purge)
        transport = FioClients(self.inventory) if o.multi_host else LocalFio()
        return FioDriver(load, self.state_dir, matrix, transport)

    def target_identity(self) -> list[str]:
        """The target by what it is, not how it is spelled (:mod:`sweeper.target_identity`):
        a file by its device and inode (a hard link, a bind mount and a symlink are one file),
        its real path, and its folder's device and inode with its name (so a file yet to be
        made is one target through a bind mount or symlink of its folder); a block device by
        its device number and the devices beneath it (a partition's disk, a loop device's
        backing file); a /dev/disk/by-id link and /dev/sdb are one."""
        return local_identity(self.opts.target)

    def plan_lines(self, matrix: Any) -> list[str]:
        t = inspect_target(self.opts.target)
        size = t.size if t.kind != "missing" else (self.opts.file_size or 0)
        ws = matrix.working_set or size
        lines = []
        if t.kind == "missing":
            lines.append(f"creates {self.opts.target} as a file of {format_size(size)}")
        what = {"block": "block device", "file": "file"}.get(t.kind, "file")
        lines.append(
            f"fio writes to {self.opts.target} ({what}, {format_size(size)}), "
            f"bytes 0 to {format_size(ws)}; its contents there are destroyed"
        )
        if self.opts.purge is not None:
            lines.append(purge_plan(self.opts.purge, self.opts.target, size))
        if self.opts.fill and any(p.reads for p in matrix.patterns):
            lines.append(f"fills those {format_size(ws)} sequentially once before any read")
        return lines
