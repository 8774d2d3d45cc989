"""Workload classes: named sets of weighted cells with service-level limits, from YAML."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from sweeper.errors import InputError
from sweeper.models import StrictModel
from sweeper.store.records import RUN_SCHEMA
from sweeper.units import parse_latency_ms
from sweeper.untrusted import text_control_problem
from sweeper.vocabulary import LIMIT_METRIC_RE, MEDIA, NAME_RE
from sweeper.workload import WorkloadCell
from sweeper.yamlsource import YamlSource, load_model

CLASS_DIR = Path(__file__).parent / "classes"
#: the latency metrics a limit can bound: those the store keeps a column of (``<metric>_ms``)
LIMIT_METRICS = frozenset(
    name.removesuffix("_ms")
    for name in RUN_SCHEMA.names
    if name.endswith("_ms") and LIMIT_METRIC_RE.fullmatch(name.removesuffix("_ms"))
)


#: the lightest and the heaviest weight a cell can have. Weights are relative: a cell counts
#: in its class's score (``recommender.scoring``: exp(Σ wᵢ·ln mᵢ / Σ wᵢ)) by its share of the
#: class's total weight. Within these bounds (symmetric around 1) the lightest cell's share is
#: at least about 1e-12, some 10,000 times double precision's resolution (2.2e-16) even
#: summed over many cells, so every cell moves the score however the weights are mixed. Far
#: below them the arithmetic fails silently: at 5e-324 (a subnormal number, one bit of
#: precision) wᵢ·ln mᵢ rounds to a few multiples of the weight, and 10,000 and 12,000 IOPS
#: scored alike; beside a heavy cell a share under 2.2e-16 is lost in the sum.
WEIGHT_MIN, WEIGHT_MAX = 1e-6, 1e6


class ClassCell(StrictModel):
    cell: str
    weight: float = Field(default=1.0, gt=0, le=WEIGHT_MAX)
    #: the cell scored in this one's place when a sweep does not measure it, said with the
    #: ranking: e.g. a plain write standing in for the same write made durable (O_DSYNC),
    #: so that a sweep whose matrix predates the sync cells still ranks the class
    stand_in: str | None = None

    @field_validator("cell", "stand_in")
    @classmethod
    def _cell(cls, v: str | None) -> str | None:
        return None if v is None else WorkloadCell.parse(v).key

    @field_validator("weight")
    @classmethod
    def _weight(cls, v: float) -> float:
        if v < WEIGHT_MIN:
            raise ValueError(
                f"{v!r} is below the lightest weight, {WEIGHT_MIN:g}: weights are relative "
                "(a cell counts by its share of the class's total weight), and from "
                f"{WEIGHT_MIN:g} to {WEIGHT_MAX:g} every cell's share stays within what the "
                "score's arithmetic can hold; scale the class's weights up"
            )
        return v


class Limit(StrictModel):
    metric: str
    max: str
    #: The cells the limit applies to (default: every cell of the class), e.g. a log-write
    #: latency bound that holds for the log cell only.
    cells: list[str] | None = Field(default=None, min_length=1)
    #: the drive media the limit holds for (default: any), e.g. a stricter target for flash
    media: Literal[MEDIA] | None = None  # type: ignore[valid-type]

    @field_validator("cells")
    @classmethod
    def _cells(cls, v: list[str] | None) -> list[str] | None:
        return None if v is None else [WorkloadCell.parse(c).key for c in v]

    @field_validator("metric")
    @classmethod
    def _metric(cls, v: str) -> str:
        if v not in LIMIT_METRICS:
            raise ValueError(
                f"{v!r} is not a latency metric the store keeps "
                f"({', '.join(sorted(LIMIT_METRICS))})"
            )
        return v

    @field_validator("max", mode="before")  # a bare number is told it lacks its unit
    @classmethod
    def _max(cls, v: Any) -> str:
        if parse_latency_ms(v) <= 0:  # no run is faster than nothing: nothing could pass
            raise ValueError(f"{v!r} would fail every run; give one above 0")
        return v

    @property
    def max_ms(self) -> float:
        return parse_latency_ms(self.max)

    @property
    def direction(self) -> str:
        return self.metric.split("_", 1)[0]

    @property
    def column(self) -> str:
        return f"{self.metric}_ms"

    def __str__(self) -> str:
        where = f" ({', '.join(self.cells)})" if self.cells else ""
        media = f" on {self.media}" if self.media else ""
        return f"{self.metric} ≤ {self.max}{where}{media}"


#: the secondary criteria a class may break a tie at the top of its ranking by, in its
#: ``tie_break`` list (``recommender.tiebreak`` says what each compares)
TIE_BREAK_CRITERIA = (
    "usable_capacity",
    "loss_risk",
    "rebuild_time",
    "cost",
    "cost_per_unit",
    "cost_per_usable_gb",
    "drives",
    "spread",
)


def _tie_break_name(name: str) -> str:
    if name not in TIE_BREAK_CRITERIA:
        raise ValueError(
            f"{name!r} is not a tie-break criterion (one of: {', '.join(TIE_BREAK_CRITERIA)})"
        )
    return name


TieBreakName = Annotated[str, AfterValidator(_tie_break_name)]

#: a class metric's unit as people write it
METRIC_UNITS = {"iops": "IOPS", "mbps": "MB/s"}


class WorkloadClass(StrictModel):
    name: str = Field(min_length=1, max_length=64)
    description: str = ""
    metric: Literal["iops", "mbps"] = "iops"
    cells: list[ClassCell] = Field(min_length=1)
    limits: list[Limit] = Field(default_factory=list)
    #: how a tie at the top is broken before the higher mean score, e.g.
    #: ``[usable_capacity, loss_risk, cost]`` (none: by the higher mean score alone)
    tie_break: list[TieBreakName] = Field(default_factory=list, max_length=len(TIE_BREAK_CRITERIA))

    @property
    def objective_name(self) -> str:
        """The class as an objective of the study: its name and unit, ``redo_log (IOPS)``."""
        return f"{self.name} ({METRIC_UNITS[self.metric]})"

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        # it names the class's ranking, objective and report rows, as a sweep's name does
        if not NAME_RE.fullmatch(v):
            raise ValueError(
                f"{v[:64]!r} is not a class name (letters, digits, '.', '_', '-'; at most 64)"
            )
        return v

    @field_validator("description")
    @classmethod
    def _description(cls, v: str) -> str:
        problem = text_control_problem(v)  # printed to the terminal and into reports
        if problem:
            raise ValueError(problem)
        return v

    @field_validator("cells")
    @classmethod
    def _cells_unique(cls, v: list[ClassCell]) -> list[ClassCell]:
        first: dict[str, int] = {}
        for i, cell in enumerate(v):
            if cell.cell in first:
                raise ValueError(
                    f"[{i}] repeats cell {cell.cell!r} of [{first[cell.cell]}] (give it one "
                    "entry with the weight of both)"
                )
            first[cell.cell] = i
        return v

    @field_validator("tie_break")
    @classmethod
    def _tie_break(cls, v: list[str]) -> list[str]:
        twice = sorted({name for i, name in enumerate(v) if name in v[:i]})
        if twice:
            raise ValueError(f"{', '.join(twice)} named twice")
        return v

    @model_validator(mode="after")
    def _limit_cells(self) -> WorkloadClass:
        mine = set(self.cell_keys)
        taken: set[str] = set()
        for i, cell in enumerate(self.cells):
            if cell.stand_in is not None and (cell.stand_in in mine or cell.stand_in in taken):
                raise ValueError(
                    f"cells[{i}].stand_in {cell.stand_in!r} is one of the class's cells or "
                    "another cell's stand-in already (one cell would then be scored twice)"
                )
            taken.add(cell.stand_in or "")
        for i, limit in enumerate(self.limits):
            for cell in limit.cells or []:
                if cell not in mine:
                    raise ValueError(
                        f"limits[{i}] names cell {cell!r}, which is not one of the class's cells"
                    )
        return self

    @property
    def cell_keys(self) -> list[str]:
        return [c.cell for c in self.cells]

    def stand_ins(self, cell_keys: list[str]) -> dict[str, str]:
        """Each of the class's cells that ``cell_keys`` (a sweep's) lack and whose stand-in
        they hold, with that stand-in."""
        measured = _matrix_keys(cell_keys)
        return {
            c.cell: c.stand_in
            for c in self.cells
            if c.cell not in measured and c.stand_in is not None and c.stand_in in measured
        }

    def for_cells(self, cell_keys: list[str]) -> WorkloadClass:
        """The class as it scores a sweep measuring ``cell_keys``: a cell the sweep lacks is
        replaced by its stand-in when the sweep measures that, in the limits too, and the
        description says so (a stand-in measures something else: the ranking must say)."""
        swap = self.stand_ins(cell_keys)
        if not swap:
            return self
        cells = [
            c.model_copy(update={"cell": swap[c.cell], "stand_in": None}) if c.cell in swap else c
            for c in self.cells
        ]
        limits = [
            lim.model_copy(update={"cells": [swap.get(c, c) for c in lim.cells]})
            if lim.cells
            else lim
            for lim in self.limits
        ]
        said = "; ".join(f"{new} stands in for {old}, not measured" for old, new in swap.items())
        return self.model_copy(
            update={"cells": cells, "limits": limits, "description": f"{self.description} ({said})"}
        )

    def for_media(self, media: str | None) -> WorkloadClass:
        """The class as it applies to drives of ``media``: limits for other media dropped
        (media-specific limits are dropped too when the media is not known)."""
        keep = [lim for lim in self.limits if lim.media is None or lim.media == media]
        return self if len(keep) == len(self.limits) else self.model_copy(update={"limits": keep})


@dataclass(frozen=True)
class ClassCatalog:
    classes: dict[str, WorkloadClass]

    def __getitem__(self, name: str) -> WorkloadClass:
        return self.classes[name]


def shipped_class_names() -> list[str]:
    return sorted(p.stem for p in CLASS_DIR.glob("*.yaml"))


PROJECT_ROOT = CLASS_DIR.parent.parent


def class_path(name_or_path: str | Path) -> Path:
    """A shipped class by name, or a class file (relative paths: to the project)."""
    path = Path(name_or_path)
    if not path.suffix:
        return CLASS_DIR / f"{name_or_path}.yaml"
    # os.path.exists: a path no file system takes (a name of more than 255 bytes, a loop of
    # links, a folder that cannot be looked into) is no file of the project; read as given,
    # its reading names the problem (``load_model``: "cannot be read: File name too long")
    if path.is_absolute() or not os.path.exists(PROJECT_ROOT / path):
        return path
    return PROJECT_ROOT / path


def resolve_class(name: str, spec_dir: Path) -> str:
    """How a spec's class entry is kept: a name, or a path relative to the project when the
    file lies inside it (so rankings load it from anywhere), else absolute."""
    path = Path(name)
    if not path.suffix:
        return name
    for base in (spec_dir, PROJECT_ROOT):
        # not resolved: a link is read as a link (a loop, or one to /dev/zero, is then
        # refused by name when the class is loaded)
        candidate = Path(os.path.abspath(base / path))
        if os.path.lexists(candidate):
            try:
                return str(candidate.relative_to(PROJECT_ROOT))
            except ValueError:
                return str(candidate)
    return name


def load_class(name_or_path: str | Path) -> WorkloadClass:
    return load_model(class_path(name_or_path), WorkloadClass, "a workload class")


def load_classes(
    names: list[str], media: str | None = None, cell_keys: list[str] | None = None
) -> list[WorkloadClass]:
    """The classes, with the limits that hold for the drives' ``media`` (hdd, flash); with
    a sweep's ``cell_keys``, each as it scores that sweep (its stand-ins in place)."""
    classes = [load_class(n).for_media(media) for n in names]
    return classes if cell_keys is None else [c.for_cells(cell_keys) for c in classes]


def unknown_class(name: str, known: list[str]) -> str | None:
    """The problem with a class given by name (no file suffix) that is not one of the
    ``known`` shipped classes; None for a shipped name or a file."""
    if name in known or Path(name).suffix:
        return None
    if "/" in name or os.path.lexists(name):  # a path, not a name: a class file has a suffix
        return (
            f"{name[:200]!r} is not a shipped class, nor a class file: a class file is named "
            f"with its suffix (.yaml); shipped: {', '.join(known)}"
        )
    return f"unknown workload class {name[:200]!r} (shipped: {', '.join(known)})"


def class_problems(spec: Any) -> list[tuple[list[str | int], str]]:
    """Spec problems with its ``classes``: unknown names, class files that do not load, two
    classes of one name (their rankings would mix), a class the matrix measures no cell of
    (every configuration would be unrankable for it after hours of array time)."""
    problems: list[tuple[list[str | int], str]] = []
    known = shipped_class_names()
    named: dict[str, int] = {}
    measured = _matrix_keys([c.key for c in spec.matrix.cells()])
    for i, name in enumerate(spec.classes):
        unknown = unknown_class(name, known)
        if unknown is not None:
            problems.append((["classes", i], unknown))
            continue
        try:
            wclass = load_class(name)
        except InputError as exc:
            problems.append((["classes", i], exc.render()))
            continue
        if wclass.name in named:
            first = named[wclass.name]
            problems.append(
                (
                    ["classes", i],
                    f"{name} is class {wclass.name!r}, as classes[{first}] "
                    f"({spec.classes[first]}) is: one ranking cannot hold two classes of one "
                    "name (rename one in its file)",
                )
            )
        named.setdefault(wclass.name, i)
        if not any(c in measured for c in wclass.for_cells(list(measured)).cell_keys):
            source = f" ({class_path(name)})" if Path(name).suffix else ""
            problems.append(
                (
                    ["classes", i],
                    f"the matrix measures none of class {wclass.name}'s cells{source} "
                    f"({', '.join(wclass.cell_keys)}): it could not be ranked; add them to "
                    "the matrix or to matrix.extra_cells",
                )
            )
    return problems


def _matrix_keys(cell_keys: list[str]) -> set[str]:
    # A class cell without an active range means the whole working set (ws100).
    return {re.sub(r"/ws100$", "", k) for k in cell_keys}


def matrix_gaps(classes: list[WorkloadClass], cell_keys: list[str]) -> list[str]:
    """Per class whose cells the matrix (``cell_keys``) lacks, one line naming them: such a
    class is ranked on the cells that exist."""
    measured = _matrix_keys(cell_keys)
    lines = []
    for wclass in classes:
        lines += [
            f"class {wclass.name}: the matrix does not measure {old}; {new} stands in for it "
            "(add it to the matrix or to matrix.extra_cells to measure what the class asks)"
            for old, new in wclass.stand_ins(cell_keys).items()
        ]
        wclass = wclass.for_cells(cell_keys)
        missing = [c for c in wclass.cell_keys if c not in measured]
        if missing:
            lines.append(
                f"class {wclass.name}: the matrix does not measure {', '.join(missing)} "
                f"(ranked on {len(wclass.cells) - len(missing)} of {len(wclass.cells)} cells; "
                "add them to the matrix or to matrix.extra_cells)"
            )
    return lines


def check_against_sweep(name_or_path: str, cell_keys: list[str]) -> WorkloadClass:
    """A class given to rank an existing sweep: every cell must be one the sweep measures."""
    wclass = load_class(name_or_path)
    measured = _matrix_keys(cell_keys)
    path = class_path(name_or_path)
    swap = wclass.stand_ins(cell_keys)
    bad = [(i, c.cell) for i, c in enumerate(wclass.cells) if c.cell not in measured | set(swap)]
    if bad:
        source = YamlSource.from_path(path)
        raise InputError(
            str(path),
            [
                f"line {source.line_of(['cells', i, 'cell'])}: cells[{i}].cell: {cell} is not "
                "a cell this sweep measures"
                for i, cell in bad
            ],
        )
    return wclass.for_cells(cell_keys)
