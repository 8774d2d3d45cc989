"""Array profiles: the hardware the simulated array models, from YAML.

Every field is a physical property or a named mechanism of the array; ``README.md`` beside
this file says where each one enters the model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from sweeper.dimensions import raid_group
from sweeper.yamlsource import load_model

PROFILE_DIR = Path(__file__).parent / "profiles"
MIRRORED = ("raid1", "raid10")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Drives(_Strict):
    """One kind of drive: rotating (seek + rotation + transfer) or flash (dies + bus)."""

    type: Literal["hdd", "ssd", "nvme"]
    count: int = Field(gt=0)
    capacity_gb: float = Field(gt=0)
    transfer_mib_s: float = Field(gt=0, description="media or bus rate of one drive")
    # rotating drives
    rpm: int | None = Field(default=None, ge=3600, le=20000)
    avg_seek_ms: float | None = Field(default=None, gt=0, description="full-stroke average")
    track_seek_ms: float = Field(default=0.3, ge=0, description="shortest (track-to-track) seek")
    # flash drives
    read_us: float | None = Field(default=None, gt=0, description="page read on one die")
    program_us: float | None = Field(default=None, gt=0, description="page program on one die")
    parallelism: int = Field(default=1, ge=1, le=1024, description="dies working at once")
    write_amplification: float = Field(default=1.0, ge=1.0, le=20.0)

    @model_validator(mode="after")
    def _kind(self) -> Drives:
        if self.type == "hdd":
            if self.rpm is None or self.avg_seek_ms is None:
                raise ValueError("a hdd needs rpm and avg_seek_ms")
            if self.track_seek_ms > self.avg_seek_ms:
                raise ValueError("track_seek_ms is longer than avg_seek_ms")
        elif self.read_us is None or self.program_us is None:
            raise ValueError(f"a {self.type} drive needs read_us and program_us")
        return self

    @property
    def rotating(self) -> bool:
        return self.type == "hdd"


class RaidGroup(_Strict):
    data: int = Field(gt=0)
    redundancy: int = Field(ge=0)

    @property
    def width(self) -> int:
        return self.data + self.redundancy


class Controllers(_Strict):
    count: int = Field(ge=1, le=16)
    iops: float = Field(gt=0, description="I/O operations one controller processes per second")
    mib_s: float = Field(gt=0, description="data-path bandwidth of one controller")
    hit_latency_us: float = Field(gt=0, description="a cache hit or a write into write cache")
    mirror_writes: bool = Field(
        default=False,
        description="every write is copied into the partner controller's cache: an active-"
        "active pair spends a second operation and the bytes again on each write",
    )


class FlashTier(_Strict):
    """A flash cache tier in front of the capacity drives (hybrid arrays)."""

    capacity_gib: float = Field(gt=0)
    devices: int = Field(gt=0)
    read_us: float = Field(gt=0)
    program_us: float = Field(gt=0)
    parallelism: int = Field(default=8, ge=1)
    transfer_mib_s: float = Field(gt=0)
    write_share: float = Field(
        default=0.3, gt=0, lt=1, description="share of the tier that buffers writes"
    )


class Cache(_Strict):
    read_gib: float = Field(ge=0, description="controller DRAM cache, split over controllers")
    write_gib: float = Field(ge=0, description="write cache (NVS), split over controllers")
    efficiency: float = Field(
        default=0.9, gt=0, le=1, description="share of the cache that holds the volume's data"
    )
    prefetch_hit: float = Field(
        default=0.97, ge=0, le=1, description="sequential reads served by read-ahead"
    )
    rank_write_share: float = Field(
        default=1.0,
        gt=0,
        le=1,
        description="share of a controller's write cache one rank may hold dirty (a slow "
        "rank cannot fill it for all)",
    )
    flash_tier: FlashTier | None = None


class Affinity(_Strict):
    """How many controllers serve a volume of each layout (the rest never see its I/O)."""

    single_rank: Literal["one", "all"] = "one"
    host_stripe: Literal["one", "all"] = "all"
    pool_stripe: Literal["one", "all"] = "one"


class Pool(_Strict):
    """Extent pools (rotate-extents volumes)."""

    extent_kib: list[int] = Field(min_length=1, description="extent sizes the array offers")
    extent_map_us: float = Field(
        default=0.0,
        ge=0,
        description="time of the pool's virtualisation path per host I/O (extent lookup)",
    )
    path_mib_s: float | None = Field(
        default=None,
        gt=0,
        description="bandwidth of the pool's virtualisation path (data copied through it)",
    )
    stage_us: float = Field(
        default=0.0, ge=0, description="time of the pool's virtualisation path per read miss"
    )
    slots: int = Field(
        default=1,
        ge=1,
        le=4096,
        description="operations the pool's virtualisation path carries at once; a read miss "
        "holds its slot until the data is staged",
    )

    @field_validator("extent_kib")
    @classmethod
    def _power_of_two(cls, v: list[int]) -> list[int]:
        for i, extent in enumerate(v):
            if extent <= 0 or extent & (extent - 1):
                raise ValueError(f"[{i}] {extent} KiB is not a power of two")
        return v


class DeviceAdapters(_Strict):
    """The RAID engine of the device adapter through which a server drives the ranks it
    owns: parity is computed there, one engine per server (README: "Device adapters")."""

    update_us: float = Field(
        ge=0,
        description="engine time of one parity update in a read-modify-write: the stripe "
        "lock, gathering old data and parity, and the parity journal",
    )
    mib_s: float = Field(gt=0, description="parity computed per second over the data")
    q_factor: float = Field(
        default=1.0,
        ge=1.0,
        le=16.0,
        description="a second parity (Q, Reed-Solomon over GF(2^8)) costs this many P (XOR) "
        "updates",
    )


class Host(_Strict):
    hbas: int = Field(gt=0)
    link_mib_s: float = Field(gt=0, description="one host link (HBA port)")
    hba_iops: float = Field(gt=0)
    cores: int = Field(gt=0)
    sync_us: float = Field(ge=0, description="host CPU per I/O with a blocking engine")
    async_us: float = Field(ge=0, description="host CPU per I/O with libaio or io_uring")
    split_us: float = Field(default=0.0, ge=0, description="host CPU per extra LVM stripe piece")
    load_hosts: int = Field(
        default=1, ge=1, le=64, description="load hosts that each run the job (workers per host)"
    )


class Snapshots(_Strict):
    grain_kib: int = Field(gt=0, description="unit copied on the first write after a snapshot")
    metadata_ios: float = Field(ge=0, description="back-end I/Os to update the snapshot map")
    create_s: float = Field(ge=0)


class DataReduction(_Strict):
    ratio: float = Field(ge=1.0, description="bytes written per byte stored")
    write_us_per_kib: float = Field(ge=0, description="controller CPU to hash and compress")
    read_us_per_kib: float = Field(ge=0, description="controller CPU to decompress")
    metadata_ios: float = Field(ge=0, description="back-end I/Os per miss for the lookup tables")


class Timing(_Strict):
    rank_init_mib_s: float = Field(gt=0, description="per-drive rate of a rank's format")
    rebuild_mib_s: float = Field(gt=0, description="rebuild rate onto a spare drive")
    rebuild_share: float = Field(
        default=0.3, ge=0, lt=1, description="back-end share a rebuild takes from the host"
    )
    volume_create_s: float = Field(ge=0)
    cache_policy_change_s: float = Field(ge=0)


class ArrayProfile(_Strict):
    name: str
    description: str = ""
    drives: Drives
    site_width: int = Field(gt=0, description="drives per array site; ranks are built in sites")
    strip_kib: int = Field(gt=0, description="contiguous data on one drive of a rank")
    raid_groups: dict[Literal["raid0", "raid1", "raid5", "raid6", "raid10"], RaidGroup] = Field(
        min_length=1
    )
    controllers: Controllers
    cache: Cache
    affinity: Affinity = Affinity()
    pool: Pool
    device_adapters: DeviceAdapters | None = None
    host: Host
    snapshots: Snapshots | None = None
    data_reduction: DataReduction | None = None
    timing: Timing
    noise_cv: float = Field(ge=0, le=0.5, description="run-to-run spread of throughput")

    @field_validator("site_width")
    @classmethod
    def _sites(cls, v: int, info: ValidationInfo) -> int:
        drives = info.data.get("drives")
        if drives is not None and drives.count < v:
            raise ValueError(f"{drives.count} drives do not fill one site of {v}")
        return v

    @field_validator("raid_groups")
    @classmethod
    def _groups(cls, v: dict[str, RaidGroup], info: ValidationInfo) -> dict[str, RaidGroup]:
        site = info.data.get("site_width")
        need = {"raid0": 0, "raid5": 1, "raid6": 2}
        for level, group in v.items():
            if level in MIRRORED and group.data != group.redundancy:
                raise ValueError(
                    f"{level}: a mirror needs one copy per data drive "
                    f"({group.data}+{group.redundancy} is not an even group width)"
                )
            if level in need and group.redundancy != need[level]:
                raise ValueError(
                    f"{level}: {level} has redundancy {need[level]}, not {group.redundancy}"
                )
            if site is not None and group.width > site:
                raise ValueError(f"{level}: {group.width} drives do not fit a site of {site}")
        return v

    @property
    def sites(self) -> int:
        return self.drives.count // self.site_width

    def width_problem(self, raid_level: str, drives: int) -> str | None:
        """Why ranks of ``drives`` drives cannot be built at ``raid_level``, or None."""
        need = {"raid0": 1, "raid1": 2, "raid5": 3, "raid6": 4, "raid10": 4}[raid_level]
        if raid_level == "raid1" and drives != 2:
            return f"a raid1 rank is a pair of drives, not {drives}"
        if raid_level in MIRRORED and drives % 2:
            return f"a {raid_level} rank mirrors pairs: {drives} drives is an odd width"
        if drives < need:
            return f"a {raid_level} rank needs at least {need} drives, not {drives}"
        if drives > self.site_width:
            return f"a rank of {drives} drives does not fit an array site of {self.site_width}"
        return None

    def with_rank_drives(self, raid_level: str, drives: int | None) -> ArrayProfile:
        """This profile with ranks of ``drives`` drives at ``raid_level`` (None: as it is):
        the configuration's own rank width (``drives_per_rank``)."""
        group = self.raid_groups[raid_level]
        if drives is None or drives == group.width:
            return self
        level_group = RaidGroup(**raid_group(raid_level, drives))
        return self.model_copy(
            update={"raid_groups": {**self.raid_groups, raid_level: level_group}}
        )

    def max_ranks(self, raid_level: str) -> int:
        """Ranks of this level the drives allow: whole groups inside sites of ``site_width``."""
        group = self.raid_groups[raid_level]
        return self.sites * (self.site_width // group.width)

    def rank_drives(self, raid_level: str) -> int:
        return self.raid_groups[raid_level].width

    def full_stripe_kib(self, raid_level: str) -> int:
        return self.raid_groups[raid_level].data * self.strip_kib

    def usable_gb(self, raid_level: str, ranks: int) -> float:
        return ranks * self.raid_groups[raid_level].data * self.drives.capacity_gb


def list_profiles() -> list[str]:
    return sorted(p.stem for p in PROFILE_DIR.glob("*.yaml"))


def load_profile(name_or_path: str) -> ArrayProfile:
    path = Path(name_or_path)
    if not path.suffix:
        path = PROFILE_DIR / f"{name_or_path}.yaml"
    return load_model(path, ArrayProfile, "an array profile")
