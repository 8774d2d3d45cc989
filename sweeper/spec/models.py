"""The sweep spec's models: each section of the YAML file as a typed, validated model."""

from __future__ import annotations

import hashlib
import json
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from sweeper import rank_forms
from sweeper.models import StrictModel
from sweeper.spec.acceptance import Acceptance, spec_problems
from sweeper.spec.environment import ENTRIES_MAX as ENVIRONMENT_MAX
from sweeper.spec.environment import Key as EnvironmentKey
from sweeper.spec.environment import Value as EnvironmentValue
from sweeper.spec.fields import no_duplicates
from sweeper.spec.matrix import Matrix
from sweeper.spec.warm_start import WarmStart
from sweeper.units import parse_duration
from sweeper.vocabulary import (
    CACHE_POLICIES,
    LAYOUTS,
    MEDIA,
    MULTI_RANK_LAYOUTS,
    NAME_RE,
    RAID_LEVELS,
)
from sweeper.yamlsource import YamlSource

RankList = rank_forms.RankList
StripeList = list[Annotated[int, Field(ge=4, le=16 * 1024**2)]]


class ConfigSpace(StrictModel):
    """Values to sweep per dimension.

    ``ranks`` and ``stripe_kib`` exist only for multi-rank layouts; each is either one list
    for both, or a mapping from layout to its own list (a host LVM stripe of 16 KiB and a
    pool extent of 1 GiB are different things); ``ranks`` may also be given per RAID level
    (``sweeper.rank_forms``). ``snapshots`` and ``data_reduction`` are
    optional dimensions, off unless the spec lists ``true``. Any further key is a dimension
    the platform declares (``sweeper.dimensions``), checked against its declaration with the
    platform (``sweeper.platforms.platform_problems``).
    """

    model_config = ConfigDict(extra="allow")

    raid_level: list[Literal[RAID_LEVELS]] = Field(min_length=1)  # type: ignore[valid-type]
    layout: list[Literal[LAYOUTS]] = Field(default=["single_rank"], min_length=1)  # type: ignore[valid-type]
    ranks: rank_forms.Ranks = Field(default=[4])
    stripe_kib: StripeList | dict[Literal[MULTI_RANK_LAYOUTS], StripeList] = Field(default=[1024])  # type: ignore[valid-type]
    cache_policy: list[Literal[CACHE_POLICIES]] = Field(default=["wb-ra"], min_length=1)  # type: ignore[valid-type]
    snapshots: list[bool] = Field(default=[False], min_length=1)
    data_reduction: list[bool] = Field(default=[False], min_length=1)

    @field_validator("raid_level", "layout", "cache_policy", "snapshots", "data_reduction")
    @classmethod
    def _unique(cls, v: list[Any]) -> list[Any]:
        return no_duplicates(v, "the value")

    @field_validator("ranks", mode="before")
    @classmethod
    def _rank_form(cls, v: Any) -> Any:
        if problem := rank_forms.form_problem(v):
            raise ValueError(problem)
        return v

    @field_validator("ranks", "stripe_kib")
    @classmethod
    def _per_layout(cls, v: Any, info: ValidationInfo) -> Any:
        for place, values in rank_forms.lists(v):
            where = f"{place}: " if place else ""
            if not values:
                raise ValueError(f"{where}the list is empty")
            no_duplicates(values, f"{where}the value")
        # every level and multi-rank layout the space lists (when those are valid) has values
        levels, layouts = info.data.get("raid_level"), info.data.get("layout")
        if levels and layouts:
            multi = [layout for layout in layouts if layout in MULTI_RANK_LAYOUTS]
            for entry in rank_forms.missing(v, levels, multi):
                raise ValueError(f"no values for {entry}")
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

    @property
    def dimensions(self) -> dict[str, list[Any]]:
        """The declared dimensions the space sweeps, in the spec's order, with their values."""
        return {
            k: list(v) if isinstance(v, list) else [v] for k, v in (self.model_extra or {}).items()
        }

    def values(self, dim: str, layout: str, raid_level: str | None = None) -> list[int]:
        """The ``ranks`` or ``stripe_kib`` values a multi-rank ``layout`` sweeps on
        ``raid_level`` (without one: every value any level sweeps for it)."""
        return rank_forms.values(getattr(self, dim), layout, raid_level)

    def parameter(self, dim: str, raid_level: str, layout: str) -> str:
        """The Optuna parameter that chooses ``ranks`` or ``stripe_kib`` for ``layout`` on
        ``raid_level`` (``ranks``, ``ranks_<layout>``, ``ranks_<level>[_<layout>]``)."""
        return rank_forms.parameter(dim, getattr(self, dim), layout, raid_level)


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


class StopRule(StrictModel):
    """Optimize mode: stop once every class's pick is within ``within_pct`` of the best
    configuration of the space with probability ``confidence`` (sweeper/sweep/stopping.py)."""

    within_pct: float = Field(default=3.0, gt=0, lt=50)
    confidence: float = Field(default=0.95, ge=0.5, lt=1)


def _stop_rule(v: Any) -> Any:
    """``stop: true`` is the default rule; ``stop: false`` none."""
    if v is True:
        return {}
    return None if v is False else v


#: query parameters of a database URL that hold a secret (password, sslpassword, ...)
_SECRET_QUERY_WORDS = ("password", "secret", "token")


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
    #: optimize mode: stop by evidence (every class's pick near the best, stated confidence)
    stop: Annotated[StopRule | None, BeforeValidator(_stop_rule)] = None
    #: optimize mode: a previous sweep's best configurations measured first (prior knowledge)
    warm_start: WarmStart | None = None
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

    @field_validator("warm_start")
    @classmethod
    def _warm_start_needs_optimize(
        cls, v: WarmStart | None, info: ValidationInfo
    ) -> WarmStart | None:
        # named with its line here (the sweeper found it only after the spec had loaded)
        mode = info.data.get("mode")  # absent when mode itself was refused
        if v is not None and mode is not None and mode != "optimize":
            raise ValueError("a warm start needs mode: optimize (a grid measures all)")
        return v

    @model_validator(mode="after")
    def _stop_needs_optimize(self) -> StudySettings:
        if self.stop is not None and self.mode != "optimize":
            raise ValueError(
                "stop: stopping by evidence needs mode: optimize (a grid measures all)"
            )
        return self

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
        # The spec is stored with the results and shown in reports: no secrets in it (libpq
        # also takes a password, and a client key's, as query parameters).
        secret = [k for k in url.query if any(w in k.lower() for w in _SECRET_QUERY_WORDS)]
        if url.password is not None or secret:
            where = f"its {secret[0]!r} parameter" if secret else "its user part"
            raise ValueError(
                f"the URL holds a password ({where}); give it in PGPASSWORD or ~/.pgpass, not "
                "in the spec"
            )
        try:
            url.get_dialect().import_dbapi()
        except ImportError:
            raise ValueError(
                f"the database driver of {url.drivername!r} is not installed; use "
                "postgresql:// (psycopg)"
            ) from None
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
    ("matrix", "sync", None),
    ("matrix", "random_distribution", None),
    ("matrix", "data_profile", None),
    ("study", "measure", None),
    ("study", "same_build", None),
    ("study", "stop", None),
    ("study", "warm_start", None),
]


class SweepSpec(StrictModel):
    """A whole sweep: where, what configurations, which workloads, for which classes."""

    name: str
    description: str = ""
    platform: str = "sim"
    inventory: str = Field(default="inventories/sim", min_length=1)  # "" is no folder
    platform_options: dict[str, Any] = Field(default_factory=dict)
    config_space: ConfigSpace
    matrix: Matrix
    classes: list[str] = Field(default=["redo_log", "data_file"], min_length=1)
    study: StudySettings = StudySettings()
    hardware: Hardware = Hardware()
    prices: Prices | None = None
    #: the gates the sweep must clear for hand-over (after matrix and classes: checked
    #: against them)
    acceptance: Acceptance | None = None
    #: facts raidsweep cannot gather (fabric, multipath software, HBAs), stated as text
    environment: dict[EnvironmentKey, EnvironmentValue] = Field(
        default_factory=dict, max_length=ENVIRONMENT_MAX
    )
    #: the file the spec was read from (``load_spec``), for a check made after loading to
    #: name its line as the spec's own checks do (``study.storage``: a database that cannot
    #: be reached); None for a spec made in code or read back from a sweep's record
    _source: YamlSource | None = PrivateAttr(default=None)

    @property
    def source(self) -> YamlSource | None:
        return self._source

    def read_from(self, source: YamlSource) -> SweepSpec:
        """This spec, known to have been read from ``source``."""
        self._source = source
        return self

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
        return no_duplicates(v, "the class")

    @field_validator("acceptance")
    @classmethod
    def _acceptance(cls, v: Acceptance | None, info: ValidationInfo) -> Acceptance | None:
        """The gates against the matrix and classes (validated before them)."""
        matrix = info.data.get("matrix")
        cells = None if matrix is None else [c.key for c in matrix.cells()]
        if v is not None and (problems := spec_problems(v, cells, info.data.get("classes"))):
            raise ValueError("; ".join(problems))
        return v

    def fingerprint(self) -> str:
        """Hash of what decides the runs' addresses and meaning (not name or description)."""
        data = self.model_dump(
            mode="json",
            exclude={"name", "description", "hardware", "prices", "acceptance", "environment"},
        )
        # Keys added later leave the hash of sweeps that do not use them as it was.
        for section, key, default in _LATER_KEYS:
            if data[section].get(key) == default:
                del data[section][key]
        blob = json.dumps(data, sort_keys=True).encode()
        return hashlib.sha256(blob).hexdigest()[:16]
