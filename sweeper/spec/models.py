"""The sweep spec: a YAML file validated into typed models before anything runs."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    Field,
    PlainSerializer,
    ValidationError,
    field_validator,
    model_validator,
)

from recommender.classes import class_problems, resolve_class
from sweeper.configuration import Configuration, in_space
from sweeper.errors import InputError, SpecError
from sweeper.inventory import inventory_problems, platform_inventory_problems
from sweeper.lab import Lab
from sweeper.models import StrictModel
from sweeper.platforms import platform_problems
from sweeper.units import format_duration, parse_duration, parse_latency_ms, parse_size
from sweeper.untrusted import control_problem, strings
from sweeper.vocabulary import (
    CACHE_POLICIES,
    LAYOUTS,
    MEDIA,
    MULTI_RANK_COLUMNS,
    MULTI_RANK_LAYOUTS,
    NAME_RE,
    RAID_LEVELS,
)
from sweeper.workload import ENGINES, Concurrency, Pattern, WorkloadCell
from sweeper.yamlsource import YamlSource, format_loc, pydantic_problems

PROJECT_ROOT = Path(__file__).resolve().parent.parent.parent


def _size(v: Any) -> int:
    return parse_size(v)


def _duration(v: Any) -> float:
    return parse_duration(v)


def _pattern(v: Any) -> Pattern:
    if isinstance(v, Pattern):
        return v
    if not isinstance(v, str):
        raise ValueError(f"{v!r} is not a pattern")
    return Pattern.parse(v)


def _concurrency(v: Any) -> Concurrency:
    if isinstance(v, Concurrency):
        return v
    if isinstance(v, dict):
        unknown = set(v) - {"iodepth", "jobs"}
        if unknown or not {"iodepth", "jobs"} <= set(v):
            raise ValueError("write a concurrency as {iodepth: N, jobs: M} or 'NxM'")
        return Concurrency.parse(f"{v['iodepth']}x{v['jobs']}")
    if not isinstance(v, str):
        raise ValueError(f"{v!r} is not a concurrency (write iodepth x jobs, e.g. 1x20)")
    return Concurrency.parse(v)


Size = Annotated[int, BeforeValidator(_size)]
Duration = Annotated[float, BeforeValidator(_duration)]
PatternField = Annotated[Pattern, BeforeValidator(_pattern), PlainSerializer(lambda p: p.name)]
ConcurrencyField = Annotated[
    Concurrency, BeforeValidator(_concurrency), PlainSerializer(lambda c: c.name)
]


def _no_duplicates(values: list[Any], what: str) -> list[Any]:
    seen: set[Any] = set()
    for i, v in enumerate(values):
        if v in seen:
            raise ValueError(f"[{i}] repeats {what} {getattr(v, 'name', v)!r}")
        seen.add(v)
    return values


RankList = list[Annotated[int, Field(ge=2, le=64)]]
StripeList = list[Annotated[int, Field(ge=4, le=16 * 1024**2)]]


class ConfigSpace(StrictModel):
    """Values to sweep per dimension.

    ``ranks`` and ``stripe_kib`` exist only for multi-rank layouts; each is either one list
    for both, or a mapping from layout to its own list (a host LVM stripe of 16 KiB and a
    pool extent of 1 GiB are different things). ``snapshots`` and ``data_reduction`` are
    optional dimensions, off unless the spec lists ``true``.
    """

    raid_level: list[Literal[RAID_LEVELS]] = Field(min_length=1)  # type: ignore[valid-type]
    layout: list[Literal[LAYOUTS]] = Field(default=["single_rank"], min_length=1)  # type: ignore[valid-type]
    ranks: RankList | dict[Literal[MULTI_RANK_LAYOUTS], RankList] = Field(default=[4])  # type: ignore[valid-type]
    stripe_kib: StripeList | dict[Literal[MULTI_RANK_LAYOUTS], StripeList] = Field(default=[1024])  # type: ignore[valid-type]
    cache_policy: list[Literal[CACHE_POLICIES]] = Field(default=["wb-ra"], min_length=1)  # type: ignore[valid-type]
    snapshots: list[bool] = Field(default=[False], min_length=1)
    data_reduction: list[bool] = Field(default=[False], min_length=1)

    @field_validator("raid_level", "layout", "cache_policy", "snapshots", "data_reduction")
    @classmethod
    def _unique(cls, v: list[Any]) -> list[Any]:
        return _no_duplicates(v, "the value")

    @field_validator("ranks", "stripe_kib")
    @classmethod
    def _per_layout(cls, v: Any) -> Any:
        lists = v.items() if isinstance(v, dict) else [(None, v)]
        for layout, values in lists:
            where = f"{layout}: " if layout else ""
            if not values:
                raise ValueError(f"{where}the list is empty")
            _no_duplicates(values, f"{where}the value")
        return v

    @field_validator("stripe_kib")
    @classmethod
    def _power_of_two(cls, v: Any) -> Any:
        lists = v.items() if isinstance(v, dict) else [(None, v)]
        for layout, values in lists:
            for i, s in enumerate(values):
                if s & (s - 1):
                    where = f"{layout}" if layout else ""
                    raise ValueError(f"{where}[{i}] {s} KiB is not a power of two")
        return v

    @model_validator(mode="after")
    def _layouts_named(self) -> ConfigSpace:
        for dim in MULTI_RANK_COLUMNS:
            value = getattr(self, dim)
            if isinstance(value, dict):
                for layout in self.layout:
                    if layout in MULTI_RANK_LAYOUTS and layout not in value:
                        raise ValueError(f"{dim} has no values for layout {layout}")
        return self

    def values(self, dim: str, layout: str) -> list[int]:
        """The ``ranks`` or ``stripe_kib`` values a multi-rank ``layout`` sweeps."""
        value = getattr(self, dim)
        return list(value[layout]) if isinstance(value, dict) else list(value)


class SteadyStateRule(StrictModel):
    """SNIA PTS steady state, judged over the last ``window`` rounds of each run.

    ``round`` is the length of one round; by default the measurement interval is cut into
    twice ``window`` rounds (a 300 s run: 30 s rounds, the last 150 s judged).
    """

    round: Duration | None = None
    window: int = Field(default=5, ge=2, le=100)
    max_range_pct: float = Field(default=20.0, gt=0, le=100)
    max_slope_pct: float = Field(default=10.0, gt=0, le=100)

    @field_validator("round")
    @classmethod
    def _whole_seconds(cls, v: float | None) -> float | None:
        if v is not None and (v < 1 or v != int(v)):
            raise ValueError(f"{format_duration(v)} is not a whole number of seconds (>= 1s)")
        return v

    def round_s(self, runtime_s: float) -> int:
        return int(self.round) if self.round else max(1, int(runtime_s // (2 * self.window)))


class DynamicRepetitions(StrictModel):
    """Repeat a cell beyond ``repetitions`` while its IOPS vary by more than ``cv_pct``."""

    cv_pct: float = Field(default=3.0, gt=0, le=100)
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

    @field_validator("extra_cells")
    @classmethod
    def _extra_cells(cls, v: list[str]) -> list[str]:
        keys = []
        for i, text in enumerate(v):
            try:
                cell = WorkloadCell.parse(text)
            except ValueError as exc:
                raise ValueError(f"[{i}] {exc}") from None
            if cell.block_size % 512:
                raise ValueError(f"[{i}] {cell.block_size} bytes is not a multiple of 512")
            keys.append(cell.key)
        return _no_duplicates(keys, "the cell")

    @field_validator("patterns", "concurrency", "active_range")
    @classmethod
    def _unique(cls, v: list[Any] | None) -> list[Any] | None:
        return None if v is None else _no_duplicates(v, "the entry")

    @field_validator("block_sizes")
    @classmethod
    def _block_sizes(cls, v: list[int]) -> list[int]:
        for i, bs in enumerate(v):
            if bs % 512:
                raise ValueError(f"[{i}] {bs} bytes is not a multiple of 512 (direct I/O)")
            if bs > 64 * 1024**2:
                raise ValueError(f"[{i}] {bs} bytes is larger than 64 MiB")
        return _no_duplicates(v, "the block size")

    @field_validator("runtime")
    @classmethod
    def _runtime(cls, v: float) -> float:
        if not 1 <= v <= 7 * 86400:
            raise ValueError(f"{format_duration(v)} is outside 1s..7d")
        return v

    @field_validator("ramp")
    @classmethod
    def _ramp(cls, v: float) -> float:
        if v > 86400:
            raise ValueError(f"{format_duration(v)} is longer than a day")
        return v

    @model_validator(mode="after")
    def _cap_above_minimum(self) -> Matrix:
        dyn = self.dynamic_repetitions
        if dyn is not None and dyn.max < self.repetitions:
            raise ValueError(
                f"dynamic_repetitions.max ({dyn.max}) is below repetitions ({self.repetitions})"
            )
        return self

    @model_validator(mode="after")
    def _drift_cell_measured(self) -> Matrix:
        if self.drift is not None and self.drift.cell not in {c.key for c in self.cells()}:
            raise ValueError(f"drift.cell {self.drift.cell!r} is not a cell of this matrix")
        return self

    def repetitions_of(self, cell: WorkloadCell) -> int:
        """The fixed repetitions of ``cell``: more for the drift cell."""
        if self.drift is not None and cell.key == self.drift.cell:
            return max(self.repetitions, self.drift.repetitions)
        return self.repetitions

    def cells(self) -> list[WorkloadCell]:
        """The cross product, then the extra cells it lacks (each in every active range)."""
        cells = [
            WorkloadCell(p, bs, c, ws)
            for p in self.patterns
            for bs in self.block_sizes
            for c in self.concurrency
            for ws in (self.active_range or [None])
        ]
        seen = {c.key for c in cells}
        for text in self.extra_cells:
            extra = WorkloadCell.parse(text)
            ranges = [extra.active_pct] if extra.active_pct else (self.active_range or [None])
            for ws in ranges:
                cell = WorkloadCell(extra.pattern, extra.block_size, extra.concurrency, ws)
                if cell.key not in seen:
                    seen.add(cell.key)
                    cells.append(cell)
        return cells


class Budget(StrictModel):
    configurations: int | None = Field(default=None, ge=1)
    array_time_s: float | None = Field(default=None, gt=0, le=366 * 86400)


def _budget(v: Any) -> Any:
    if v is None or isinstance(v, dict | Budget):
        return v
    if isinstance(v, bool):
        raise ValueError(f"{v!r} is not a budget")
    if isinstance(v, int):
        return {"configurations": v}
    if isinstance(v, str):
        try:
            return {"array_time_s": parse_duration(v)}
        except ValueError:
            raise ValueError(
                f"{v!r} is not a budget (a number of configurations, or array time like 12h)"
            ) from None
    raise ValueError(f"{v!r} is not a budget")


class StudySettings(StrictModel):
    mode: Literal["grid", "optimize"] = "grid"
    budget: Annotated[Budget | None, BeforeValidator(_budget)] = None
    seed: int = Field(default=0, ge=0, le=2**32 - 1)
    seed_configurations: list[str] = Field(default_factory=list)
    #: optimize mode's sampler: multivariate TPE, or random search (a baseline to compare)
    sampler: Literal["tpe", "random"] = "tpe"
    #: stop a configuration once it cannot be best for any class (default: in optimize mode)
    prune: bool | None = None
    #: which cells each configuration gets: every cell of the matrix, or only the cells the
    #: classes score (what decides; default in optimize mode, where array time is the budget)
    measure: Literal["all", "classes"] | None = None
    #: optimize mode: up to this many configurations on one RAID build (level, layout, ranks)
    #: while each is a contender for a class, before a format moves the search on
    same_build: int | None = Field(default=None, ge=1, le=64)
    #: where the Optuna study lives: a journal file beside the results (default), or a
    #: PostgreSQL database that several sweepers share (postgresql://user@host:port/db)
    storage: str | None = None

    @property
    def pruning(self) -> bool:
        return self.mode == "optimize" if self.prune is None else self.prune

    @property
    def per_build(self) -> int:
        return (3 if self.mode == "optimize" else 1) if self.same_build is None else self.same_build

    @property
    def class_cells_only(self) -> bool:
        if self.measure is None:
            return self.mode == "optimize"
        return self.measure == "classes"

    @field_validator("storage")
    @classmethod
    def _storage(cls, v: str | None) -> str | None:
        if v is None:
            return v
        from sqlalchemy.engine import make_url
        from sqlalchemy.exc import ArgumentError

        try:
            url = make_url(v)
        except ArgumentError:
            raise ValueError(f"{v!r} is not a database URL (postgresql://user@host/db)") from None
        if url.get_backend_name() != "postgresql":
            raise ValueError(f"{url.get_backend_name()!r} storage is not supported: postgresql")
        if url.password is not None:
            # The spec is stored with the results and shown in reports: no secrets in it.
            raise ValueError(
                "the URL holds a password; give it in PGPASSWORD or ~/.pgpass, not in the spec"
            )
        return v


class GroupFacts(StrictModel):
    data: int = Field(gt=0)
    redundancy: int = Field(ge=0)


class Hardware(StrictModel):
    """Facts of the drives for the trade-offs (capacity, rebuild exposure); each given here
    overrides what the platform knows (the simulated array knows them all)."""

    media: Literal[MEDIA] | None = None  # type: ignore[valid-type]
    drive_gb: float | None = Field(default=None, gt=0, le=1e6)
    #: per RAID level, data and redundancy drives of one rank (RAID group)
    raid_groups: dict[Literal[RAID_LEVELS], GroupFacts] = Field(default_factory=dict)  # type: ignore[valid-type]
    rebuild_mib_s: float | None = Field(default=None, gt=0, le=1e7)
    #: annualised failure rate of one drive, percent (for the data-loss risk of rebuilds)
    afr_pct: float = Field(default=1.0, gt=0, le=100)


class Prices(StrictModel):
    """List prices for cost per IOPS and per usable GB (as audited benchmarks report)."""

    #: a drive's price: zero would make every configuration's cost per IOPS zero
    per_drive: float = Field(gt=0, le=1e9)
    fixed: float = Field(default=0.0, ge=0, le=1e15)
    currency: str = Field(default="USD", pattern=r"^[A-Za-z€$£¥]{1,8}$")


_LATER_KEYS = [
    ("matrix", "extra_cells", []),
    ("study", "measure", None),
    ("study", "same_build", None),
]


class SweepSpec(StrictModel):
    """A whole sweep: where, what configurations, which workloads, for which classes."""

    name: str
    description: str = ""
    platform: str = "sim"
    inventory: str = "inventories/sim"
    platform_options: dict[str, Any] = Field(default_factory=dict)
    config_space: ConfigSpace
    matrix: Matrix
    classes: list[str] = Field(default=["redo_log", "data_file"], min_length=1)
    study: StudySettings = StudySettings()
    hardware: Hardware = Hardware()
    prices: Prices | None = None

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not NAME_RE.fullmatch(v):
            raise ValueError(
                f"{v!r} is not a sweep name (letters, digits, '.', '_', '-'; at most 64)"
            )
        return v

    @field_validator("classes")
    @classmethod
    def _classes_unique(cls, v: list[str]) -> list[str]:
        return _no_duplicates(v, "the class")

    def fingerprint(self) -> str:
        """Hash of what decides the runs' addresses and meaning (not name or description)."""
        data = self.model_dump(mode="json", exclude={"name", "description", "hardware", "prices"})
        # Keys added later leave the hash of sweeps that do not use them as it was.
        for section, key, default in _LATER_KEYS:
            if data[section].get(key) == default:
                del data[section][key]
        blob = json.dumps(data, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


#: the one field whose text may span lines (a newline or tab anywhere else is refused)
_FREE_TEXT = (["description"],)


def seed_problems(spec: SweepSpec) -> list[tuple[list[str | int], str]]:
    """Each of ``study.seed_configurations`` must be a configuration key of the config space
    (a bad one once left the study broken until its folder was deleted)."""
    problems: list[tuple[list[str | int], str]] = []
    seen: dict[str, int] = {}
    for i, key in enumerate(spec.study.seed_configurations):
        loc: list[str | int] = ["study", "seed_configurations", i]
        try:
            config = Configuration.from_key(key)
        except ValueError as exc:
            message = str(exc) if repr(key) in str(exc) else f"{key!r}: {exc}"
            problems.append((loc, message))
            continue
        if not in_space(config, spec.config_space):
            problems.append((loc, f"{key!r} is not a configuration of config_space"))
        elif config.key in seen:
            problems.append((loc, f"{key!r} repeats seed_configurations[{seen[config.key]}]"))
        seen.setdefault(config.key, i)
    return problems


def _control_problems(source: YamlSource) -> list[tuple[list[str | int], str]]:
    """A control character in a name, path, device, host or option value could start a new
    line of a job file or a command: refused everywhere but the description."""
    return [
        (loc, problem)
        for loc, text in strings(source.data)
        if loc not in _FREE_TEXT and (problem := control_problem(text))
    ]


def load_spec(path: Path | str) -> tuple[SweepSpec, Path]:
    """Validate a spec file; returns the spec and the resolved inventory path.

    Every problem is collected and raised together as a SpecError naming its place.
    """
    try:
        source = YamlSource.from_path(path)
    except InputError as exc:
        raise SpecError(exc.source, exc.problems) from None
    if not isinstance(source.data, dict):
        kind = type(source.data).__name__ if source.data is not None else "empty"
        raise SpecError(source.name, [f"line 1: the spec must be a mapping, not {kind}"])
    # Every user string is data: template syntax anywhere (keys too, every section) and
    # control characters outside the description are refused before the models see them.
    control = _control_problems(source)
    problems = source.template_problems() + [
        f"line {source.line_of(loc)}: {format_loc(loc)}: {msg}"
        for loc, msg in control
        if loc[0] != "platform_options"  # those: after the platform's own, more precise checks
    ]
    try:
        spec = SweepSpec.model_validate(source.data)
    except ValidationError as exc:
        problems += pydantic_problems(exc, source)
    except RecursionError:
        problems.append("document: nested too deeply to validate")
    if problems:
        raise SpecError(source.name, problems)

    inventory = resolve_inventory(spec.inventory, Path(path).parent)
    if inventory is None:
        line = source.line_of(["inventory"])
        missing = (
            "is the lab VM's, and the lab is not running (start it: raidsweep lab up)"
            if spec.inventory == LAB_INVENTORY
            else "does not exist"
        )
        problems.append(f"line {line}: inventory: {spec.inventory!r} {missing}")
    else:
        line = source.line_of(["inventory"])
        found = inventory_problems(inventory) or platform_inventory_problems(
            inventory, spec.platform
        )
        problems += [f"line {line}: inventory: {p}" for p in found]

    # Class files are named relative to the spec, like its inventory.
    spec_dir = Path(path).resolve().parent
    spec = spec.model_copy(update={"classes": [resolve_class(c, spec_dir) for c in spec.classes]})

    found = platform_problems(spec) + class_problems(spec) + seed_problems(spec)
    named = {tuple(loc) for loc, _ in found}
    found += [(loc, msg) for loc, msg in control if tuple(loc) not in named]
    for loc, msg in found:
        line = source.line_of(loc)
        problems.append(f"line {line}: {format_loc(loc)}: {msg}")
    if problems:
        raise SpecError(source.name, problems)
    assert inventory is not None
    return spec, inventory


#: ``inventory: lab`` names the inventory ``raidsweep lab up`` wrote for the lab VM
LAB_INVENTORY = "lab"


def resolve_inventory(text: str, spec_dir: Path) -> Path | None:
    """An inventory path is taken relative to the spec's folder, then to the project."""
    candidate = Path(text)
    if text == LAB_INVENTORY and not (spec_dir / candidate).exists():
        lab = Lab().inventory_path
        return lab if lab.exists() else None
    # lexists: a link that loops or leads to a FIFO is taken, and refused by name when read
    if candidate.is_absolute():
        return candidate if os.path.lexists(candidate) else None
    for base in (spec_dir, PROJECT_ROOT):
        p = Path(os.path.abspath(base / candidate))
        if os.path.lexists(p):
            return p
    return None
