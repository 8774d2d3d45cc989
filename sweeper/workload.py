"""Workload cells: pattern × block size × concurrency, the unit of the fio matrix."""

from __future__ import annotations

import re
from dataclasses import dataclass

from sweeper.units import format_size, parse_size
from sweeper.untrusted import control_problem

PATTERNS = ("read", "write", "randread", "randwrite", "randrw")
ENGINES = ("sync", "psync", "libaio", "io_uring")
# Matched whole (fullmatch): ``$`` would let a trailing newline through.
_PATTERN_RE = re.compile(r"(read|write|randread|randwrite|randrw)(\d{1,2})?")
_CONCURRENCY_RE = re.compile(r"(?:qd)?(\d{1,9})x(\d{1,9})")
_ACTIVE_RE = re.compile(r"ws(\d{1,3})")


@dataclass(frozen=True, order=True)
class Pattern:
    """An fio ``rw=`` pattern; ``randrw`` carries its read percentage (``randrw70``)."""

    rw: str
    read_pct: int | None = None

    @classmethod
    def parse(cls, text: str) -> Pattern:
        m = _PATTERN_RE.fullmatch(str(text).strip().lower())
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
        m = _CONCURRENCY_RE.fullmatch(str(text).strip().lower())
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
    """One point of the workload matrix, e.g. ``randwrite/8k/qd1x20``.

    With an active range the cell also names the share of the volume its I/O spans:
    ``randread/8k/qd1x20/ws10`` touches the first 10%.
    """

    pattern: Pattern
    block_size: int
    concurrency: Concurrency
    active_pct: int | None = None

    @property
    def key(self) -> str:
        key = f"{self.pattern.name}/{format_size(self.block_size)}/{self.concurrency.name}"
        return key if self.active_pct is None else f"{key}/ws{self.active_pct}"

    def active_bytes(self, volume: int, align: int = 1024**2) -> int:
        """The bytes this cell's I/O spans within a volume (its working set) of ``volume``."""
        if self.active_pct is None:
            return volume
        size = volume * self.active_pct // 100
        return max(align, size - size % align) if size >= align else volume

    @classmethod
    def parse(cls, key: str) -> WorkloadCell:
        problem = control_problem(str(key))
        if problem:
            raise ValueError(f"{key!r} {problem}")
        parts = str(key).split("/")
        if len(parts) not in (3, 4):
            raise ValueError(f"{key!r} is not a cell key (pattern/block size/qdNxM[/wsPCT])")
        active = None
        if len(parts) == 4:
            m = _ACTIVE_RE.fullmatch(parts[3].strip().lower())
            if not m or not 1 <= int(m.group(1)) <= 100:
                raise ValueError(f"{key!r}: {parts[3]!r} is not an active range (ws1 to ws100)")
            active = int(m.group(1))
        pattern, bs = Pattern.parse(parts[0]), parse_size(parts[1])
        return cls(pattern, bs, Concurrency.parse(parts[2]), active)
