"""Workload classes: named sets of weighted cells with service-level limits, from YAML."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from sweeper.errors import InputError
from sweeper.units import parse_latency_ms
from sweeper.workload import WorkloadCell
from sweeper.yamlsource import load_model

CLASS_DIR = Path(__file__).parent / "classes"
LIMIT_METRIC_RE = re.compile(r"^(read|write)_lat_(mean|p50|p95|p99|p999)$")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ClassCell(_Strict):
    cell: str
    weight: float = Field(default=1.0, gt=0)

    @field_validator("cell")
    @classmethod
    def _cell(cls, v: str) -> str:
        return WorkloadCell.parse(v).key


class Limit(_Strict):
    metric: str
    max: str

    @field_validator("metric")
    @classmethod
    def _metric(cls, v: str) -> str:
        if not LIMIT_METRIC_RE.match(v):
            raise ValueError(
                f"{v!r} is not a latency metric (read|write)_lat_(mean|p50|p95|p99|p999)"
            )
        return v

    @field_validator("max")
    @classmethod
    def _max(cls, v: Any) -> str:
        parse_latency_ms(v)
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


class WorkloadClass(_Strict):
    name: str
    description: str = ""
    metric: Literal["iops", "mbps"] = "iops"
    cells: list[ClassCell] = Field(min_length=1)
    limits: list[Limit] = Field(default_factory=list)

    @property
    def cell_keys(self) -> list[str]:
        return [c.cell for c in self.cells]


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
    if path.is_absolute() or not (PROJECT_ROOT / path).exists():
        return path
    return PROJECT_ROOT / path


def resolve_class(name: str, spec_dir: Path) -> str:
    """How a spec's class entry is kept: a name, or a path relative to the project when the
    file lies inside it (so rankings load it from anywhere), else absolute."""
    path = Path(name)
    if not path.suffix:
        return name
    for base in (spec_dir, PROJECT_ROOT):
        candidate = (base / path).resolve()
        if candidate.exists():
            try:
                return str(candidate.relative_to(PROJECT_ROOT))
            except ValueError:
                return str(candidate)
    return name


def load_class(name_or_path: str | Path) -> WorkloadClass:
    return load_model(class_path(name_or_path), WorkloadClass, "a workload class")


def load_classes(names: list[str]) -> list[WorkloadClass]:
    return [load_class(n) for n in names]


def class_problems(spec: Any) -> list[tuple[list[str | int], str]]:
    """Spec problems with its ``classes``: unknown names, class files that do not load."""
    problems: list[tuple[list[str | int], str]] = []
    known = shipped_class_names()
    for i, name in enumerate(spec.classes):
        if name not in known and not Path(name).suffix:
            problems.append(
                (["classes", i], f"unknown workload class {name!r} (shipped: {', '.join(known)})")
            )
            continue
        try:
            load_class(name)
        except InputError as exc:
            problems.append((["classes", i], exc.render()))
    return problems
