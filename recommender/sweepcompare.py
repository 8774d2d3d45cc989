"""Two sweeps compared (the new array against the old, after a firmware update against
before, a rehearsal against the simulated array): per workload class and per cell, B's change
against A with its interval, and whether it is significantly better or worse.

Configurations are paired three ways: the ones chosen (``pairs``), else every configuration
measured in both sweeps under one key, and per class the configuration each sweep recommends
(what the new array offers against what the old one did). A class is scored on the cells both
configurations have, so the two scores are of the same thing; a cell on the figures both
measured. The intervals and the verdict are ``recommender.sweepstats``'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from recommender.classes import METRIC_UNITS, WorkloadClass
from recommender.figures import figure as written_figure
from recommender.figures import score_decimals
from recommender.scoring import rank, score_class
from recommender.sweepstats import (
    HIGHER_IS_BETTER,
    Figures,
    Interval,
    change_verdict,
    class_scores,
    figure_column,
    mean_interval,
    ratio_interval,
)

#: the figures compared per cell: throughput, and the p99 latency of each direction
CELL_FIGURES = ("iops", "mbps", "read_lat_p99", "write_lat_p99")
#: each figure as a table shows it, with its unit
FIGURE_LABELS = {
    "iops": "IOPS",
    "mbps": "MB/s",
    "read_lat_p99": "p99 read ms",
    "write_lat_p99": "p99 write ms",
}
#: how the figures and the change are computed, under every comparison shown
CHANGE_NOTE = (
    "change = B / A − 1 of the geometric means over the repetitions, with its 95% Welch "
    "interval on the logarithms; A and B are arithmetic means (as recommend gives them), so "
    "where repetitions spread widely B / A of the figures shown is not the change; "
    "better/worse: the interval excludes no change (for latency, lower is better); "
    "unknown: fewer than two repetitions on a side"
)
#: how a pair of configurations came to be compared
SAME, RECOMMENDED, CHOSEN = "same configuration", "recommended", "chosen"

CLASS_COLUMNS = [
    "class",
    "unit",
    "pairing",
    "config_a",
    "config_b",
    "cells",
    "a",
    "a_lo",
    "a_hi",
    "a_n",
    "b",
    "b_lo",
    "b_hi",
    "b_n",
    "change_pct",
    "change_lo_pct",
    "change_hi_pct",
    "verdict",
]
CELL_COLUMNS = [
    "config_a",
    "config_b",
    "cell",
    "figure",
    "a",
    "a_n",
    "b",
    "b_n",
    "change_pct",
    "change_lo_pct",
    "change_hi_pct",
    "verdict",
]


@dataclass(frozen=True)
class Pairing:
    config_a: str
    config_b: str
    why: str
    #: the class a ``recommended`` pairing belongs to (None: every class)
    wclass: str | None = None


@dataclass
class SweepComparison:
    """Per class and per cell, B against A."""

    level: float
    pairings: list[Pairing] = field(default_factory=list)
    classes: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=CLASS_COLUMNS))
    cells: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=CELL_COLUMNS))


def _pct(x: float) -> float:
    return 100 * (x - 1)


def _change(ratio: Interval) -> dict[str, float]:
    return {
        "change_pct": _pct(ratio.value),
        "change_lo_pct": _pct(ratio.lo),
        "change_hi_pct": _pct(ratio.hi),
    }


def recommended(runs: pd.DataFrame, wclass: WorkloadClass) -> str | None:
    """The configuration the sweep recommends for ``wclass`` (the first of its ranking)."""
    ranked = rank(score_class(runs, wclass))
    return None if ranked.empty else str(ranked["config_key"].iloc[0])


def default_pairings(
    runs_a: pd.DataFrame, runs_b: pd.DataFrame, classes: list[WorkloadClass]
) -> list[Pairing]:
    """Each class's recommended configurations, then every configuration both sweeps have."""
    out = []
    for wclass in classes:
        a, b = recommended(runs_a, wclass), recommended(runs_b, wclass)
        if a is not None and b is not None:
            out.append(Pairing(a, b, RECOMMENDED, wclass.name))
    common = sorted(set(runs_a["config_key"]) & set(runs_b["config_key"]))
    return out + [Pairing(k, k, SAME) for k in common]


def compare_sweeps(
    runs_a: pd.DataFrame,
    runs_b: pd.DataFrame,
    classes: list[WorkloadClass],
    pairings: list[Pairing] | None = None,
    level: float = 0.95,
) -> SweepComparison:
    """B against A, per class (each pairing that applies to it) and per cell (each pair of
    configurations once)."""
    pairings = default_pairings(runs_a, runs_b, classes) if pairings is None else pairings
    out = SweepComparison(level, pairings)
    figures_a, figures_b = Figures(runs_a), Figures(runs_b)
    class_rows, cell_rows = [], []
    for wclass in classes:
        for p in pairings:
            if p.wclass in (None, wclass.name):
                row = _class_row(figures_a, figures_b, wclass, p, level)
                if row is not None:
                    class_rows.append(row)
    seen = set()
    for p in pairings:
        if (p.config_a, p.config_b) not in seen:
            seen.add((p.config_a, p.config_b))
            cell_rows += _cell_rows(figures_a, figures_b, p, level)
    if class_rows:
        # class_cells: how many cells the class has (``cells``: how many both measured)
        out.classes = pd.DataFrame(class_rows, columns=[*CLASS_COLUMNS, "class_cells"])
    if cell_rows:
        out.cells = pd.DataFrame(cell_rows, columns=CELL_COLUMNS)
    return out


def _class_row(
    figures_a: Figures, figures_b: Figures, wclass: WorkloadClass, p: Pairing, level: float
) -> dict[str, object] | None:
    wide_a = figures_a.wide(p.config_a, wclass.metric)
    wide_b = figures_b.wide(p.config_b, wclass.metric)
    both = set(wide_a.columns) & set(wide_b.columns)
    weights = {c.cell: c.weight for c in wclass.cells if c.cell in both}
    if not weights:
        return None
    a, b = class_scores(wide_a, weights), class_scores(wide_b, weights)
    ia, ib = mean_interval(a, level), mean_interval(b, level)
    ratio = ratio_interval(a, b, level)
    return {
        "class": wclass.name,
        "unit": METRIC_UNITS[wclass.metric],
        "pairing": f"{p.why} for {p.wclass}" if p.wclass else p.why,
        "config_a": p.config_a,
        "config_b": p.config_b,
        "cells": len(weights),
        "class_cells": len(wclass.cells),
        "a": ia.value,
        "a_lo": ia.lo,
        "a_hi": ia.hi,
        "a_n": ia.n,
        "b": ib.value,
        "b_lo": ib.lo,
        "b_hi": ib.hi,
        "b_n": ib.n,
        **_change(ratio),
        "verdict": change_verdict(ratio, True),
    }


def _cell_rows(
    figures_a: Figures, figures_b: Figures, p: Pairing, level: float
) -> list[dict[str, object]]:
    rows = []
    for figure in CELL_FIGURES:
        # a cell without the figure (a read latency of writes) is left out of ``cells``
        cells_a = figures_a.cells(p.config_a, figure_column(figure))
        cells_b = figures_b.cells(p.config_b, figure_column(figure))
        for cell in sorted(set(cells_a) & set(cells_b)):
            a, b = cells_a[cell], cells_b[cell]
            ratio = ratio_interval(a, b, level)
            rows.append(
                {
                    "config_a": p.config_a,
                    "config_b": p.config_b,
                    "cell": cell,
                    "figure": figure,
                    "a": float(a.mean()),
                    "a_n": len(a),
                    "b": float(b.mean()),
                    "b_n": len(b),
                    **_change(ratio),
                    "verdict": change_verdict(ratio, HIGHER_IS_BETTER.get(figure, False)),
                }
            )
    return rows


#: the JSON document's schema name (fields are only added within a version)
COMPARE_SCHEMA = "raidsweep.compare/1"


def _records(frame: pd.DataFrame) -> list[dict[str, object]]:
    """Rows as JSON objects, a figure that does not exist as null."""
    return [
        {k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
        for row in frame.to_dict("records")
    ]


def compare_document(comparison: SweepComparison, a: str, b: str) -> dict[str, object]:
    """``raidsweep compare --json``: every class row and cell row, B against A; changes in
    percent of A with their interval's bounds."""
    return {
        "schema": COMPARE_SCHEMA,
        "a": a,
        "b": b,
        "confidence": comparison.level,
        "pairings": [
            {"config_a": p.config_a, "config_b": p.config_b, "why": p.why, "class": p.wclass}
            for p in comparison.pairings
        ],
        "classes": _records(comparison.classes),
        "cells": _records(comparison.cells),
    }


# the comparison as words: one spelling for the CLI and the app ------------------------------
def spell_figure(x: float) -> str:
    """A compared figure: thousands grouped from 100 up, else three digits; – for none."""
    if x != x:
        return "–"
    return f"{x:,.0f}" if abs(x) >= 100 else f"{x:.3g}"


def spell_pct(x: float) -> str:
    """A change in %, signed, thousands grouped (+19,174); one that rounds to nothing reads
    +0.0, never -0.0."""
    return f"{round(x) + 0.0:+,.0f}" if abs(x) >= 100 else f"{round(x, 1) + 0.0:+.1f}"


def spell_scores(
    a: tuple[float, float, float], b: tuple[float, float, float]
) -> tuple[str, str, str, str]:
    """A class's score in A and in B (each ``(score, lo, hi)``), alone and with its 95%
    interval, every figure in the class's one precision as its ranking writes its scores
    (``score_decimals`` of the six: ``569 (548 … 590)`` beside ``573 (541 … 606)``, never
    ``569 (548.1 … 589.9)``; ``45.7 (44.1 … 47.2)``)."""
    spec = f",.{score_decimals([*a, *b])}f"

    def one(x: float) -> str:
        return "–" if x != x else written_figure(x, spec)

    def with_interval(x: float, lo: float, hi: float) -> str:
        return one(x) if lo != lo else f"{one(x)} ({one(lo)} … {one(hi)})"

    return one(a[0]), one(b[0]), with_interval(*a), with_interval(*b)


def spell_change(change: float, lo: float, hi: float) -> str:
    """The change in % with its 95% interval, or why it has none."""
    if lo != lo:
        return f"{spell_pct(change)} (no interval)"
    return f"{spell_pct(change)} ({spell_pct(lo)} … {spell_pct(hi)})"


#: why a comparison shows nothing
NOTHING_IN_COMMON = "the two sweeps have no configuration pair with cells in common"


#: the verdicts as the app's narrow verdict column writes them (the CLI's words otherwise)
SHORT_VERDICTS = {"no significant change": "n.s."}
#: before a configuration that both sweeps recommend for the row's class
RECOMMENDED_MARK = "★ "


def pair_label(config_a: str, config_b: str) -> str:
    """A pair of configurations in one column: the key when both sweeps measured the same
    one, else A's → B's."""
    return config_a if config_a == config_b else f"{config_a} → {config_b}"


def _reasons(pairings: list[str]) -> str:
    """The reasons one pair was compared for a class, each once, in the order found."""
    return "; ".join(dict.fromkeys(pairings))


def class_label(r: Any) -> str:
    """A class row's class and unit, and where the score is over fewer of the class's cells
    than it has (those both sweeps measured), how many: ``data_file (IOPS, on 2 of 3 cells)``
    — not the score ``recommend`` gives for it."""
    of = getattr(r, "class_cells", None)
    part = f", on {r.cells} of {of} cells" if of is not None and r.cells < of else ""
    return f"{r[1]} ({r.unit}{part})"


def class_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per class and pair of configurations, as the CLI words it: the class, the pair (★
    before a sweep's recommendation), A and B, the change in % with its interval, the
    verdict; then what a narrow window leaves out (``CLASS_TABLE_EXTRA``): A and B each with
    its 95% interval, why the pair was compared, each configuration whole. A pair compared
    for two reasons (recommended, and the same configuration) is one row naming both."""
    rows: dict[tuple[str, str, str], dict[str, object]] = {}
    reasons: dict[tuple[str, str, str], list[str]] = {}
    for r in frame.itertuples():
        key = (str(r[1]), str(r.config_a), str(r.config_b))
        reasons.setdefault(key, []).append(str(r.pairing))
        if key in rows:
            continue
        a, b, a_ci, b_ci = spell_scores((r.a, r.a_lo, r.a_hi), (r.b, r.b_lo, r.b_hi))
        rows[key] = {
            "class": class_label(r),
            "configuration": pair_label(r.config_a, r.config_b),
            "A": a,
            "B": b,
            "change % (95% CI)": spell_change(r.change_pct, r.change_lo_pct, r.change_hi_pct),
            "verdict": SHORT_VERDICTS.get(str(r.verdict), str(r.verdict)),
            "A (95% CI)": a_ci,
            "B (95% CI)": b_ci,
            "configuration A": r.config_a,
            "configuration B": r.config_b,
        }
    for key, row in rows.items():
        why = _reasons(reasons[key])
        row["paired as"] = why
        if RECOMMENDED in why:
            row["configuration"] = RECOMMENDED_MARK + str(row["configuration"])
    return pd.DataFrame(list(rows.values()), columns=_CLASS_WORDS)


def cell_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Per pair of configurations and cell figure, as the CLI words it: the pair, the cell
    and figure, A and B, the change with its interval, the verdict; then each configuration
    whole (``CELL_TABLE_EXTRA``)."""
    rows = [
        {
            "configuration": pair_label(r.config_a, r.config_b),
            "cell": r.cell,
            "figure": FIGURE_LABELS.get(str(r.figure), str(r.figure)),
            "A": spell_figure(r.a),
            "B": spell_figure(r.b),
            "change % (95% CI)": spell_change(r.change_pct, r.change_lo_pct, r.change_hi_pct),
            "verdict": SHORT_VERDICTS.get(str(r.verdict), str(r.verdict)),
            "configuration A": r.config_a,
            "configuration B": r.config_b,
        }
        for r in frame.itertuples()
    ]
    return pd.DataFrame(rows, columns=_CELL_WORDS)


#: the columns of ``class_table`` a page shows only on demand (its column menu, the CSV)
CLASS_TABLE_EXTRA = ["A (95% CI)", "B (95% CI)", "paired as", "configuration A", "configuration B"]
#: the columns of ``cell_table`` a page shows only on demand
CELL_TABLE_EXTRA = ["configuration A", "configuration B"]
_CLASS_WORDS = [
    "class",
    "configuration",
    "A",
    "B",
    "change % (95% CI)",
    "verdict",
    *CLASS_TABLE_EXTRA,
]
_CELL_WORDS = [
    "configuration",
    "cell",
    "figure",
    "A",
    "B",
    "change % (95% CI)",
    "verdict",
    *CELL_TABLE_EXTRA,
]
