"""Breaking a tie: which of the configurations tied at the top of a class's ranking is
recommended, by the class's stated secondary criteria (``tie_break`` in its file), then by the
higher mean score; and how far the recommended configuration stays from each limit.

A criterion is a trade-off figure (``recommender.tradeoffs``): a tie is broken by the first
criterion in which the tied configurations differ. A criterion whose figure is unknown for any
of them (no prices, no drive size) is skipped, and the decision says so.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from recommender.classes import TIE_BREAK_CRITERIA, WorkloadClass


@dataclass(frozen=True)
class Criterion:
    column: str
    higher_is_better: bool
    label: str
    #: format of one figure in the decision's words
    fmt: str

    def text(self, value: float) -> str:
        return self.fmt.format(value)

    @property
    def direction(self) -> str:
        return "higher" if self.higher_is_better else "lower"


#: the tie-break criteria a class may name, by the name it uses
CRITERIA: dict[str, Criterion] = {
    "usable_capacity": Criterion("usable_share", True, "usable capacity", "{:.1%}"),
    "loss_risk": Criterion("loss_risk_per_year", False, "data-loss risk per year", "{:.2e}"),
    "rebuild_time": Criterion("rebuild_h", False, "rebuild time", "{:.2f} h"),
    "cost": Criterion("cost", False, "cost", "{:,.0f}"),
    "cost_per_unit": Criterion("cost_per_unit", False, "cost per unit of score", "{:,.4g}"),
    "cost_per_usable_gb": Criterion("cost_per_usable_gb", False, "cost per usable GB", "{:,.4g}"),
    "drives": Criterion("drives", False, "drives", "{:.0f}"),
    "spread": Criterion("cv_pct", False, "spread (CV)", "{:.2f}%"),
}
SCORE = Criterion("score", True, "mean score", "{:,.1f}")
assert set(CRITERIA) == set(TIE_BREAK_CRITERIA), "classes.py and tiebreak.py name the same"


@dataclass(frozen=True)
class TieBreak:
    """The tied group in the order the tie-break gives (the recommended one first), the
    criteria used in turn, the criteria skipped for unknown figures, and the one that decided
    between the first two (None: no tie)."""

    order: pd.DataFrame
    used: list[Criterion]
    skipped: list[Criterion]
    decided_by: Criterion | None

    def note(self) -> str:
        """The tie-break in words, for the decision (empty without a tie): the chain of
        criteria, and for each tied configuration the criterion that put it behind."""
        if self.decided_by is None or len(self.order) < 2:
            return ""
        chain = ", then ".join(f"{c.label} ({c.direction})" for c in self.used)
        first = self.order.iloc[0]
        behind: dict[str, list[str]] = {}
        for _, other in self.order.iloc[1:].iterrows():
            by = next(
                (c for c in self.used if float(first[c.column]) != float(other[c.column])), SCORE
            )
            figure = (
                f"{by.text(float(other[by.column]))} against {by.text(float(first[by.column]))}"
            )
            behind.setdefault(by.label, []).append(f"{other['config_key']} ({figure})")
        why = "; ".join(f"on {label}: {', '.join(keys)}" for label, keys in behind.items())
        text = f"tie broken by {chain}; behind it {why}"
        if self.skipped:
            text += "; skipped, figures unknown: " + ", ".join(c.label for c in self.skipped)
        return text


def break_tie(group: pd.DataFrame, names: list[str]) -> TieBreak:
    """Order the configurations of ``group`` (one rank's rows: the leader and those tied with
    it) by the criteria ``names`` in turn, then by the higher mean score."""
    used: list[Criterion] = []
    skipped: list[Criterion] = []
    for name in names:
        criterion = CRITERIA[name]
        known = criterion.column in group and group[criterion.column].notna().all()
        (used if known else skipped).append(criterion)
    used.append(SCORE)
    keys = [pd.to_numeric(group[c.column], errors="coerce") for c in used]
    frame = group.assign(**{f"_tb{i}": k for i, k in enumerate(keys)})
    order = frame.sort_values(
        [f"_tb{i}" for i in range(len(used))],
        ascending=[not c.higher_is_better for c in used],
        kind="stable",
    ).drop(columns=[f"_tb{i}" for i in range(len(used))])
    decided_by = None
    if len(order) > 1:
        first, second = order.iloc[0], order.iloc[1]
        decided_by = next(
            (c for c in used if float(first[c.column]) != float(second[c.column])), SCORE
        )
    return TieBreak(order=order, used=used, skipped=skipped, decided_by=decided_by)


MARGIN_COLUMNS = ["limit", "cell", "worst ms", "limit ms", "margin ms", "margin %"]


def limit_margins(runs: pd.DataFrame, wclass: WorkloadClass, config_key: str) -> pd.DataFrame:
    """Per limit of ``wclass``, the configuration's worst cell mean against it and the margin
    left (negative: broken), as ms and as % of the limit."""
    cells = runs["cell_key"].str.replace(r"/ws100$", "", regex=True) if len(runs) else None
    rows = []
    for limit in wclass.limits:
        if cells is None or limit.column not in runs:
            continue
        scope = set(limit.cells or wclass.cell_keys)
        mine = runs[(runs["config_key"] == config_key) & cells.isin(scope)]
        means = mine.groupby(cells[mine.index])[limit.column].mean().dropna()
        if means.empty:
            continue
        cell = str(means.idxmax())
        worst = float(means.max())
        rows.append(
            {
                "limit": str(limit),
                "cell": cell,
                "worst ms": worst,
                "limit ms": limit.max_ms,
                "margin ms": limit.max_ms - worst,
                "margin %": 100 * (limit.max_ms - worst) / limit.max_ms,
            }
        )
    return pd.DataFrame(rows, columns=MARGIN_COLUMNS)
