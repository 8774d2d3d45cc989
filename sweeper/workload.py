"""Workload cells: pattern × block size × concurrency, the unit of the fio matrix; optionally
with an active range, synchronous writes, a skewed access distribution and a data profile."""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Any

from sweeper.units import format_size, parse_size
from sweeper.untrusted import control_problem

PATTERNS = ("read", "write", "randread", "randwrite", "randrw")
ENGINES = ("sync", "psync", "libaio", "io_uring")
#: the engines that keep one I/O in flight per job, whatever the iodepth
SYNC_ENGINES = ("sync", "psync")
# Matched whole (fullmatch): ``$`` would let a trailing newline through.
_PATTERN_RE = re.compile(r"(read|write|randread|randwrite|randrw)(\d{1,2})?")
_CONCURRENCY_RE = re.compile(r"(?:qd)?(\d{1,9})x(\d{1,9})")
_ACTIVE_RE = re.compile(r"ws(\d{1,3})")
#: how a cell makes its writes durable: an fsync or fdatasync after every write, or O_DSYNC
SYNC_MODES = ("fsync", "fdatasync", "dsync")
#: fio's skewed random distributions (``random_distribution=NAME:PARAM``)
DISTRIBUTIONS = ("zipf", "pareto", "normal")
_DISTRIBUTION_RE = re.compile(r"(zipf|pareto|normal):?(\d{1,3}(?:\.\d{1,4})?)")
_DATA_RE = re.compile(r"cmp(\d{1,3})dd(\d{1,3})")
_RATE_RE = re.compile(r"rate(\d{1,3})")
#: what joins the streams of a composite cell in its key
STREAM_JOIN = "+"
MAX_STREAMS = 8


def _read(regex: re.Pattern[str], text: str, what: str) -> re.Match[str]:
    """``text`` as ``regex`` reads it whole (blanks around and case aside), or a ValueError
    saying it is not ``what``."""
    m = regex.fullmatch(str(text).strip().lower())
    if not m:
        raise ValueError(f"{text!r} is not {what}")
    return m


@dataclass(frozen=True, order=True)
class Pattern:
    """An fio ``rw=`` pattern; ``randrw`` carries its read percentage (``randrw70``)."""

    rw: str
    read_pct: int | None = None

    @classmethod
    def parse(cls, text: str) -> Pattern:
        m = _read(_PATTERN_RE, text, "a pattern (use read, write, randread, randwrite or randrwNN)")
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


#: the most of iodepth, and of jobs, a cell can have
MAX_JOBS = 4096


@dataclass(frozen=True, order=True)
class Concurrency:
    """Outstanding I/O as ``iodepth × numjobs`` (the reference study used 1 × 20 with sync I/O)."""

    iodepth: int
    numjobs: int

    @classmethod
    def parse(cls, text: str) -> Concurrency:
        what = "a concurrency (write iodepth x jobs, e.g. 1x20 or qd1x20)"
        m = _read(_CONCURRENCY_RE, text, what)
        iodepth, numjobs = int(m.group(1)), int(m.group(2))
        if not (1 <= iodepth <= MAX_JOBS and 1 <= numjobs <= MAX_JOBS):
            raise ValueError(f"{text!r}: iodepth and jobs must be between 1 and {MAX_JOBS}")
        return cls(iodepth, numjobs)

    @property
    def name(self) -> str:
        return f"qd{self.iodepth}x{self.numjobs}"

    def outstanding(self, engine: str) -> int:
        """I/Os in flight: synchronous engines keep one per job whatever the iodepth."""
        depth = 1 if engine in SYNC_ENGINES else self.iodepth
        return depth * self.numjobs


@dataclass(frozen=True, order=True)
class Distribution:
    """A skewed random access distribution, as fio names it: ``zipf:1.2`` (theta > 0, not 1),
    ``pareto:0.9`` (0 < h < 1) or ``normal:20`` (standard deviation, % of the range, 0-100)."""

    name: str
    param: float

    @classmethod
    def parse(cls, text: str) -> Distribution:
        m = _read(
            _DISTRIBUTION_RE,
            text,
            "a random distribution (write zipf:THETA, pareto:H or normal:DEVIATION_PCT, "
            "e.g. zipf:1.2)",
        )
        name, param = m.group(1), float(m.group(2))
        if name == "zipf" and not (0 < param <= 100 and param != 1):
            raise ValueError(f"{text!r}: zipf's theta must be above 0, at most 100 and not 1")
        if name == "pareto" and not 0 < param < 1:
            raise ValueError(f"{text!r}: pareto's h must be between 0 and 1 (exclusive)")
        if name == "normal" and not 0 < param < 100:
            raise ValueError(f"{text!r}: normal's deviation must be between 0 and 100 (exclusive)")
        return cls(name, param)

    @property
    def fio(self) -> str:
        """fio's ``random_distribution`` value."""
        return f"{self.name}:{self.param:g}"

    @property
    def name_in_key(self) -> str:
        return f"{self.name}{self.param:g}"


@dataclass(frozen=True, order=True)
class DataProfile:
    """What the written data is like: the share of each buffer that compresses away and the
    share of buffers that repeat an earlier one (fio's buffer_compress_percentage and
    dedupe_percentage, with fresh buffers for every write)."""

    compress_pct: int
    dedupe_pct: int

    def __post_init__(self) -> None:
        for name in ("compress_pct", "dedupe_pct"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 100:
                raise ValueError(f"{name} must be a whole percentage 0-100, not {value!r}")

    @property
    def name(self) -> str:
        return f"cmp{self.compress_pct}dd{self.dedupe_pct}"

    @classmethod
    def parse(cls, text: str) -> DataProfile:
        m = _read(_DATA_RE, text, "a data profile (cmpNNddMM)")
        return cls(int(m.group(1)), int(m.group(2)))


@dataclass(frozen=True, order=True)
class WorkloadCell:
    """One point of the workload matrix, e.g. ``randwrite/8k/qd1x20``.

    With an active range the cell also names the share of the volume its I/O spans:
    ``randread/8k/qd1x20/ws10`` touches the first 10%. Then, where the cell has them, in this
    order: its sync mode (``write/4k/qd1x1/fdatasync``, writing cells only), its skewed access
    distribution (``randread/8k/qd1x16/zipf1.2``, random cells only) and its data profile
    (``randwrite/8k/qd1x16/cmp50dd20``, writing cells only) and its rate
    (``randread/8k/qd4x16/rate70``: Poisson arrivals at 70% of the maximum IOPS).
    """

    pattern: Pattern
    block_size: int
    concurrency: Concurrency
    active_pct: int | None = None
    sync: str | None = None
    distribution: Distribution | None = None
    data: DataProfile | None = None
    #: an open-loop cell: Poisson arrivals at this percentage of the configuration's maximum
    #: IOPS for the cell without it (its concurrency curve's highest, or a saturating run)
    rate_pct: int | None = None
    #: a composite cell: the streams that run at the same time as this one (each a closed
    #: loop of its own), scored as one run, e.g. ``randrw70/8k/qd1x16+write/64k/qd1x1``
    others: tuple[WorkloadCell, ...] = ()

    def __post_init__(self) -> None:
        if self.others:
            streams = self.streams
            if len(streams) > MAX_STREAMS:
                raise ValueError(f"a composite cell has at most {MAX_STREAMS} streams")
            for s in streams:
                if s.rate_pct is not None:
                    raise ValueError(f"{s.key}: a composite's streams are closed loops (no rate)")
                if s is not self and s.others:
                    raise ValueError(f"{s.key}: a stream cannot itself be composite")
            if len({s.key for s in streams}) < len(streams):
                raise ValueError("a composite cell names the same stream twice")
        if self.sync is not None:
            if self.sync not in SYNC_MODES:
                raise ValueError(f"{self.sync!r} is not a sync mode ({', '.join(SYNC_MODES)})")
            if not self.pattern.writes:
                raise ValueError(f"{self.pattern.name} does not write: it takes no sync mode")
        if self.distribution is not None and not self.pattern.random:
            raise ValueError(f"{self.pattern.name} is sequential: it takes no random distribution")
        if self.data is not None and not self.pattern.writes:
            raise ValueError(f"{self.pattern.name} does not write: it takes no data profile")
        if self.rate_pct is not None and not 1 <= self.rate_pct <= 100:
            raise ValueError(f"a rate of {self.rate_pct}% is not between 1% and 100%")

    @property
    def key(self) -> str:
        key = f"{self.pattern.name}/{format_size(self.block_size)}/{self.concurrency.name}"
        if self.active_pct is not None:
            key += f"/ws{self.active_pct}"
        if self.sync is not None:
            key += f"/{self.sync}"
        if self.distribution is not None:
            key += f"/{self.distribution.name_in_key}"
        if self.data is not None:
            key += f"/{self.data.name}"
        if self.rate_pct is not None:
            key += f"/rate{self.rate_pct}"
        return key + "".join(f"{STREAM_JOIN}{o.key}" for o in self.others)

    @property
    def streams(self) -> tuple[WorkloadCell, ...]:
        """The streams that run together: this cell's own, then the others (one: itself)."""
        if not self.others:
            return (self,)
        return (dataclasses.replace(self, others=()), *self.others)

    @property
    def pattern_name(self) -> str:
        """The pattern as the store keeps it: a composite's streams' patterns joined by +."""
        return STREAM_JOIN.join(s.pattern.name for s in self.streams)

    @property
    def closed(self) -> WorkloadCell:
        """The cell without its rate: the closed loop whose maximum a rate cell is a share of."""
        return dataclasses.replace(self, rate_pct=None)

    @property
    def curve(self) -> str:
        """The concurrency curve this cell is a point of: its key without the concurrency
        (``randread/8k/ws10/fdatasync``); cells that differ only in I/Os in flight share it."""
        if self.others:
            return self.key  # a composite is a curve of its own
        parts = self.key.split("/")
        return "/".join(parts[:2] + parts[3:])

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
        if STREAM_JOIN in str(key):
            first, *rest = (cls.parse(part) for part in str(key).split(STREAM_JOIN))
            try:
                return dataclasses.replace(first, others=tuple(rest))
            except ValueError as exc:
                raise ValueError(f"{key!r}: {exc}") from None
        parts = str(key).split("/")
        if not 3 <= len(parts) <= 8:
            raise ValueError(
                f"{key!r} is not a cell key (pattern/block size/qdNxM[/wsPCT][/SYNC]"
                "[/DISTRIBUTION][/cmpNNddMM][/ratePCT])"
            )
        found: dict[str, Any] = {}
        rank = -1
        for part in parts[3:]:
            kind, value = _suffix(part.strip().lower())
            if kind is None:
                raise ValueError(
                    f"{key!r}: {part!r} is not an active range (ws1 to ws100), a sync mode "
                    f"({', '.join(SYNC_MODES)}), a random distribution (zipf1.2, pareto0.9, "
                    "normal20), a data profile (cmp50dd20) or a rate (rate70)"
                )
            if _SUFFIX_ORDER.index(kind) <= rank:
                raise ValueError(
                    f"{key!r}: {part!r} is out of order or repeated (write "
                    "pattern/size/qdNxM/wsPCT/SYNC/DISTRIBUTION/cmpNNddMM/ratePCT)"
                )
            rank = _SUFFIX_ORDER.index(kind)
            found[kind] = value
        pattern, bs = Pattern.parse(parts[0]), parse_size(parts[1])
        try:
            return cls(pattern, bs, Concurrency.parse(parts[2]), **found)
        except ValueError as exc:
            raise ValueError(f"{key!r}: {exc}") from None


_SUFFIX_ORDER = ("active_pct", "sync", "distribution", "data", "rate_pct")


def _suffix(part: str) -> tuple[str | None, Any]:
    """(field, value) of one optional part of a cell key; (None, None) when it is none."""
    m = _ACTIVE_RE.fullmatch(part)
    if m:
        pct = int(m.group(1))
        if not 1 <= pct <= 100:
            raise ValueError(f"{part!r} is not an active range (ws1 to ws100)")
        return "active_pct", pct
    if part in SYNC_MODES:
        return "sync", part
    if _DISTRIBUTION_RE.fullmatch(part):
        return "distribution", Distribution.parse(part)
    if _DATA_RE.fullmatch(part):
        return "data", DataProfile.parse(part)
    m = _RATE_RE.fullmatch(part)
    if m:
        return "rate_pct", int(m.group(1))
    return None, None
