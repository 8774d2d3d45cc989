"""Array profiles: the hardware the simulated array models, from YAML."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from sweeper.yamlsource import load_model

PROFILE_DIR = Path(__file__).parent / "profiles"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Drives(_Strict):
    type: Literal["hdd", "ssd", "nvme"]
    count: int = Field(gt=0)
    capacity_gb: float = Field(gt=0)
    rpm: int | None = Field(default=None, gt=0)
    avg_seek_ms: float = Field(default=0.0, ge=0)
    transfer_mib_s: float = Field(gt=0)
    read_us: float = Field(default=0.0, ge=0)
    program_us: float = Field(default=0.0, ge=0)
    parallelism: int = Field(default=1, ge=1)


class RaidGroup(_Strict):
    data: int = Field(gt=0)
    redundancy: int = Field(ge=0)


class Controller(_Strict):
    iops: float = Field(gt=0)
    mib_s: float = Field(gt=0)
    hit_latency_us: float = Field(gt=0)


class Host(_Strict):
    links: int = Field(gt=0)
    link_mib_s: float = Field(gt=0)
    io_overhead_us: float = Field(ge=0)


class ArrayProfile(_Strict):
    name: str
    description: str = ""
    drives: Drives
    site_width: int = Field(gt=0)
    raid_groups: dict[str, RaidGroup]
    controllers: int = Field(ge=1, le=16)
    controller: Controller
    cache_gib: float = Field(ge=0)
    host: Host
    rank_init_mib_s: float = Field(gt=0)
    volume_create_s: float = Field(ge=0)
    cache_policy_change_s: float = Field(ge=0)
    noise_cv: float = Field(ge=0, le=0.5)

    @property
    def sites(self) -> int:
        return self.drives.count // self.site_width

    def max_ranks(self, raid_level: str) -> int:
        """Ranks of this level the drives allow: one rank per site of ``site_width`` drives."""
        group = self.raid_groups[raid_level]
        width = group.data + group.redundancy
        return self.sites * (self.site_width // width) if width <= self.site_width else 0

    def rank_drives(self, raid_level: str) -> int:
        group = self.raid_groups[raid_level]
        return group.data + group.redundancy


def list_profiles() -> list[str]:
    return sorted(p.stem for p in PROFILE_DIR.glob("*.yaml"))


def load_profile(name_or_path: str) -> ArrayProfile:
    path = Path(name_or_path)
    if not path.suffix:
        path = PROFILE_DIR / f"{name_or_path}.yaml"
    return load_model(path, ArrayProfile, "an array profile")
