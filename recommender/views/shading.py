"""What a heatmap needs beyond its means: each cell's place on the colour scale (over the
whole grid or within its column), a label colour that reads on it, the cells tied with their
column's best, the order of the rows, and the overview of every workload cell."""

from __future__ import annotations

import numpy as np
import pandas as pd

from recommender.views.labels import concurrency_key
from sweeper.repetitions import mean_bounds
from sweeper.units import parse_size

#: the label colours: dark on the light end of viridis and inferno, light on the dark end
DARK_INK, LIGHT_INK = "#111111", "#ffffff"
#: from this place on the scale (0 dark … 1 light) a label is dark
LIGHT_FROM = 0.6
ROW_ORDER_CONFIGURATION = "configuration"


def shade(frame: pd.DataFrame, *, per_column: bool, higher_is_better: bool) -> pd.DataFrame:
    """``frame`` (config_key, column, value, sd, n) with ``tone``: the cell's place from worst
    (0) to best (1) over the grid or within its column, ``ink``: the label colour that reads on
    that place of the scale (viridis and inferno run dark → light from 0 to 1), and ``tied``:
    whether the cell's 95% interval overlaps its column's best cell's. The interval is the
    frame's own ``lo`` and ``hi`` where it has them (a score's, which is not symmetric), else
    the mean's interval from ``sd`` and ``n`` (``mean_bounds``); it is kept in ``lo``, ``hi``
    and, as words, ``interval``."""
    out = frame.copy()
    value = out["value"].astype(float)
    groups = out["column"] if per_column else pd.Series(0, index=out.index)
    lo = value.groupby(groups).transform("min")
    hi = value.groupby(groups).transform("max")
    span = (hi - lo).where(hi > lo)
    tone = ((value - lo) / span).fillna(1.0)
    out["tone"] = tone if higher_is_better else 1.0 - tone
    out["ink"] = np.where(out["tone"] >= LIGHT_FROM, DARK_INK, LIGHT_INK)
    out["lo"], out["hi"] = _bounds(out)
    out["interval"] = [
        short_interval(v, a, b) for v, a, b in zip(value, out["lo"], out["hi"], strict=True)
    ]
    out["tied"] = _tied_with_best(out, higher_is_better)
    out["tied_text"] = np.where(out["tied"], "yes", "no")
    out["label"] = [
        ("=" if tied else "") + short_figure(v) for tied, v in zip(out["tied"], value, strict=True)
    ]
    return out


def _bounds(frame: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Each cell's 95% interval: its own bounds where the frame gives them, else the mean's
    (``sweeper.repetitions.mean_bounds``); a cell of one repetition is its value."""
    value = frame["value"].astype(float)
    n = frame["n"].astype(float).fillna(1.0)
    sd = frame["sd"].astype(float).fillna(0.0)
    mean_lo, mean_hi = mean_bounds(value.to_numpy(), sd.to_numpy(), n.to_numpy())
    spread = (n > 1).to_numpy()
    lo = pd.Series(np.where(spread, mean_lo, value), index=frame.index)
    hi = pd.Series(np.where(spread, mean_hi, value), index=frame.index)
    if "lo" in frame and "hi" in frame:
        lo = frame["lo"].astype(float).where(frame["lo"].notna(), lo)
        hi = frame["hi"].astype(float).where(frame["hi"].notna(), hi)
    return lo, hi


def _tied_with_best(frame: pd.DataFrame, higher_is_better: bool) -> pd.Series:
    value = frame["value"].astype(float)
    by_column = value.groupby(frame["column"])
    best_idx = by_column.idxmax() if higher_is_better else by_column.idxmin()
    best = frame["column"].map(best_idx)
    lo, hi = frame["lo"].astype(float), frame["hi"].astype(float)
    b_lo, b_hi = lo.loc[best].to_numpy(), hi.loc[best].to_numpy()
    overlap = (lo <= b_hi) & (b_lo <= hi)
    return overlap & (frame.index.to_numpy() != best.to_numpy())


def short_figure(value: float | None) -> str:
    """A heatmap cell's label, in the report and the app alike: always three significant
    digits, k and M for thousands and millions (``3.83k``, ``2.10k``, ``434``, ``12.0``; 999.7
    is ``1.00k``): one short form for every cell."""
    if value is None or not np.isfinite(float(value)):
        return "—"
    size, suffix, decimals = _short_form(float(value))
    return f"{float(value) / size:.{decimals}f}{suffix}"


def short_interval(value: float, lo: float, hi: float) -> str:
    """A cell's interval in its label's form: the scale and decimals of ``short_figure``
    (``value``), so ``90.0`` reads ``88.0–92.0`` and ``3.83k`` reads ``3.79k–3.87k``."""
    if not (np.isfinite(value) and np.isfinite(lo) and np.isfinite(hi)):
        return "—"
    size, suffix, decimals = _short_form(float(value))
    return f"{lo / size:.{decimals}f}{suffix}–{hi / size:.{decimals}f}{suffix}"


def _short_form(value: float) -> tuple[float, str, int]:
    """The scale, its suffix and the decimals that write ``value`` in three significant
    digits (rounded first, so 999.7 is 1.00k rather than 1e+03)."""
    rounded = float(f"{value:.3g}")
    size, suffix = next(
        ((s, x) for s, x in ((1e6, "M"), (1e3, "k")) if abs(rounded) >= s), (1.0, "")
    )
    scaled = abs(rounded) / size
    digits = 1 if scaled == 0 else int(np.floor(np.log10(scaled))) + 1
    return size, suffix, max(0, 3 - digits)


def row_order(
    frame: pd.DataFrame,
    by: str,
    *,
    higher_is_better: bool,
    scores: dict[str, float] | None = None,
) -> list[str]:
    """The configurations in the order the rows are shown: by key (``by`` is
    ROW_ORDER_CONFIGURATION), by a class score (``scores``, best first), or by the value in
    the column ``by`` (best first); configurations without a value last, by key."""
    keys = sorted(frame["config_key"].unique())
    if by == ROW_ORDER_CONFIGURATION:
        return keys
    if scores is None:
        return column_order(frame, by, higher_is_better=higher_is_better)
    return _best_first(keys, pd.Series(scores, dtype=float), higher_is_better=True)


def column_order(frame: pd.DataFrame, column: str, *, higher_is_better: bool) -> list[str]:
    """The configurations by their value in ``column`` (best first), those without one last,
    by key. For any column, one named like ROW_ORDER_CONFIGURATION too (a class may be named
    ``configuration``), which ``row_order`` would take for the order by key."""
    keys = sorted(frame["config_key"].unique())
    part = frame[frame["column"] == column]
    values = part.groupby("config_key")["value"].mean().astype(float)
    return _best_first(keys, values, higher_is_better=higher_is_better)


def _best_first(keys: list[str], values: pd.Series, *, higher_is_better: bool) -> list[str]:
    ranked = values.reindex(keys).sort_values(ascending=not higher_is_better, kind="stable")
    return [k for k in ranked.dropna().index] + [k for k in keys if pd.isna(ranked.get(k))]


def cell_order_key(cell_key: str) -> tuple:
    """Sorts cells by pattern, block size, then concurrency (the rest of the key after)."""
    parts = cell_key.split("/")
    try:
        size = parse_size(parts[1])
    except (IndexError, ValueError):
        size = 0
    qd = concurrency_key(parts[2]) if len(parts) > 2 else [0]
    return (parts[0], size, qd, parts[3:])


def overview_frame(runs: pd.DataFrame, metric: str) -> tuple[pd.DataFrame, list[str]]:
    """Mean, sd and count of ``metric`` per configuration × workload cell (every cell of the
    sweep at once), and the cells in order (pattern, block size, concurrency)."""
    if runs.empty or metric not in runs:
        return pd.DataFrame(columns=["config_key", "column", "value", "sd", "n"]), []
    out = runs.groupby(["config_key", "cell_key"])[metric].agg(value="mean", sd="std", n="count")
    out = out.reset_index().rename(columns={"cell_key": "column"}).dropna(subset=["value"])
    order = sorted(out["column"].unique(), key=cell_order_key)
    return out.reset_index(drop=True), order
