"""The spec's ``acceptance:`` block: the gates a sweep must clear before the array is handed
over, each a minimum of IOPS or MB/s or a maximum of a latency percentile, for a class (its
score, or each of its cells) or for one cell; absolute (a datasheet's figure) or relative to a
baseline sweep within a tolerance. ``recommender.acceptance`` judges them by the intervals.

```yaml
acceptance:
  configuration: raid10/host_stripe/ranks4/stripe16k/wb-ra   # optional (see below)
  baseline: {sweep: old-array, tolerance_pct: 5}            # for gates written `baseline`
  gates:
    - {class: data_file, min_iops: 20000, max_latency: {read_lat_p99: 20ms}}
    - {cell: write/64k/qd1x1, min_mbps: baseline}           # ≥ the old array's − 5%
```
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, ConfigDict, Field, field_validator, model_validator

from sweeper.models import StrictModel
from sweeper.spec.names import SweepName
from sweeper.units import parse_latency_ms
from sweeper.vocabulary import NAME_RE
from sweeper.workload import WorkloadCell

#: a bound relative to the baseline sweep (its figure, within the tolerance)
BASELINE = "baseline"
#: the largest figure a gate may name (a bound beyond it is a typing slip)
MAX_FIGURE = 1e12
#: the latency percentiles a gate can bound (the store's columns ``<metric>_ms``)
LATENCY_METRICS = tuple(
    f"{direction}_lat_{p}"
    for direction in ("read", "write", "sync")
    for p in ("mean", "p50", "p95", "p99", "p999", "p9999")
)


def _figure(v: Any) -> float | str:
    """A minimum: a positive number, or ``baseline``."""
    if v == BASELINE:
        return BASELINE
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise ValueError(f"{v!r} is not a number (or {BASELINE!r})")
    if not math.isfinite(v):
        raise ValueError(f"{v!r} is not a finite number")
    if not 0 < v <= MAX_FIGURE:
        raise ValueError(f"{v!r} is not a minimum: give a number above 0 (at most {MAX_FIGURE:g})")
    return float(v)


def _latency(v: Any) -> str:
    """A maximum latency: with its unit (``5ms``, ``800us``), or ``baseline``."""
    if v == BASELINE:
        return BASELINE
    ms = parse_latency_ms(v)  # refuses a bare number, a negative one and a missing unit
    if ms <= 0:
        raise ValueError(f"{v!r} is not a maximum latency: give one above 0")
    return str(v)


Figure = Annotated[float | str, BeforeValidator(_figure)]
Latency = Annotated[str, BeforeValidator(_latency)]
Percent = Annotated[float, Field(ge=0, lt=100)]


class Baseline(StrictModel):
    """The sweep relative gates are judged against (the old array, the firmware before)."""

    sweep: SweepName
    #: its configuration (default: the class's recommended one, or its only one)
    configuration: str | None = None
    #: how far below a baseline minimum (above a baseline maximum) still passes
    tolerance_pct: Percent = 5.0


class Gate(StrictModel):
    """One gate: for a class (``class``: its score, and its cells' latency), a cell
    (``cell``), or a cell of a class's recommended configuration (both)."""

    # ``class`` is the YAML's word; the stored spec keeps it, so it reads back the same
    model_config = ConfigDict(**StrictModel.model_config, serialize_by_alias=True)

    class_name: str | None = Field(default=None, alias="class", min_length=1, max_length=64)
    cell: str | None = None
    min_iops: Figure | None = None
    min_mbps: Figure | None = None
    max_latency: dict[Literal[LATENCY_METRICS], Latency] = Field(default_factory=dict)  # type: ignore[valid-type]
    #: this gate's own tolerance against the baseline (default: the baseline's)
    tolerance_pct: Percent | None = None

    @field_validator("cell")
    @classmethod
    def _cell(cls, v: str | None) -> str | None:
        return None if v is None else WorkloadCell.parse(v).key

    @model_validator(mode="after")
    def _complete(self) -> Gate:
        if self.class_name is None and self.cell is None:
            raise ValueError("a gate names a class, a cell, or both")
        if self.min_iops is None and self.min_mbps is None and not self.max_latency:
            raise ValueError("a gate sets min_iops, min_mbps or max_latency")
        return self

    @property
    def relative(self) -> bool:
        return BASELINE in (self.min_iops, self.min_mbps, *self.max_latency.values())

    @property
    def target(self) -> str:
        parts = [f"class {self.class_name}"] if self.class_name else []
        return " · ".join([*parts, *([f"cell {self.cell}"] if self.cell else [])])


class Acceptance(StrictModel):
    """The gates, what they judge and against what."""

    #: the configuration every gate judges (default: per gate, the class's recommended
    #: configuration, or the sweep's only one)
    configuration: str | None = None
    baseline: Baseline | None = None
    #: the two-sided level of the intervals the gates are decided by
    confidence: float = Field(default=0.95, ge=0.5, lt=1)
    gates: list[Gate] = Field(min_length=1, max_length=1000)

    @model_validator(mode="after")
    def _baseline_named(self) -> Acceptance:
        for i, gate in enumerate(self.gates):
            if gate.relative and self.baseline is None:
                raise ValueError(
                    f"gates[{i}] is relative to the baseline, but the block names no "
                    "baseline sweep (baseline: {sweep: NAME, tolerance_pct: 5})"
                )
        return self


def _cell_key(cell: str) -> str:
    return cell.removesuffix("/ws100")


def matrix_problems(acceptance: Acceptance, cells: list[str]) -> list[str]:
    """Each gate's cell that is not among ``cells`` (the matrix's), by its place."""
    known = {_cell_key(c) for c in cells}
    return [
        f"gates[{i}].cell: {gate.cell!r} is not a cell the matrix measures"
        for i, gate in enumerate(acceptance.gates)
        if gate.cell is not None and _cell_key(gate.cell) not in known
    ]


def spec_problems(
    acceptance: Acceptance, cells: list[str] | None, classes: list[str] | None
) -> list[str]:
    """The gates against the spec's matrix (its ``cells``) and ``classes``, when those were
    valid: a cell the matrix does not measure, or a class the spec does not rank. A class
    named by a class file of the user's is checked against the file's name when the sweep
    is accepted."""
    problems = [] if cells is None else matrix_problems(acceptance, cells)
    if classes and all(NAME_RE.fullmatch(c) and not c.endswith(".yaml") for c in classes):
        problems += [
            f"gates[{i}].class: {gate.class_name!r} is not one of the spec's classes "
            f"({', '.join(classes)})"
            for i, gate in enumerate(acceptance.gates)
            if gate.class_name is not None and gate.class_name not in classes
        ]
    return problems
