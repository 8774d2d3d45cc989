"""Workload cells: pattern × block size × concurrency, the unit of the fio matrix."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sweeper.units import format_size, parse_size

PATTERNS = ("read", "write", "randread", "randwrite", "randrw")
ENGINES = ("sync", "psync", "libaio", "io_uring")
_PATTERN_RE = re.compile(r"^(read|write|randread|randwrite|randrw)(\d{1,2})?$")
_CONCURRENCY_RE = re.compile(r"^(?:qd)?(\d+)x(\d+)$")


@dataclass(frozen=True, order=True)
class Pattern:
    """An fio ``rw=`` pattern; ``randrw`` carries its read percentage (``randrw70``)."""

    rw: str
    read_pct: int | None = None

    @classmethod
    def parse(cls, text: str) -> Pattern:
        m = _PATTERN_RE.match(str(text).strip().lower())
        if not m:
            raise ValueError(
                f"{text!r} is not a pattern (use read, write, randread, randwrite or randrwNN)"
            )
        rw, pct = m.group(1), m.group(2)
        if rw != "randrw":
            if pct is not None:
                raise ValueError(f"{text!r}: only randrw takes a read percentage")
            return cls(rw)
        read_pct = int(pct) if pct is not None else 50
        if not 1 <= read_pct <= 99:
            raise ValueError(f"{text!r}: the read percentage must be between 1 and 99")
        return cls("randrw", read_pct)

    @property
    def name(self) -> str:
        return f"randrw{self.read_pct}" if self.rw == "randrw" else self.rw

    @property
    def reads(self) -> bool:
        return self.rw in ("read", "randread", "randrw")

    @property
    def writes(self) -> bool:
        return self.rw in ("write", "randwrite", "randrw")

    @property
    def random(self) -> bool:
        return self.rw.startswith("rand")

    @property
    def read_fraction(self) -> float:
        if self.rw == "randrw":
            return (self.read_pct or 50) / 100
        return 1.0 if self.reads else 0.0


@dataclass(frozen=True, order=True)
class Concurrency:
    """Outstanding I/O as ``iodepth × numjobs`` (the reference study used 1 × 20 with sync I/O)."""

    iodepth: int
    numjobs: int

    @classmethod
    def parse(cls, text: str) -> Concurrency:
        m = _CONCURRENCY_RE.match(str(text).strip().lower())
        if not m:
            raise ValueError(f"{text!r} is not a concurrency (write iodepth x jobs, e.g. 1x20)")
        iodepth, numjobs = int(m.group(1)), int(m.group(2))
        if not (1 <= iodepth <= 4096 and 1 <= numjobs <= 4096):
            raise ValueError(f"{text!r}: iodepth and jobs must be between 1 and 4096")
        return cls(iodepth, numjobs)

    @property
    def name(self) -> str:
        return f"qd{self.iodepth}x{self.numjobs}"

    def outstanding(self, engine: str) -> int:
        """I/Os in flight: synchronous engines keep one per job whatever the iodepth."""
        depth = 1 if engine in ("sync", "psync") else self.iodepth
        return depth * self.numjobs


@dataclass(frozen=True, order=True)
class WorkloadCell:
    """One point of the workload matrix, e.g. ``randwrite/8k/qd1x20``."""

    pattern: Pattern
    block_size: int
    concurrency: Concurrency

    @property
    def key(self) -> str:
        return f"{self.pattern.name}/{format_size(self.block_size)}/{self.concurrency.name}"

    @classmethod
    def parse(cls, key: str) -> WorkloadCell:
        parts = str(key).split("/")
        if len(parts) != 3:
            raise ValueError(f"{key!r} is not a cell key (pattern/block size/qdNxM)")
        return cls(Pattern.parse(parts[0]), parse_size(parts[1]), Concurrency.parse(parts[2]))
