"""Per workload class, the decision and its evidence: one computation for CLI, report and app.

For each class: the ranked configurations with their trade-offs (usable capacity, rebuild
exposure, cost), the recommended configuration and the runner-up, the cells that decided
between them, the trade-off Pareto set (score vs usable share vs data-loss risk), and the
performance kept with snapshots or data reduction on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from recommender.classes import METRIC_UNITS, WorkloadClass
from recommender.evidence import EVIDENCE_COLUMNS, evidence
from recommender.features import feature_impact
from recommender.figures import figure, interval_text, score_decimals
from recommender.scoring import rank_classes
from recommender.tiebreak import MARGIN_COLUMNS, SCORE, TieBreak, break_tie, limit_margins
from recommender.tradeoffs import pareto_tradeoffs, with_tradeoffs

#: a ratio of figures past which a percentage says nothing (a runner-up that measured ~0)
_FAR = 1e4


@dataclass
class ClassRecommendation:
    wclass: WorkloadClass
    #: ranked rows of this class, with trade-off columns and ``tradeoff_front``
    ranked: pd.DataFrame
    best: pd.Series | None
    runner_up: pd.Series | None
    #: per class cell: recommended vs runner-up figures and each cell's share of the decision
    evidence: pd.DataFrame
    #: feature on vs off per configuration pair (empty without such dimensions)
    impact: pd.DataFrame
    #: how a tie at the top was broken, in words (empty: no tie)
    tie_break_note: str = ""
    #: why the runner-up stands behind, in words (a tie-break, a broken limit, fewer cells
    #: measured, or the cell that pulled most for the recommended one)
    runner_up_reason: str = ""
    #: the recommended configuration's worst figure and margin per limit
    margins: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=MARGIN_COLUMNS))

    @property
    def name(self) -> str:
        return self.wclass.name

    @property
    def missing(self) -> str:
        if self.ranked.empty:
            return ", ".join(self.wclass.cell_keys)
        return str(self.ranked["cells_missing"].iloc[0] or "")

    @property
    def tied_set(self) -> list[str]:
        """The configurations tied with the recommended one (its rank's other rows)."""
        if self.best is None:
            return []
        r = self.ranked
        same = r[(r["rank"] == self.best["rank"]) & (r["config_key"] != self.best["config_key"])]
        return [str(k) for k in same["config_key"]]

    def sentence(self) -> str:
        """The decision in one line, as it goes into a hand-over."""
        if self.best is None:
            return f"{self.name}: no runs measured the class's cells"
        b = self.best
        unit = METRIC_UNITS[self.wclass.metric]
        decimals = score_decimals(self.ranked["score"])
        spec = f",.{decimals}f"
        interval = interval_text(b["score_lo"], b["score_hi"], decimals)
        reps = int(b["repetitions"])
        spread = f"95% CI {interval}, {reps} reps" if interval != "–" else "1 rep: no interval"
        text = f"{self.name}: {b['config_key']} — {figure(b['score'], spec)} {unit} ({spread})"
        tied = self.tied_set
        if tied:
            named = ", ".join(tied[:3]) + (f" and {len(tied) - 3} more" if len(tied) > 3 else "")
            text += f"; tied (95% intervals overlap) with {named}, " + (
                self.tie_break_note or "ahead of them by the higher mean score"
            )
        if not bool(b["meets_limits"]):
            text += "; no configuration keeps every limit"
        if self.runner_up is not None:
            r = self.runner_up
            text += f"; runner-up {r['config_key']} {figure(r['score'], spec)}"
            if r["score"] > 0 and b["score"] / r["score"] < _FAR:
                text += f" ({100 * (b['score'] / r['score'] - 1):+.1f}%)"
            if self.runner_up_reason:
                text += f", {self.runner_up_reason}"
        return text


def runner_up_reason(
    best: pd.Series, runner: pd.Series, tie: TieBreak | None, evidence_rows: pd.DataFrame
) -> str:
    """Why ``runner`` stands behind ``best``: the tie-break criterion that put it there, the
    limit it breaks, the cells it lacks, or else the cell that pulled most for ``best`` (never
    a cell where ``best`` is behind)."""
    if tie is not None and tie.decided_by not in (None, SCORE):
        tied = set(tie.order["config_key"])
        if runner["config_key"] in tied and best["config_key"] in tied:
            by = tie.decided_by
            return (
                f"put behind by the tie-break on {by.label} "
                f"({by.text(float(runner[by.column]))} against {by.text(float(best[by.column]))})"
            )
    if bool(best["meets_limits"]) and not bool(runner["meets_limits"]):
        broken = str(runner["violations"]).split("; ")[0]
        return f"which breaks a limit ({broken})" if broken else "which breaks a limit"
    if int(runner["cells_measured"]) < int(best["cells_measured"]):
        return "measured on fewer of the class's cells"
    ahead = evidence_rows[evidence_rows["contribution_pct"] > 0]
    if ahead.empty:
        return ""
    top = ahead.iloc[0]
    if not math.isfinite(top["ratio"]) or top["ratio"] >= _FAR:
        return f"decided mostly by {top['cell']} (where the runner-up measured almost nothing)"
    return f"decided mostly by {top['cell']} (×{top['ratio']:.2f})"


def class_recommendations(
    runs: pd.DataFrame,
    classes: list[WorkloadClass],
    hardware: dict[str, Any],
    prices: dict[str, Any] | None = None,
    ranked: pd.DataFrame | None = None,
) -> list[ClassRecommendation]:
    """One ``ClassRecommendation`` per class (``ranked`` may be passed when already computed)."""
    if ranked is None:
        ranked = rank_classes(runs, classes)
    full = with_tradeoffs(ranked, hardware, prices)
    impact = feature_impact(ranked)
    out = []
    for wclass in classes:
        part = full[full["class"] == wclass.name].copy()
        part["tradeoff_front"] = pareto_tradeoffs(part) if len(part) else pd.Series(dtype=bool)
        best = runner = None
        tie: TieBreak | None = None
        note = ""
        if len(part):
            top = part[part["rank"] == part["rank"].iloc[0]]
            broken = break_tie(top, wclass.tie_break)
            tie = broken if wclass.tie_break else None
            note = broken.note() if tie else ""
            rest = part.drop(index=top.index)
            order = pd.concat([tie.order, rest]) if tie else part
            best = order.iloc[0]
            runner = order.iloc[1] if len(order) > 1 else None
        ev = (
            evidence(runs, wclass, best["config_key"], runner["config_key"])
            if best is not None and runner is not None
            else pd.DataFrame(columns=EVIDENCE_COLUMNS)
        )
        out.append(
            ClassRecommendation(
                wclass=wclass,
                ranked=part.reset_index(drop=True),
                best=best,
                runner_up=runner,
                evidence=ev,
                impact=impact[impact["class"] == wclass.name].reset_index(drop=True),
                tie_break_note=note,
                runner_up_reason=runner_up_reason(best, runner, tie, ev)
                if best is not None and runner is not None
                else "",
                margins=limit_margins(runs, wclass, best["config_key"])
                if best is not None
                else pd.DataFrame(columns=MARGIN_COLUMNS),
            )
        )
    return out
