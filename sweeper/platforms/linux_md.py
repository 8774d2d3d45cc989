"""The ``linux_md`` platform: disks behind a Linux host, as software RAID (mdadm) and LVM.

The ``linux_md`` role builds each configuration on the storage host from the inventory's
allow-list of test devices (``linux_md_devices``, by ``/dev/disk/by-id/``):

- ranks: md arrays over groups of ``rank_devices`` devices (a RAID 1 rank is a pair), with
  the sweep's ``chunk_kib``, superblock ``metadata``, ``bitmap`` and ``assume_clean``;
- ``layout``: ``single_rank`` is a volume on one array; ``host_stripe`` an LVM volume group
  over ``ranks`` arrays with the volume striped over them in ``stripe_kib`` units
  (``lvcreate -i N -I S``); ``pool_stripe`` the volume's extents round-robin over the
  arrays at extent granularity (the extent is ``stripe_kib``), as an array's rotate-extents
  pool spreads a volume;
- ``cache_policy``: ``wb``/``wt`` is the drives' volatile write cache on or off (where the
  drive lets it be set; the facts say where it could not), or with ``lvmcache`` the mode of a
  dm-cache on the inventory's faster ``linux_md_cache_device``; ``ra``/``nora`` the volume's
  read-ahead (``read_ahead_kib``, or 0); RAID 5/6 arrays get ``stripe_cache_size``;
- ``snapshots``: an LVM snapshot of the test volume held during the runs;
- declared dimensions (``DECLARED``): ``chunk_kib`` and ``drives_per_rank`` swept (formats),
  ``filesystem`` (xfs or ext4 aligned to chunk x data drives, fio on a file on it) and
  ``health`` of the first array during the runs (one member failed, or a blank spare
  resyncing, capped by ``rebuild_kib_s``; a later ``optimal`` makes it whole again).

fio runs on the storage host over SSH, with the connection the inventory gives Ansible, on
the test volume ``/dev/raidsweep/volume``, purged there first if ``purge`` asks (discard or
zero; ``nvme-format`` is refused: the volume is no NVMe namespace). Safe mode refuses, before
anything changes, a device that is not allow-listed, is the root disk, is mounted, has
holders, or carries a filesystem, partition table, RAID or LVM signature that is not
raidsweep's own, unless the inventory lists it in ``linux_md_wipeable``. ``raidsweep lab up``
gives a throwaway VM to rehearse on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator

from sweeper.configuration import Configuration, enumerate_configurations
from sweeper.dimensions import WIDTH, Dimension, raid_group
from sweeper.errors import InputError
from sweeper.load import TIMEOUT_GRACE_S, FioDriver, FioLoad, LoadDriver, SshFio
from sweeper.load.purge import purge_plan
from sweeper.locking import canonical_host
from sweeper.models import StrictModel
from sweeper.platforms.base import Platform, option_vars
from sweeper.remote import RemoteHost, RemoteHostError, host_vars, inventory_host, remote_host
from sweeper.units import parse_duration
from sweeper.vocabulary import CACHE_POLICIES, LAYOUTS, RAID_LEVELS, STABLE_DEVICE_RE

VG = "raidsweep"
VOLUME = f"/dev/{VG}/volume"
BY_ID = "/dev/disk/by-id/"
#: the fewest members mdadm builds each level with (RAID 1 ranks are always pairs)
MIN_DEVICES = {"raid0": 2, "raid1": 2, "raid5": 3, "raid6": 4, "raid10": 2}
#: what a reconfiguration costs, for ordering the grid and for budgets: an initial resync
#: reads and writes every member at ``resync_mib_s`` (members of 1 TB until the host has
#: said how large they are), a volume group and volume take seconds, a cache knob less.
UNKNOWN_MEMBER_BYTES = 10**12
LVM_S = 20.0
KNOB_S = 5.0
#: the options the role reads, as ``linux_md_<option>``
ROLE_OPTIONS = (
    "rank_devices",
    "chunk_kib",
    "metadata",
    "bitmap",
    "assume_clean",
    "stripe_cache_size",
    "read_ahead_kib",
    "extent_kib",
    "volume_pct",
    "lvmcache",
    "rebuild_kib_s",
)
FILESYSTEMS = ("none", "xfs", "ext4")
HEALTHS = ("optimal", "degraded", "rebuilding")
#: where the filesystem layer is mounted, and the file fio measures on it
MOUNTPOINT = "/mnt/raidsweep"
FS_TARGET = f"{MOUNTPOINT}/fio.data"
#: the dimensions linux_md sweeps beyond the built-in ones (a swept one overrides the option
#: of the same meaning, ``chunk_kib`` and ``rank_devices``)
DECLARED = (
    Dimension(
        "chunk_kib",
        "int",
        tuple(2**i for i in range(2, 17)),
        "format",
        "RAID chunk (strip) size in KiB, one member's share of a stripe (not RAID 1)",
    ),
    Dimension(
        WIDTH,
        "int",
        tuple(range(2, 33)),
        "format",
        "drives of one md array (RAID group width); a RAID 1 array is always a pair",
    ),
    Dimension(
        "filesystem",
        "str",
        FILESYSTEMS,
        "volume",
        "a filesystem on the test volume aligned to chunk x data drives; fio on a file on it",
    ),
    Dimension(
        "health",
        "str",
        HEALTHS,
        "setting",
        "the first array during the runs: whole, one member failed, or a spare resyncing",
    ),
)
#: the option each swept dimension overrides in the role's variables
SWEPT_OPTION = {"chunk_kib": "chunk_kib", WIDTH: "rank_devices"}


def _power_of_two(v: int) -> bool:
    return v > 0 and v & (v - 1) == 0


class LinuxMdOptions(StrictModel):
    """``platform_options`` of the linux_md platform."""

    #: devices per md array (a RAID 1 array is always a pair)
    rank_devices: int = Field(default=4, ge=2, le=32)
    #: RAID chunk size in KiB (RAID 0/5/6/10)
    chunk_kib: int = Field(default=512, ge=4, le=65536)
    metadata: Literal["1.0", "1.1", "1.2"] = "1.2"
    #: internal write-intent bitmap
    bitmap: bool = False
    #: create arrays without the initial resync; recorded with every run
    assume_clean: bool = False
    stripe_cache_size: int = Field(default=4096, ge=17, le=32768)
    #: read-ahead of the volume in the ``ra`` cache policies (``nora`` is 0)
    read_ahead_kib: int = Field(default=1024, ge=0, le=1048576)
    #: LVM extent size of single_rank and host_stripe (pool_stripe's is its stripe_kib)
    extent_kib: int = Field(default=4096, ge=1024, le=16 * 1024**2)
    #: share of the volume group the test volume takes; the rest holds the snapshot
    volume_pct: int = Field(default=50, ge=10, le=100)
    #: write the working set once before any read, so reads reach the disks
    fill: bool = True
    #: fio on the storage host
    fio: str = Field(default="fio", pattern=r"^[A-Za-z0-9_./-]+$")
    hang_grace_s: float = Field(default=TIMEOUT_GRACE_S, gt=0, le=86400)
    #: an lvmcache (dm-cache) in front of the volume on the inventory's
    #: ``linux_md_cache_device``; ``wb``/``wt`` is then its writeback/writethrough mode
    lvmcache: bool = False
    #: initial resync speed, for the array time a RAID build costs (md's default ceiling)
    resync_mib_s: float = Field(default=200.0, gt=0, le=100000)
    #: the rebuilding health: cap the spare's resync at this many KiB/s (the host's own
    #: limits if not given), so that it lasts through the runs
    rebuild_kib_s: int | None = Field(default=None, ge=1000, le=10**8)
    #: SNIA PTS purge of the test volume before the fill, once per configuration
    purge: Literal["discard", "zero", "nvme-format"] | None = None

    @field_validator("purge")
    @classmethod
    def _purge(cls, v: str | None) -> str | None:
        if v != "nvme-format":
            return v
        raise ValueError(f"nvme-format needs an NVMe namespace, not {VOLUME} (LVM on md)")

    @field_validator("hang_grace_s", mode="before")
    @classmethod
    def _grace(cls, v: Any) -> Any:
        return parse_duration(v) if isinstance(v, str) else v

    @field_validator("chunk_kib", "extent_kib")
    @classmethod
    def _pow2(cls, v: int) -> int:
        if not _power_of_two(v):
            raise ValueError(f"{v} is not a power of two")
        return v


def _options(options: dict[str, Any]) -> LinuxMdOptions:
    return LinuxMdOptions.model_validate(options)


def devices_per_rank(config: Configuration, opts: LinuxMdOptions) -> int:
    """Drives of one md array: the swept width, else the option (a RAID 1 array is a pair)."""
    width = config.dimension(WIDTH)
    if width is not None:
        return int(width)
    return 2 if config.raid_level == "raid1" else opts.rank_devices


def chunk_of(config: Configuration, opts: LinuxMdOptions) -> int:
    """The array's chunk in KiB: the swept one, else the option."""
    return int(config.dimension("chunk_kib", opts.chunk_kib))


def devices_needed(config: Configuration, opts: LinuxMdOptions) -> int:
    return config.rank_count * devices_per_rank(config, opts)


def _line_of(inventory: Path, text: str) -> str:
    """``line N: `` of the first line of the inventory (file, or folder of files) that
    holds ``text``, to name the place of a problem; empty if none does."""
    files = sorted(inventory.glob("*.y*ml")) if inventory.is_dir() else [inventory]
    for path in files:
        try:
            lines = path.read_text(errors="replace").splitlines()
        except OSError:
            continue
        for n, line in enumerate(lines, 1):
            if text in line and not line.lstrip().startswith("#"):
                return f"{path.name} line {n}: " if inventory.is_dir() else f"line {n}: "
    return ""


class LinuxMdPlatform(Platform):
    name = "linux_md"
    # configuration_problems reads no cache policy: a large space is checked at one
    checks_ignore = ("cache_policy",)
    options_model = LinuxMdOptions
    declares = DECLARED
    supported = {
        "raid_level": RAID_LEVELS,
        "layout": LAYOUTS,
        "cache_policy": CACHE_POLICIES,
        "data_reduction": (False,),
    }

    def __init__(self, options: dict[str, Any], state_dir: Path, inventory: Path | None = None):
        super().__init__(options, state_dir, inventory)
        self.opts = _options(options)
        self.preflight_facts: dict[str, Any] = {}
        self._needed = 0
        #: the storage host, as the preflight read it from the inventory
        self.host: RemoteHost | None = None

    @classmethod
    def configuration_problems(
        cls, config: Configuration, options: dict[str, Any], matrix: Any = None
    ) -> list[str]:
        opts = _options(options)
        problems = []
        per = devices_per_rank(config, opts)
        given = (
            f"{WIDTH} is {per}"
            if config.dimension(WIDTH) is not None
            else f"platform_options.rank_devices is {per}"
        )
        if config.raid_level == "raid1" and per != 2:
            problems.append(f"a raid1 array is a pair of drives ({given})")
        elif per < MIN_DEVICES[config.raid_level]:
            problems.append(
                f"{config.raid_level} needs at least {MIN_DEVICES[config.raid_level]} devices "
                f"per array ({given})"
            )
        if config.dimension("health", "optimal") != "optimal" and config.raid_level == "raid0":
            problems.append(
                "raid0 has no redundancy: it cannot run degraded or rebuild onto a spare (health)"
            )
        if config.snapshots and opts.volume_pct == 100:
            problems.append(
                "a snapshot needs room beside the volume in the volume group: "
                "platform_options.volume_pct must be below 100"
            )
        if config.stripe_kib is not None:
            if not _power_of_two(config.stripe_kib):
                problems.append(f"LVM needs a power-of-two stripe_kib, not {config.stripe_kib}")
            elif config.layout == "host_stripe" and not 4 <= config.stripe_kib <= opts.extent_kib:
                problems.append(
                    f"an LVM stripe is 4 KiB up to the extent ({opts.extent_kib} KiB), "
                    f"not {config.stripe_kib} KiB"
                )
            elif config.layout == "pool_stripe" and config.stripe_kib < 1024:
                problems.append(
                    f"pool_stripe's stripe_kib is the LVM extent: at least 1024, "
                    f"not {config.stripe_kib}"
                )
        return problems

    def preflight(self, space: Any) -> None:
        """Before anything changes: the allow-list must name enough devices by stable id for
        the sweep's largest configuration, and safe mode on the host must accept them all.
        A refusal is an input error (exit status 2) naming each device."""
        if self.inventory is None:
            return
        configs = enumerate_configurations(space)
        self._needed = max(devices_needed(c, self.opts) for c in configs)
        try:
            hv = host_vars(self.inventory)
            # kept for every configuration's runner, not read from the inventory again
            self.host = remote_host(hv)
        except RemoteHostError as exc:
            raise InputError(str(self.inventory), [str(exc)]) from None
        devices = hv.get("linux_md_devices") or []
        problems = [
            f"{_line_of(self.inventory, str(d))}linux_md_devices[{i}]: {d!r} is not a stable "
            f"id ({BY_ID}...)"
            for i, d in enumerate(devices)
            if not isinstance(d, str) or not STABLE_DEVICE_RE.fullmatch(d)
        ]
        cache = hv.get("linux_md_cache_device")
        if self.opts.lvmcache and not (
            isinstance(cache, str) and STABLE_DEVICE_RE.fullmatch(cache)
        ):
            problems.append(
                f"{_line_of(self.inventory, 'linux_md_cache_device')}linux_md_cache_device: "
                f"platform_options.lvmcache needs the cache device by stable id ({BY_ID}...), "
                f"not {cache!r}"
            )
        elif self.opts.lvmcache and cache in devices[: self._needed]:
            problems.append(
                f"{_line_of(self.inventory, 'linux_md_cache_device')}linux_md_cache_device: "
                f"{cache} is also one of the arrays' devices"
            )
        if len(devices) < self._needed:
            problems.append(
                f"{_line_of(self.inventory, 'linux_md_devices')}"
                f"linux_md_devices: the sweep's largest configuration needs {self._needed} "
                f"devices, the allow-list of host {hv.get('inventory_hostname')} has "
                f"{len(devices)}"
            )
        if problems:
            raise InputError(str(self.inventory), problems)
        self.preflight_facts = self.preflight_facts_of(
            "preflight.yml", self._vars() | {"linux_md_needed": self._needed}
        )

    def _vars(self) -> dict[str, Any]:
        return {"raidsweep_platform": "linux_md"} | option_vars(
            "linux_md_", self.opts, ROLE_OPTIONS
        )

    def extravars(self, config: Configuration) -> dict[str, Any]:
        params = config.params()
        for name, _ in config.dimensions:
            params.pop(name)
        params.pop("data_reduction", None)
        params["snapshots"] = config.snapshots
        params.setdefault("ranks", None)
        params.setdefault("stripe_kib", None)
        # a swept dimension overrides the option of the same meaning
        swept = {
            f"linux_md_{SWEPT_OPTION[name]}": value
            for name, value in config.dimensions
            if name in SWEPT_OPTION
        }
        layers = {
            "filesystem": config.dimension("filesystem", "none"),
            "health": config.dimension("health"),
            "linux_md_mountpoint": MOUNTPOINT,
        }
        return self._vars() | swept | params | layers

    def teardown_extravars(self) -> dict[str, Any]:
        return {"raidsweep_platform": "linux_md"}

    def load_driver(self, config: Configuration, matrix: Any, seed: int) -> LoadDriver:
        """fio on the storage host, over SSH, on the test volume."""
        if self.inventory is None:
            raise RuntimeError("the linux_md platform needs an inventory")
        host = self.host or inventory_host(self.inventory)
        o = self.opts
        on_fs = config.dimension("filesystem", "none") != "none"
        target = FS_TARGET if on_fs else VOLUME
        load = FioLoad(target, o.fio, o.fill, None, o.hang_grace_s, o.purge)
        return FioDriver(
            load, self.state_dir, matrix, SshFio([host]), lambda: volume_identity(host, on_fs)
        )

    def target_identity(self) -> list[str]:
        """The storage host's volume group (raidsweep's arrays and VG have fixed names, so
        one sweep at a time per host), and each device of the allow-list and the cache
        device, by its stable id and, once the preflight has read them, by its real path (two
        ids of one disk are one). The host by address and port, however it is spelled."""
        try:
            hv = host_vars(self.inventory) if self.inventory else None
            host = self.host or (remote_host(hv) if hv is not None else None)
        except (RemoteHostError, OSError, ValueError):  # the preflight names the problem
            hv = host = None
        if hv is None or host is None:
            return super().target_identity()
        where = "local" if host.local else f"{canonical_host(host.address)}:{host.port}"
        listed = [d for d in hv.get("linux_md_devices") or [] if isinstance(d, str)]
        cache = hv.get("linux_md_cache_device")
        if self.opts.lvmcache and isinstance(cache, str):
            listed.append(cache)
        facts = self.preflight_facts.get("devices") or {}
        real = [str(v["path"]) for v in facts.values() if isinstance(v, dict) and v.get("path")]
        devices = list(dict.fromkeys([*listed, *real]))
        return [f"linux_md:{where}:vg:{VG}", *(f"linux_md:{where}:dev:{d}" for d in devices)]

    def plan_lines(self, matrix: Any) -> list[str]:
        devices = self.preflight_facts.get("devices") or {}
        shown = ", ".join(f"{d} ({v['path']})" for d, v in devices.items())
        return [
            f"builds md arrays and the LVM volume group {VG!r} on {shown or 'the allow-list'}, "
            "anew for every RAID build; whatever those devices hold is destroyed",
            f"fio writes to {VOLUME} on the storage host",
            *([purge_plan(self.opts.purge, VOLUME, None)] if self.opts.purge else []),
            "`raidsweep plan SPEC` shows what each configuration creates and destroys",
        ]

    def hardware(self) -> dict[str, Any]:
        """The arrays' make-up from the options, the drives' size from what the host
        reported before the sweep; the media is the spec's to say (``hardware.media``)."""
        n = self.opts.rank_devices
        facts: dict[str, Any] = {
            # a swept drives_per_rank gives each configuration its own (the trade-offs)
            "raid_groups": {
                level: raid_group(level, 2 if level == "raid1" else n) for level in RAID_LEVELS
            },
            "rebuild_mib_s": self.opts.resync_mib_s,
        }
        sizes = [d["size_bytes"] for d in (self.preflight_facts.get("devices") or {}).values()]
        if sizes:
            facts["drive_gb"] = round(min(sizes) / 1e9, 3)
        return facts

    def reconfiguration_time(self, previous: Configuration | None, new: Configuration) -> float:
        change = self.declared_change(previous, new)
        if (
            previous is None
            or (previous.raid_level, previous.rank_count) != (new.raid_level, new.rank_count)
            or change == "format"
        ):
            fresh = self.opts.assume_clean or new.raid_level == "raid0"
            return (0.0 if fresh else self._member_resync_s()) + LVM_S
        if (previous.layout, previous.stripe_kib) != (new.layout, new.stripe_kib) or (
            change == "volume"
        ):
            return LVM_S
        healths = (previous.dimension("health", "optimal"), new.dimension("health", "optimal"))
        if healths[0] != "optimal" and healths[1] == "optimal":
            return self._member_resync_s() + KNOB_S  # made whole: a member resyncs first
        return KNOB_S

    def _member_resync_s(self) -> float:
        """Array time of resyncing one member (every member at once, as md does)."""
        sizes = [d["size_bytes"] for d in (self.preflight_facts.get("devices") or {}).values()]
        member = max(sizes) if sizes else UNKNOWN_MEMBER_BYTES
        return member / (self.opts.resync_mib_s * 1024**2)


def volume_identity(host: RemoteHost, on_fs: bool = False) -> dict[str, Any]:
    """The test volume as built now: a volume built again has a new UUID, so the fill
    written to the previous one no longer applies; so has a filesystem made anew."""
    uuid = host.check(f"lvs --noheadings -o lv_uuid {VG}/volume").strip()
    identity = {"target": VOLUME, "host": host.name, "lv_uuid": uuid}
    if on_fs:
        fs = host.check(f"blkid -o value -s UUID {VOLUME}").strip()
        identity |= {"target": FS_TARGET, "fs_uuid": fs}
    return identity
