"""Acceptance: the spec's gates (``sweeper.spec.acceptance``) judged on a sweep, each by its
interval rather than by a single number. Pure functions over run tables.

Each gate's bound becomes one check per figure (a class's latency bound, one per class cell):

- a minimum (IOPS, MB/s; a class's score in that unit, or a cell's figure) **passes** when the
  whole interval of the mean lies at or above it, **fails** when the whole interval lies
  below it, and is **undecided** when the interval straddles it;
- a maximum latency passes when the interval lies at or below it, fails when it lies above;
- relative to the baseline, the figure is the ratio to the baseline's (Welch's interval on
  the logarithms, ``recommender.sweepstats``) and the bound is 1 − tolerance (a minimum) or
  1 + tolerance (a maximum);
- without an interval (one repetition) a check is undecided.

The verdict is **fail** when any check fails, else **undecided** when any is undecided (the
evidence does not yet show the array meets the gate: more repetitions decide it), else
**pass**. ``raidsweep accept`` exits 0, 3 and 4 for these (2 stays bad input).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from recommender.classes import METRIC_UNITS, WorkloadClass
from recommender.figures import figure as figure_text
from recommender.sweepcompare import recommended
from recommender.sweepstats import (
    Interval,
    cell_values,
    class_scores,
    figure_column,
    mean_interval,
    per_repetition,
    ratio_interval,
)
from sweeper.errors import InputError
from sweeper.spec.acceptance import BASELINE, Acceptance, Gate
from sweeper.units import format_ms, parse_latency_ms

PASS, FAIL, UNDECIDED = "pass", "fail", "undecided"
#: ``raidsweep accept``'s exit status per verdict (2 is bad input, 1 a crash)
EXIT_STATUS = {PASS: 0, FAIL: 3, UNDECIDED: 4}


class AcceptanceError(InputError):
    """The acceptance block cannot be judged on this sweep (each problem names its place)."""


@dataclass(frozen=True)
class Check:
    """One bound of one gate on one figure."""

    gate: int
    target: str
    configuration: str
    criterion: str  # "min IOPS", "max read_lat_p99"
    required: str  # "≥ 20,000 IOPS", "≥ 95% of baseline (12,345 IOPS)"
    measured: float  # the mean (absolute), or the ratio to the baseline
    lo: float
    hi: float
    n: int
    relative: bool
    unit: str
    verdict: str
    note: str = ""
    #: the bound the figure is judged against (an absolute one's figure, a relative one's
    #: ratio): the figures are written with the decimals that tell them from it
    bound: float = math.nan


@dataclass
class Verdict:
    """Every check of a sweep's gates, and the verdict they make together."""

    sweep: str
    confidence: float
    baseline: str | None = None
    checks: list[Check] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        return {v: sum(c.verdict == v for c in self.checks) for v in (PASS, FAIL, UNDECIDED)}

    @property
    def verdict(self) -> str:
        counts = self.counts
        return FAIL if counts[FAIL] else UNDECIDED if counts[UNDECIDED] else PASS

    @property
    def exit_status(self) -> int:
        return EXIT_STATUS[self.verdict]


@dataclass(frozen=True)
class SweepRuns:
    """A sweep's name and good runs."""

    name: str
    runs: pd.DataFrame


@dataclass(frozen=True)
class _Where:
    """What one check judges: its gate, its cell (None: the gate's), the configurations."""

    gate_index: int
    gate: Gate
    cell: str | None
    config: str
    base_config: str | None


#: a bound as the gate gives it: a figure, a latency with its unit, or ``baseline``
Bound = float | str


def _decide(iv: Interval, bound: float, minimum: bool) -> tuple[str, str]:
    if not iv.known:
        return UNDECIDED, "no interval (fewer than two repetitions)"
    if minimum:
        if iv.lo >= bound:
            return PASS, ""
        if iv.hi < bound:
            return FAIL, ""
    else:
        if iv.hi <= bound:
            return PASS, ""
        if iv.lo > bound:
            return FAIL, ""
    return UNDECIDED, "the interval straddles the bound: more repetitions decide it"


class _Judge:
    def __init__(
        self,
        acceptance: Acceptance,
        new: SweepRuns,
        classes: list[WorkloadClass],
        baseline: SweepRuns | None,
    ):
        self.acc, self.new, self.base = acceptance, new, baseline
        self.classes = {c.name: c for c in classes}
        self.problems: list[str] = []
        self.checks: list[Check] = []

    def configuration(
        self,
        runs: SweepRuns,
        gate: Gate,
        i: int,
        fixed: str | None,
        field: str = "acceptance.configuration",
    ) -> str | None:
        """The configuration the gate judges in ``runs``: ``fixed`` (the spec's ``field``),
        else the gate's class's recommended one, else the sweep's only one."""
        keys = sorted(set(runs.runs["config_key"]))
        where = f"acceptance.gates[{i}]"
        if fixed is not None:
            if fixed not in keys:
                self.problems.append(f"{where}: sweep {runs.name} has no configuration {fixed!r}")
                return None
            return fixed
        if gate.class_name is not None and gate.class_name in self.classes:
            return recommended(runs.runs, self.classes[gate.class_name])
        if len(keys) == 1:
            return keys[0]
        self.problems.append(
            f"{where}: sweep {runs.name} has {len(keys)} configurations; name "
            f"{field}, or the gate's class (its recommended one is judged)"
        )
        return None

    def judge(self) -> Verdict:
        acc = self.acc
        for i, gate in enumerate(acc.gates):
            if gate.class_name is not None and gate.class_name not in self.classes:
                self.problems.append(
                    f"acceptance.gates[{i}].class: {gate.class_name!r} is not one of the "
                    f"sweep's classes ({', '.join(self.classes)})"
                )
                continue
            config = self.configuration(self.new, gate, i, acc.configuration)
            base_config = None
            if gate.relative and self.base is not None:
                fixed = acc.baseline.configuration if acc.baseline else None
                field = "acceptance.baseline.configuration"
                base_config = self.configuration(self.base, gate, i, fixed, field)
            if config is not None and (base_config is not None or not gate.relative):
                self.gate(i, gate, config, base_config)
        if self.problems:
            raise AcceptanceError("acceptance", self.problems)
        base = self.base.name if self.base else None
        return Verdict(self.new.name, acc.confidence, base, self.checks)

    def gate(self, i: int, gate: Gate, config: str, base_config: str | None) -> None:
        for figure, bound in (("iops", gate.min_iops), ("mbps", gate.min_mbps)):
            if bound is not None:
                self.minimum(i, gate, figure, bound, config, base_config)
        for metric, bound in gate.max_latency.items():
            self.maximum(i, gate, metric, bound, config, base_config)

    def tolerance(self, gate: Gate) -> float:
        own = gate.tolerance_pct
        default = self.acc.baseline.tolerance_pct if self.acc.baseline else 0.0
        return (default if own is None else own) / 100

    def values(
        self,
        runs: SweepRuns,
        config: str,
        gate: Gate,
        column: str,
        cell: str | None,
        cells: list[str] | None = None,
    ) -> np.ndarray:
        """Per repetition: the gate's class score (``cell`` None: over ``cells``, by default
        the class's that were measured) or one cell's figure."""
        wide = per_repetition(runs.runs, config, column)
        if cell is not None:
            return cell_values(wide, cell)
        wclass = self.classes[str(gate.class_name)]
        keep = set(wide.columns) if cells is None else set(cells)
        return class_scores(wide, {c.cell: c.weight for c in wclass.cells if c.cell in keep})

    def class_cells(
        self, gate: Gate, figure: str, config: str, base_config: str | None
    ) -> tuple[list[str], str]:
        """The class cells a class score gate scores (those measured; against a baseline,
        those both sweeps measured, as ``compare`` scores them), and what is to be said of
        the rest: a score over fewer cells is not the class's."""
        wclass = self.classes[str(gate.class_name)]
        cells = [c.cell for c in wclass.cells]
        have = set(per_repetition(self.new.runs, config, figure).columns)
        if base_config is not None and self.base is not None:
            have &= set(per_repetition(self.base.runs, base_config, figure).columns)
        scored = [c for c in cells if c in have]
        missing = [c for c in cells if c not in have]
        if not missing:
            return scored, ""
        weight = {c.cell: c.weight for c in wclass.cells}
        lost = sum(weight[c] for c in missing)
        where = "measured by both sweeps" if base_config is not None else "measured"
        return scored, (
            f"on {len(scored)} of the class's {len(cells)} cells {where}: "
            f"{', '.join(missing)} (weight {lost:g} of {sum(weight.values()):g}) not"
        )

    def minimum(
        self, i: int, gate: Gate, figure: str, bound: Bound, config: str, base_config: str | None
    ) -> None:
        unit = METRIC_UNITS[figure]
        cells: list[str] | None = None
        partial = ""
        if gate.cell is None:
            against = base_config if bound == BASELINE else None
            cells, partial = self.class_cells(gate, figure, config, against)
        values = self.values(self.new, config, gate, figure, gate.cell, cells)
        criterion = f"min {unit}" if gate.cell else f"min {unit} (class score)"
        where = _Where(i, gate, None, config, base_config)
        self.record(
            where, criterion, values, bound, figure, minimum=True, cells=cells, partial=partial
        )

    def maximum(
        self, i: int, gate: Gate, metric: str, bound: Bound, config: str, base_config: str | None
    ) -> None:
        column = figure_column(metric)
        cells = [gate.cell] if gate.cell else self.classes[str(gate.class_name)].cell_keys
        measured = set(per_repetition(self.new.runs, config, "iops").columns)
        judged = 0
        for cell in cells:
            values = self.values(self.new, config, gate, column, cell)
            if gate.cell is None and cell not in measured:
                # a class cell not measured at all: its bound is not shown to hold
                judged += 1
                where = _Where(i, gate, cell, config, base_config)
                self.checks.append(
                    Check(
                        i,
                        f"{gate.target} · cell {cell}",
                        config,
                        f"max {metric}",
                        f"≤ {bound}",
                        math.nan,
                        math.nan,
                        math.nan,
                        0,
                        bound == BASELINE,
                        "ms",
                        UNDECIDED,
                        "not measured: the class's bound is not shown to hold there",
                    )
                )
                continue
            if len(values):
                judged += 1
                where = _Where(i, gate, cell, config, base_config)
                self.record(where, f"max {metric}", values, bound, column, minimum=False)
        if not judged:
            self.problems.append(
                f"acceptance.gates[{i}].max_latency.{metric}: {config} has no {metric} "
                f"in {', '.join(cells)} (a direction these cells do not do?)"
            )

    def record(
        self,
        where: _Where,
        criterion: str,
        values: np.ndarray,
        bound: Bound,
        column: str,
        *,
        minimum: bool,
        cells: list[str] | None = None,
        partial: str = "",
    ) -> None:
        """One check: ``values`` against ``bound``; a class score over ``cells`` (the
        baseline's too), ``partial`` saying which of the class's cells it lacks."""
        level = self.acc.confidence
        i, gate, config, base_config = where.gate_index, where.gate, where.config, where.base_config
        cell = where.cell or gate.cell
        target = gate.target if cell == gate.cell else f"{gate.target} · cell {cell}"
        unit = METRIC_UNITS.get(column, "ms")
        if not len(values):
            self.problems.append(f"acceptance.gates[{i}]: {config} has no {criterion} figures")
            return
        if bound == BASELINE:
            assert self.base is not None and base_config is not None
            base = self.values(self.base, base_config, gate, column, cell, cells)
            if not len(base):
                self.problems.append(
                    f"acceptance.gates[{i}]: baseline {self.base.name} ({base_config}) has "
                    f"no {criterion} figures to compare with"
                )
                return
            tol = self.tolerance(gate)
            limit = 1 - tol if minimum else 1 + tol
            iv = ratio_interval(base, values, level)
            sign = "≥" if minimum else "≤"
            required = (
                f"{sign} {_percent(limit)} of baseline {base_config} "
                f"({figure_text(mean_interval(base, level).value)} {unit})"
            )
            relative = True
        else:
            limit = float(bound) if minimum else parse_latency_ms(str(bound))
            iv = mean_interval(values, level)
            required = f"≥ {limit:,.6g} {unit}" if minimum else f"≤ {bound}"
            relative = False
        verdict, note = _decide(iv, limit, minimum)
        if partial:
            if relative:  # compared on the cells both have, as compare does: said
                note = "; ".join(filter(None, [f"{partial} compared", note]))
            else:  # the class's score is not known without them
                verdict = UNDECIDED
                note = f"{partial} measured: the class's score is not known without them"
        figures = (iv.value, iv.lo, iv.hi, iv.n)
        self.checks.append(
            Check(
                i,
                target,
                config,
                criterion,
                required,
                *figures,
                relative,
                unit,
                verdict,
                note,
                limit,
            )
        )


def judge(
    acceptance: Acceptance,
    new: SweepRuns,
    classes: list[WorkloadClass],
    baseline: SweepRuns | None = None,
) -> Verdict:
    """Every gate of ``acceptance`` on ``new`` (``baseline`` for the relative ones); raises
    AcceptanceError naming each gate that cannot be judged (an unknown class, a configuration
    missing, a figure the cells lack)."""
    if any(g.relative for g in acceptance.gates) and baseline is None:
        raise AcceptanceError("acceptance", ["acceptance.baseline: no baseline sweep given"])
    return _Judge(acceptance, new, classes, baseline).judge()


def _percent(share: float) -> str:
    """A tolerance's bound as a percentage with the decimals it has (97.5%, 95%)."""
    return f"{100 * share:.6g}%"


def _decimals_apart(check: Check) -> int:
    """Decimals that tell the measured mean from the bound it is judged against (3,007.5
    against 3,007.6, not 3,008 against 3,007.6), none where whole figures already do: at
    most four more than the usual (none from 100 up; 0.1% for a share)."""
    if math.isnan(check.bound) or math.isnan(check.measured) or check.measured == check.bound:
        return 0
    scale = 100.0 if check.relative else 1.0
    x, b = scale * check.measured, scale * check.bound
    usual = 1 if check.relative else 0
    for d in range(usual, usual + 5):
        if f"{x:.{d}f}" != f"{b:.{d}f}":
            return d
    return usual + 4


def measured_text(check: Check) -> str:
    """The figure with its interval: ``12,345 (12,100–12,590) IOPS`` or ``97% (95–99%)``."""

    decimals = _decimals_apart(check)

    def fmt(x: float) -> str:
        if math.isnan(x):
            return "–"
        if check.relative:
            return f"{100 * x:.{max(1, decimals)}f}%"
        if check.unit == "ms" and not decimals:
            return format_ms(x)  # as every other surface writes a latency
        return f"{x:,.{decimals}f}" if x >= 100 or decimals else f"{x:.3g}"

    unit = "of baseline" if check.relative else check.unit
    return f"{fmt(check.measured)} ({fmt(check.lo)} … {fmt(check.hi)}) {unit}"
