"""How a fio load runs on a target: the settings a platform hands its load driver."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import Field, field_validator

from sweeper.models import StrictModel
from sweeper.units import parse_duration

#: fio is given this long beyond ramp + runtime before it counts as hung
TIMEOUT_GRACE_S = 60.0


class Precondition(StrictModel):
    """SNIA PTS preconditioning, for flash: fill passes, then each cell until steady."""

    #: workload-independent: sequential 128 KiB writes over the working set, this many times
    passes: int = Field(default=2, ge=1, le=10)
    #: workload-dependent: each cell runs before its first measured run until fio finds it
    #: steady (max deviation from the mean within 10% over the judged window), at most this
    #: long; the measured runs then judge steady state by the PTS rule themselves
    limit_s: float = Field(default=1800.0, gt=0, alias="limit")

    @field_validator("limit_s", mode="before")
    @classmethod
    def _duration(cls, v: Any) -> Any:
        return parse_duration(v)


@dataclass(frozen=True)
class FioLoad:
    """What fio writes to and how: the target as the load hosts see it, the fio to run,
    whether to fill the working set before reads, preconditioning, and the hang grace."""

    target: str
    fio: str = "fio"
    #: write the working set once before any read, so reads reach the medium
    fill: bool = True
    precondition: Precondition | None = None
    #: how long fio may run beyond ramp + runtime before it counts as hung and is killed
    hang_grace_s: float = TIMEOUT_GRACE_S
    #: SNIA PTS purge before the fill and preconditioning: discard | zero | nvme-format
    purge: str | None = None


class FioTargetOptions(StrictModel):
    """The fio side of ``platform_options`` where a person or a role names the target (the
    manual and ansible platforms): what fio may overwrite and how it measures."""

    #: device paths fio may overwrite besides stable ids (/dev/disk/by-id/…), compared by
    #: their real path
    allow: list[str] = Field(default_factory=list)
    overwrite_signatures: bool = False
    #: write the working set once before any read, so reads reach the medium
    fill: bool = True
    fio: str = Field(default="fio", pattern=r"^[A-Za-z0-9_./-]+$")
    precondition: Precondition | None = None
    #: SNIA PTS purge of each target before the fill and preconditioning
    purge: Literal["discard", "zero", "nvme-format"] | None = None
    hang_grace_s: float = Field(default=TIMEOUT_GRACE_S, gt=0, le=86400)

    @field_validator("hang_grace_s", mode="before")
    @classmethod
    def _grace(cls, v: Any) -> Any:
        return parse_duration(v) if isinstance(v, str) else v
