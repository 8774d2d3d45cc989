"""The spec's workload matrix: the fio cells run on every configuration, and the rules
for steady state, repetitions, curves and drift."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any, Literal

from pydantic import (
    Field,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    field_validator,
    model_validator,
)

from sweeper.models import StrictModel
from sweeper.repetitions import AGREEMENT_CV_PCT
from sweeper.spec.fields import (
    ConcurrencyField,
    DistributionField,
    Duration,
    PatternField,
    Size,
    SyncField,
    no_duplicates,
)
from sweeper.units import format_size, parse_latency_ms
from sweeper.workload import (
    ENGINES,
    MAX_STREAMS,
    STREAM_JOIN,
    SYNC_ENGINES,
    Concurrency,
    DataProfile,
    WorkloadCell,
)

#: the validation context of a spec file being loaded to run, plan or judge a sweep (not a
#: sweep's record): rules about what is worth measuring apply to it alone
SPEC_FILE = "spec_file"
#: the most cells a matrix may make: 20,000 cells of one minute on one configuration are two
#: weeks of array time
MAX_CELLS = 20_000


class SteadyStateRule(StrictModel):
    """SNIA PTS steady state, judged over the last ``window`` rounds of each run.

    ``round`` is the length of one round; by default the measurement interval is cut into
    twice ``window`` rounds (a 300 s run: 30 s rounds, the last 150 s judged).
    """

    round: Duration | None = None
    window: int = Field(default=5, ge=2, le=100)
    max_range_pct: float = Field(default=20.0, gt=0, le=100)
    max_slope_pct: float = Field(default=10.0, gt=0, le=100)

    @field_validator("round", mode="wrap")
    @classmethod
    def _whole_seconds(cls, v: Any, handler: ValidatorFunctionWrapHandler) -> float | None:
        seconds = handler(v)
        if seconds is not None and (seconds < 1 or seconds != int(seconds)):
            raise ValueError(f"{v!r} is not a whole number of seconds (>= 1s)")
        return seconds

    def round_s(self, runtime_s: float) -> int:
        return int(self.round) if self.round else max(1, int(runtime_s // (2 * self.window)))


class DynamicRepetitions(StrictModel):
    """Repeat a cell beyond ``repetitions`` while its IOPS vary by more than ``cv_pct``."""

    cv_pct: float = Field(default=AGREEMENT_CV_PCT, gt=0, le=100)
    max: int = Field(default=10, ge=2, le=100)


class CurveStop(StrictModel):
    """Stop a concurrency curve early: latency above the limit, or throughput falling."""

    latency_limit: str | None = None  # with its unit, e.g. 20ms
    throughput_drop_pct: float = Field(default=5.0, ge=0, lt=100)

    @field_validator("latency_limit")
    @classmethod
    def _unit(cls, v: str | None) -> str | None:
        if v is not None and parse_latency_ms(v) <= 0:
            raise ValueError(f"{v!r} is not a positive latency")
        return v

    @property
    def latency_limit_ms(self) -> float | None:
        return None if self.latency_limit is None else parse_latency_ms(self.latency_limit)


class Drift(StrictModel):
    """Repeat one cell back to back, ``repetitions`` times, to see whether it drifts."""

    cell: str
    repetitions: int = Field(ge=3, le=10000)

    @field_validator("cell")
    @classmethod
    def _cell(cls, v: str) -> str:
        return WorkloadCell.parse(v).key


class DataProfileEntry(StrictModel):
    """What the writes carry: ``compress_pct`` of each buffer compresses away, ``dedupe_pct``
    of the buffers repeat an earlier one (fio's buffer_compress_percentage and
    dedupe_percentage, every write with fresh buffers)."""

    compress_pct: int = Field(ge=0, le=100, strict=True)
    dedupe_pct: int = Field(default=0, ge=0, le=100, strict=True)

    @property
    def profile(self) -> DataProfile:
        return DataProfile(self.compress_pct, self.dedupe_pct)


def _cell_key(i: int, text: str) -> str:
    """The key of the cell ``text`` (entry ``i`` of its list); every stream's block size a
    whole number of 512-byte sectors."""
    try:
        cell = WorkloadCell.parse(text)
    except ValueError as exc:
        raise ValueError(f"[{i}] {exc}") from None
    for s in cell.streams:
        if s.block_size % 512:
            raise ValueError(f"[{i}] {s.key}: {s.block_size} bytes is not a multiple of 512")
    return cell.key


class Matrix(StrictModel):
    """The fio workload matrix run on every configuration."""

    patterns: list[PatternField] = Field(min_length=1)
    block_sizes: list[Size] = Field(min_length=1)
    concurrency: list[ConcurrencyField] = Field(default=[Concurrency(1, 1)], min_length=1)
    engine: Literal[ENGINES] = "libaio"  # type: ignore[valid-type]
    runtime: Duration = 60.0
    ramp: Duration = 10.0
    repetitions: int = Field(default=3, ge=1, le=100)
    working_set: Size | None = None
    steady_state: SteadyStateRule = SteadyStateRule()
    dynamic_repetitions: DynamicRepetitions | None = None
    curve_stop: CurveStop | None = None
    drift: Drift | None = None
    #: percent of the volume (working_set, else the whole target) each cell's I/O spans
    active_range: list[Annotated[int, Field(ge=1, le=100)]] | None = Field(
        default=None, min_length=1
    )
    #: cells measured besides the cross product (e.g. what one class alone needs), written
    #: pattern/block size/concurrency like ``read/1m/qd1x16``
    extra_cells: list[str] = Field(default_factory=list)
    #: how writing cells make their writes durable: none, fsync, fdatasync (after every
    #: write) or dsync (O_DSYNC); each value is a dimension of the writing cells
    sync: list[SyncField] | None = Field(default=None, min_length=1)
    #: the random cells' access distribution: uniform, or fio's zipf:THETA, pareto:H,
    #: normal:DEVIATION_PCT (hot spots); a dimension of the random cells
    random_distribution: list[DistributionField] | None = Field(default=None, min_length=1)
    #: what the writing cells write (compressibility and duplicates); a dimension of the
    #: writing cells. Without it fio writes random, incompressible, never repeated data.
    data_profile: list[DataProfileEntry] | None = Field(default=None, min_length=1)
    #: open-loop cells besides the closed-loop ones: Poisson arrivals at these percentages of
    #: the configuration's maximum IOPS for the cell (its concurrency curve's highest, or a
    #: saturating run first), e.g. [10, 50, 70, 90]; each adds ``…/rate70`` to every cell
    rate: list[Annotated[int, Field(ge=1, le=100, strict=True)]] | None = Field(
        default=None, min_length=1
    )

    #: composite cells: streams that run at the same time, scored as one run, each written
    #: as a cell key (``[randrw70/8k/qd1x16, write/64k/qd1x1]``: OLTP data and its log)
    composite: list[list[str]] = Field(default_factory=list)

    @field_validator("composite")
    @classmethod
    def _composites(cls, v: list[list[str]]) -> list[list[str]]:
        keys = []
        for i, streams in enumerate(v):
            if not 2 <= len(streams) <= MAX_STREAMS:
                raise ValueError(f"[{i}] a composite cell has 2 to {MAX_STREAMS} streams")
            keys.append(_cell_key(i, STREAM_JOIN.join(streams)))
        no_duplicates(keys, "the composite cell")
        return [k.split(STREAM_JOIN) for k in keys]

    @field_validator("data_profile")
    @classmethod
    def _unique_profiles(cls, v: list[DataProfileEntry] | None) -> list[DataProfileEntry] | None:
        if v is not None:
            no_duplicates([e.profile.name for e in v], "the data profile")
        return v

    @field_validator("extra_cells")
    @classmethod
    def _extra_cells(cls, v: list[str]) -> list[str]:
        return no_duplicates([_cell_key(i, text) for i, text in enumerate(v)], "the cell")

    @field_validator(
        "patterns", "concurrency", "active_range", "sync", "random_distribution", "rate"
    )
    @classmethod
    def _unique(cls, v: list[Any] | None) -> list[Any] | None:
        return None if v is None else no_duplicates(v, "the entry")

    @field_validator("block_sizes")
    @classmethod
    def _block_sizes(cls, v: list[int]) -> list[int]:
        for i, bs in enumerate(v):
            if bs % 512:
                raise ValueError(f"[{i}] {bs} bytes is not a multiple of 512 (direct I/O)")
            if bs > 64 * 1024**2:
                raise ValueError(f"[{i}] {bs} bytes is larger than 64 MiB")
        return no_duplicates(v, "the block size")

    # wrap validators: the bound is checked on the parsed seconds, and said with the value as
    # the spec wrote it (``'1ms'``, not the ``0s`` it rounds to)
    @field_validator("runtime", mode="wrap")
    @classmethod
    def _runtime(cls, v: Any, handler: ValidatorFunctionWrapHandler) -> float:
        seconds = handler(v)
        if not 1 <= seconds <= 7 * 86400:
            raise ValueError(f"{v!r} is outside 1s..7d")
        return seconds

    @field_validator("ramp", mode="wrap")
    @classmethod
    def _ramp(cls, v: Any, handler: ValidatorFunctionWrapHandler) -> float:
        seconds = handler(v)
        if seconds > 86400:
            raise ValueError(f"{v!r} is longer than a day")
        return seconds

    @model_validator(mode="after")
    def _cells_within_reach(self) -> Matrix:
        """At most ``MAX_CELLS`` cells, counted by arithmetic before any is made (``cells()``
        of a matrix of a thousand block sizes and concurrencies would take the machine's
        memory before anything refused it). The count is an upper bound: every cell in every
        variant, with the extra cells as if none were in the cross product."""
        variants = (
            len(self.sync or [None])
            * len(self.random_distribution or [None])
            * len(self.data_profile or [None])
        )
        ranges = len(self.active_range or [None])
        crossed = len(self.patterns) * len(self.block_sizes) * len(self.concurrency) * ranges
        closed = (crossed + len(self.extra_cells) * ranges) * variants
        most = closed * (1 + len(self.rate or [])) + len(self.composite)
        if most > MAX_CELLS:
            raise ValueError(
                f"the matrix makes up to {most:,} cells ({len(self.patterns)} patterns × "
                f"{len(self.block_sizes)} block sizes × {len(self.concurrency)} concurrencies"
                f" × {ranges} active ranges × {variants} variants, extra, composite and rate "
                f"cells), more than the {MAX_CELLS:,} a study can measure: sweep fewer values, "
                "or split the study"
            )
        return self

    @model_validator(mode="after")
    def _cap_above_minimum(self) -> Matrix:
        dyn = self.dynamic_repetitions
        if dyn is not None and dyn.max < self.repetitions:
            raise ValueError(
                f"dynamic_repetitions.max ({dyn.max}) is below repetitions ({self.repetitions})"
            )
        return self

    @model_validator(mode="after")
    def _one_in_flight_per_sync_job(self, info: ValidationInfo) -> Matrix:
        """With a synchronous engine every job keeps one I/O in flight: a concurrency of
        iodepth > 1 would measure the iodepth-1 cell again under another name (and a curve
        would count I/Os that were never in flight). A spec file's rule (``SPEC_FILE``): a
        sweep recorded before it was one stays readable."""
        if self.engine not in SYNC_ENGINES or not (info.context or {}).get(SPEC_FILE):
            return self
        named = [(f"concurrency[{i}]", c) for i, c in enumerate(self.concurrency)]
        for field, texts in (("extra_cells", self.extra_cells), ("composite", self.composite)):
            for i, text in enumerate(texts):
                joined = text if isinstance(text, str) else STREAM_JOIN.join(text)
                cell = WorkloadCell.parse(joined)
                named += [(f"{field}[{i}]", s.concurrency) for s in (cell, *cell.others)]
        for where, c in named:
            if c.iodepth > 1:
                raise ValueError(
                    f"{where}: {c.name} asks for {c.iodepth} I/Os in flight per job, but engine "
                    f"{self.engine} keeps one (a synchronous engine ignores iodepth), so it "
                    f"would measure qd1x{c.numjobs} again: write 1x{c.numjobs}, or set engine "
                    "to libaio or io_uring"
                )
        return self

    @model_validator(mode="after")
    def _drift_cell_measured(self) -> Matrix:
        if self.drift is not None and self.drift.cell not in {c.key for c in self.cells()}:
            raise ValueError(f"drift.cell {self.drift.cell!r} is not a cell of this matrix")
        return self

    @model_validator(mode="after")
    def _working_set_holds_a_block(self) -> Matrix:
        """Each cell's span (the working set, times its active range) holds at least one of
        its blocks: fio cannot address a block in less."""
        if self.working_set is None:
            return self
        for cell in self.cells():
            for stream in (cell, *cell.others):
                span = self.working_set * (stream.active_pct or 100) // 100
                if span < stream.block_size:
                    raise ValueError(
                        f"working_set {format_size(self.working_set)} gives cell "
                        f"{stream.key} a span of {format_size(span)}, less than one of its "
                        f"{format_size(stream.block_size)} blocks"
                    )
        return self

    def repetitions_of(self, cell: WorkloadCell) -> int:
        """The fixed repetitions of ``cell``: more for the drift cell."""
        if self.drift is not None and cell.key == self.drift.cell:
            return max(self.repetitions, self.drift.repetitions)
        return self.repetitions

    def cells(self) -> list[WorkloadCell]:
        """The cross product, then the extra cells it lacks (each in every active range, and
        in every sync mode, distribution and data profile it does not name itself), the
        composite cells, then each closed-loop cell at each rate. Sync modes and data profiles
        multiply the writing cells only, distributions the random cells only."""
        cells = [
            WorkloadCell(p, bs, c, ws)
            for p in self.patterns
            for bs in self.block_sizes
            for c in self.concurrency
            for ws in (self.active_range or [None])
        ]
        cells = [v for cell in cells for v in self._variants(cell)]
        seen = {c.key for c in cells}
        for text in self.extra_cells:
            extra = WorkloadCell.parse(text)
            ranges = [extra.active_pct] if extra.active_pct else (self.active_range or [None])
            for ws in ranges:
                base = WorkloadCell(extra.pattern, extra.block_size, extra.concurrency, ws)
                for cell in self._variants(base, extra):
                    cell = dataclasses.replace(cell, rate_pct=extra.rate_pct)
                    if cell.key not in seen:
                        seen.add(cell.key)
                        cells.append(cell)
        for streams in self.composite:
            cells.append(WorkloadCell.parse(STREAM_JOIN.join(streams)))
        # The open-loop cells last: by then each one's closed loop has given its maximum.
        for cell in [c for c in cells if c.rate_pct is None and not c.others]:
            for pct in self.rate or []:
                rated = dataclasses.replace(cell, rate_pct=pct)
                if rated.key not in seen:
                    seen.add(rated.key)
                    cells.append(rated)
        return cells

    def _variants(
        self, cell: WorkloadCell, named: WorkloadCell | None = None
    ) -> list[WorkloadCell]:
        """``cell`` in each sync mode, distribution and data profile that applies to it (what
        ``named`` sets itself is kept)."""
        writes, random = cell.pattern.writes, cell.pattern.random
        syncs: list[str | None] = (
            [named.sync]
            if named and named.sync
            else (list(self.sync) if self.sync and writes else [None])
        )
        dists: list[Any] = (
            [named.distribution]
            if named and named.distribution
            else (list(self.random_distribution) if self.random_distribution and random else [None])
        )
        datas: list[DataProfile | None] = (
            [named.data]
            if named and named.data
            else (
                [e.profile for e in self.data_profile] if self.data_profile and writes else [None]
            )
        )
        return [
            dataclasses.replace(cell, sync=s, distribution=d, data=p)
            for s in syncs
            for d in dists
            for p in datas
        ]
