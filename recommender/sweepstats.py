"""The figures of one configuration, repetition by repetition, and the intervals that
``raidsweep compare`` and ``raidsweep accept`` decide by. Pure functions over run tables.

- A class score per repetition is the ranking's: the weighted geometric mean of the metric
  over the class's cells (``recommender.scoring``), from the repetitions that have every cell.
- A figure's interval is the ranking's too: the mean of the repetitions with a Student-t
  interval (``scoring.mean_ci``). With one repetition there is no interval (NaN), never a
  point taken for certainty.
- A change between two sets of repetitions is the ratio of their geometric means, with
  Welch's t-interval on the logarithms (unequal variances and counts; performance changes
  are multiplicative). ``ratio_interval(a, b)`` is B over A; NaN bounds when either side has
  fewer than two repetitions.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats

from recommender.scoring import mean_ci

#: the figures of a cell that compare and accept read: the higher the better, or the lower
HIGHER_IS_BETTER = {"iops": True, "mbps": True}


@dataclass(frozen=True)
class Interval:
    """A mean (or a ratio) with its interval; ``lo``/``hi`` NaN when it has none."""

    value: float
    lo: float
    hi: float
    n: int

    @property
    def known(self) -> bool:
        return not (math.isnan(self.lo) or math.isnan(self.hi))


def cell_of(key: str) -> str:
    """A run's cell as classes and gates name it (the whole working set, ``ws100``, unsaid)."""
    return key.removesuffix("/ws100")


def figure_column(figure: str) -> str:
    """The run column of a figure: ``iops``, ``mbps`` or a latency (``read_lat_p99_ms``)."""
    return figure if figure in HIGHER_IS_BETTER else f"{figure}_ms"


class Figures:
    """A sweep's runs as repetition × cell tables, one per configuration and run column,
    built from one group-by and kept (a comparison asks for each many times)."""

    def __init__(self, runs: pd.DataFrame):
        self._runs = runs
        self._by_column: dict[str, pd.Series] = {}
        self._wide: dict[tuple[str, str], pd.DataFrame] = {}

    def _column(self, column: str) -> pd.Series:
        if column not in self._by_column:
            runs = self._runs
            if runs.empty or column not in runs:
                self._by_column[column] = pd.Series(dtype=float)
            else:
                keys = [runs["config_key"], runs["repetition"], runs["cell_key"].map(cell_of)]
                grouped = runs[column].astype(float).groupby(keys).mean()
                self._by_column[column] = grouped.rename_axis(["config", "repetition", "cell"])
        return self._by_column[column]

    def wide(self, config_key: str, column: str) -> pd.DataFrame:
        """Repetition × cell: ``column`` of one configuration's runs (NaN where not measured)."""
        key = (config_key, column)
        if key not in self._wide:
            series = self._column(column)
            if series.empty or config_key not in series.index.get_level_values(0):
                self._wide[key] = pd.DataFrame()
            else:
                self._wide[key] = series.xs(config_key, level="config").unstack("cell").sort_index()
        return self._wide[key]

    def cells(self, config_key: str, column: str) -> dict[str, np.ndarray]:
        """Per cell, ``column`` over the repetitions measured (NaN left out)."""
        wide = self.wide(config_key, column)
        values = wide.to_numpy(dtype=float).T
        return {
            str(c): v[~np.isnan(v)]
            for c, v in zip(wide.columns, values, strict=True)
            if (~np.isnan(v)).any()
        }


def per_repetition(runs: pd.DataFrame, config_key: str, column: str) -> pd.DataFrame:
    """Repetition × cell: ``column`` of one configuration's runs (NaN where not measured)."""
    return Figures(runs[runs["config_key"] == config_key]).wide(config_key, column)


def class_scores(wide: pd.DataFrame, weights: Mapping[str, float]) -> np.ndarray:
    """Per repetition that has every cell of ``weights``: the weighted geometric mean."""
    cells = [c for c in weights if c in wide.columns]
    if not cells or len(cells) < len(weights):
        return np.array([])
    part = wide[cells].dropna()
    w = np.array([weights[c] for c in cells], dtype=float)
    logs = np.log(part.clip(lower=1e-9).to_numpy())
    return np.exp(logs @ w / w.sum())


def cell_values(wide: pd.DataFrame, cell: str) -> np.ndarray:
    """One cell's figure per repetition (those measured)."""
    if cell not in wide.columns:
        return np.array([])
    return wide[cell].dropna().to_numpy(dtype=float)


def mean_interval(values: np.ndarray, level: float = 0.95) -> Interval:
    """The mean of ``values`` with its Student-t interval (NaN bounds below two values)."""
    values = np.asarray(values, dtype=float)
    n = len(values)
    if n == 0:
        return Interval(math.nan, math.nan, math.nan, 0)
    mean, lo, hi, _ = mean_ci(values, level)
    if n < 2:
        return Interval(mean, math.nan, math.nan, n)
    return Interval(mean, lo, hi, n)


def ratio_interval(a: np.ndarray, b: np.ndarray, level: float = 0.95) -> Interval:
    """B's geometric mean over A's, with Welch's t-interval on the logarithms; ``n`` is the
    smaller count. NaN bounds when either side has fewer than two values."""
    a = np.log(np.clip(np.asarray(a, dtype=float), 1e-12, None))
    b = np.log(np.clip(np.asarray(b, dtype=float), 1e-12, None))
    na, nb = len(a), len(b)
    if not na or not nb:
        return Interval(math.nan, math.nan, math.nan, 0)
    d = float(b.mean() - a.mean())
    if na < 2 or nb < 2:
        return Interval(math.exp(d), math.nan, math.nan, min(na, nb))
    va, vb = float(a.var(ddof=1)) / na, float(b.var(ddof=1)) / nb
    se = math.sqrt(va + vb)
    if se == 0:
        return Interval(math.exp(d), math.exp(d), math.exp(d), min(na, nb))
    df = (va + vb) ** 2 / (va**2 / (na - 1) + vb**2 / (nb - 1))
    half = float(stats.t.ppf(0.5 + level / 2, df)) * se
    return Interval(math.exp(d), math.exp(d - half), math.exp(d + half), min(na, nb))


def change_verdict(ratio: Interval, higher_is_better: bool) -> str:
    """``better``, ``worse`` (B against A: the interval excludes no change), ``no significant
    change``, or ``unknown`` (no interval: fewer than two repetitions on a side)."""
    if not ratio.known:
        return "unknown"
    if ratio.lo > 1:
        return "better" if higher_is_better else "worse"
    if ratio.hi < 1:
        return "worse" if higher_is_better else "better"
    return "no significant change"
