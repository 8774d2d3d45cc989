"""Statistics over one workload cell's repetitions, and whether to run it again.

A cell is repeated until its results agree, as the Phoronix Test Suite's dynamic run count
does: while the coefficient of variation exceeds a threshold, up to a cap. Pure functions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

# Iglewicz & Hoaglin (1993), "How to Detect and Handle Outliers": M_i = 0.6745 (x_i − x̃) / MAD,
# an outlier when |M_i| > 3.5. 0.6745 is the 0.75 quantile of the standard normal, which makes
# MAD / 0.6745 estimate σ for normal data.
MODIFIED_Z_LIMIT = 3.5
_MAD_SCALE = 0.6745
# When MAD is 0 (more than half the values equal), the mean absolute deviation from the median
# stands in for it: 1.253314 × MeanAD estimates σ (√(π/2)), as IBM SPSS does for this case.
_MEANAD_SCALE = 1.253314


@dataclass(frozen=True)
class Summary:
    """Spread of a cell's repetitions.

    With a single value sd, cv_pct and the interval are NaN: spread is unknown, not zero.
    """

    n: int
    mean: float
    sd: float  # sample standard deviation (ddof=1)
    cv_pct: float  # 100 × sd / |mean|; 0 for identical values, inf for mean 0 with spread
    ci_lo: float  # Student-t interval for the mean at ``level``
    ci_hi: float
    outliers: tuple[int, ...]  # indexes into the values, by the modified z-score


def _cv_pct(mean: float, sd: float) -> float:
    if math.isnan(sd):
        return math.nan
    if sd == 0:
        return 0.0
    return math.inf if mean == 0 else 100 * sd / abs(mean)


def outlier_indexes(values: Sequence[float]) -> tuple[int, ...]:
    """Indexes whose modified z-score (Iglewicz–Hoaglin) exceeds 3.5 in absolute value.

    Median and MAD, unlike mean and sd, are not dragged by the outlier itself, so one bad run
    among few cannot hide. Only for n ≥ 3: with two values the median is their midpoint, both
    are equally far from it (both score 0.6745), so neither can be singled out; the guard
    states that rather than leaving it to arithmetic. Outliers are only reported; the caller
    decides whether to drop or re-run them.
    """
    x = np.asarray(values, dtype=float)
    if len(x) < 3:
        return ()
    median = np.median(x)
    deviation = np.abs(x - median)
    mad = float(np.median(deviation))
    if mad > 0:
        scores = _MAD_SCALE * deviation / mad
    else:
        mean_ad = float(deviation.mean())
        if mean_ad == 0:
            return ()  # all values identical
        scores = deviation / (_MEANAD_SCALE * mean_ad)
    return tuple(int(i) for i in np.flatnonzero(scores > MODIFIED_Z_LIMIT))


def summarize(values: Sequence[float], level: float = 0.95) -> Summary:
    """Mean, spread, Student-t interval and outliers of a cell's repetitions."""
    x = np.asarray(values, dtype=float)
    if x.ndim != 1 or len(x) == 0:
        raise ValueError("summarize needs a non-empty flat sequence of values")
    if not np.isfinite(x).all():
        raise ValueError("values must be finite")
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    n = len(x)
    mean = float(x.mean())
    if n < 2:
        sd = lo = hi = math.nan
    else:
        sd = float(x.std(ddof=1))
        half = float(stats.t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
        lo, hi = mean - half, mean + half
    return Summary(n, mean, sd, _cv_pct(mean, sd), lo, hi, outlier_indexes(x))


def needs_more(
    values: Sequence[float],
    cv_threshold_pct: float = 3.0,
    cap: int = 10,
    minimum: int = 3,
) -> bool:
    """Whether to run the cell once more.

    Yes below ``minimum`` runs; no at ``cap`` runs; in between, yes while the coefficient of
    variation exceeds ``cv_threshold_pct`` (an undefined CV, from a single run, counts as
    exceeding it: agreement has not been shown).
    """
    if not 1 <= minimum <= cap:
        raise ValueError(f"need 1 <= minimum <= cap, got minimum={minimum}, cap={cap}")
    if cv_threshold_pct < 0:
        raise ValueError(f"cv_threshold_pct must be >= 0, got {cv_threshold_pct}")
    n = len(values)
    if n >= cap:
        return False
    if n < minimum:
        return True
    cv = summarize(values).cv_pct
    return math.isnan(cv) or cv > cv_threshold_pct
