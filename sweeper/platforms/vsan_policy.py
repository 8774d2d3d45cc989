"""The vsan platform's options and its storage policies: how raidsweep's RAID level and
layout map onto a vSAN policy's rules, and back from what vCenter read back."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from sweeper.load import TIMEOUT_GRACE_S
from sweeper.models import StrictModel

#: vSAN stripes an object's components in units of 1 MiB
STRIPE_UNIT_KIB = 1024
MAX_STRIPE_WIDTH = 12
MIRRORING = "RAID-1 (Mirroring)"
ERASURE_CODING = "RAID-5/6 (Erasure Coding)"
#: data and redundancy components of one vSAN object per RAID level (erasure coding is
#: always 3+1 or 4+2; mirroring keeps FTT+1 full copies)
EC_GROUPS = {"raid5": {"data": 3, "redundancy": 1}, "raid6": {"data": 4, "redundancy": 2}}
EC_FTT = {"raid5": 1, "raid6": 2}


class VsanOptions(StrictModel):
    """``platform_options`` of the vsan platform."""

    #: what answers the runs: ``fio`` in the worker VMs (over SSH, all at once, each on its
    #: test disk ``worker_device``), or ``sim``, the simulated array's model (a rehearsal
    #: against a test vCenter or vcsim, whose VMs cannot run fio)
    load: Literal["sim", "fio"]
    #: the test disk as each worker's guest sees it (the same in every worker, e.g. a clone's
    #: /dev/sdb or /dev/disk/by-path/...); fio overwrites it
    worker_device: str | None = Field(
        default=None, pattern=r"^/dev/[A-Za-z0-9][A-Za-z0-9/._:+@-]{0,200}$"
    )
    #: write the working set once before any read, so reads reach vSAN's capacity tier
    fill: bool = True
    fio: str = Field(default="fio", pattern=r"^[A-Za-z0-9_./-]+$")
    hang_grace_s: float = Field(default=TIMEOUT_GRACE_S, gt=0, le=86400)
    sim_profile: str = "hybrid-hci"
    #: name of the storage policy raidsweep creates and updates
    policy_name: str = Field(default="raidsweep", pattern=r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,79}$")
    #: failures to tolerate of raid1 (RAID-1 mirroring: FTT + 1 copies)
    mirror_failures_to_tolerate: int = Field(default=1, ge=1, le=3)
    #: percent of each object reserved (0 thin .. 100 thick)
    object_space_reservation: int = Field(default=0, ge=0, le=100)
    #: percent of each object's size reserved in the flash read cache (hybrid clusters)
    flash_read_cache_reservation: float = Field(default=0.0, ge=0, le=100)
    #: allow turning the cluster's deduplication and compression on or off
    allow_data_reduction_change: bool = False

    @model_validator(mode="after")
    def _fio_needs_a_device(self) -> VsanOptions:
        if self.load == "fio" and self.worker_device is None:
            raise ValueError("load: fio needs worker_device, the test disk in each worker VM")
        if self.worker_device is not None and "/../" in f"{self.worker_device}/":
            raise ValueError(f"worker_device {self.worker_device!r} climbs out of /dev")
        return self


def vsan_options(options: dict[str, Any]) -> VsanOptions:
    return VsanOptions.model_validate(options)


def raid_level_of(rules: dict[str, Any]) -> str:
    """raidsweep's RAID level of a policy's rules (the inverse of the role's mapping)."""
    if rules["failure_tolerance_method"] == MIRRORING:
        return "raid1"
    if rules["failure_tolerance_method"] == ERASURE_CODING:
        return {1: "raid5", 2: "raid6"}[int(rules["failures_to_tolerate"])]
    raise ValueError(f"unknown failure tolerance method {rules['failure_tolerance_method']!r}")


def policy_of(raid_level: str, stripe_width: int, opts: VsanOptions) -> dict[str, Any]:
    """The storage policy of a configuration, in the vsan_policy module's terms (the role
    maps a configuration the same way; a unit test holds the two together)."""
    return {
        "name": opts.policy_name,
        "failure_tolerance_method": MIRRORING if raid_level == "raid1" else ERASURE_CODING,
        "failures_to_tolerate": (
            opts.mirror_failures_to_tolerate if raid_level == "raid1" else EC_FTT[raid_level]
        ),
        "stripe_width": stripe_width,
        "object_space_reservation": opts.object_space_reservation,
        "flash_read_cache_reservation": opts.flash_read_cache_reservation,
    }


def configuration_of(readback: dict[str, Any]) -> dict[str, Any]:
    """raidsweep's configuration parameters of the state vCenter read back."""
    rules = readback["policy"]["rules"]
    width = int(rules["stripe_width"])
    params: dict[str, Any] = {
        "raid_level": raid_level_of(rules),
        "layout": "single_rank" if width == 1 else "pool_stripe",
        "cache_policy": "wb-ra",
        "snapshots": bool(readback["snapshots"]) and all(readback["snapshots"].values()),
    }
    if width > 1:
        params |= {"ranks": width, "stripe_kib": STRIPE_UNIT_KIB}
    dr = readback.get("data_reduction") or {}
    # vcsim accepts the change but reports nothing back; then what was asked is all there is.
    reported = dr.get("reported")
    params["data_reduction"] = bool(reported if reported is not None else dr.get("requested"))
    return params
