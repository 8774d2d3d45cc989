"""Statistics over one workload cell's repetitions, and whether to run it again.

A cell is repeated until its results agree, as the Phoronix Test Suite's dynamic run count
does: while the coefficient of variation exceeds a threshold, up to a cap. Pure functions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

#: the coefficient of variation (%) a cell's repetitions are asked to agree within: the
#: default of dynamic_repetitions' ``cv_pct``, of ``needs_more`` and of the repeatability
#: disclosure, and the closeness below which no repetition is an outlier
AGREEMENT_CV_PCT = 3.0
#: the most that a cell of repetitions without an outlier has one named anyway, for any
#: number of repetitions from 3 (``outlier_indexes``)
OUTLIER_ALPHA = 0.05
#: a repetition this close to the others' mean (% of it) is never an outlier, however tight
#: they are: the agreement repetitions are asked for
OUTLIER_MIN_PCT = AGREEMENT_CV_PCT


@dataclass(frozen=True)
class Summary:
    """Spread of a cell's repetitions.

    With a single value sd, cv_pct and the interval are NaN: spread is unknown, not zero.
    """

    n: int
    mean: float
    sd: float  # sample standard deviation (ddof=1)
    cv_pct: float  # 100 × sd / |mean|; 0 for identical values, inf for mean 0 with spread
    ci_lo: float  # the mean's interval at ``level`` (``mean_bounds``)
    ci_hi: float
    outliers: tuple[int, ...]  # indexes into the values, by the generalized ESD test


def mean_bounds(
    mean: ArrayLike, sd: ArrayLike, n: ArrayLike, level: float = 0.95, *, positive: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """The interval at ``level`` of a mean of ``n`` repetitions with sample sd ``sd``.

    Performance figures (IOPS, MB/s, latencies, scores) are positive and their spread is
    relative, so where the mean is positive the Student-t interval is taken on the mean's
    logarithm, its standard error by the delta method, ``se(ln x̄) = s / (x̄ √n)``:
    ``x̄ · exp(± t · s / (x̄ √n))``. It never reaches zero (two repetitions of 1,400 and
    1,600 IOPS give 643–3,499, where ``x̄ ± t s/√n`` gave −297–3,297, a negative rate), and
    it is the symmetric interval to first order where the spread is small (3 runs of CV 2.5%:
    0.940–1.064 of the mean against 0.938–1.062). A mean that is not positive, or
    ``positive=False`` (values that may be negative), gets the symmetric ``x̄ ± t s/√n``.
    Below two repetitions the bounds are NaN: the spread is unknown."""
    m, s, k = np.broadcast_arrays(
        np.asarray(mean, dtype=float), np.asarray(sd, dtype=float), np.asarray(n, dtype=float)
    )
    many = k >= 2
    tq = stats.t.ppf(0.5 + level / 2, np.where(many, k - 1, 1))
    half = np.where(many, tq * s / np.sqrt(np.where(many, k, 1)), np.nan)
    logs = (m > 0) & positive
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        spread = np.exp(half / np.where(logs, m, 1.0))
    lo = np.where(logs, m / spread, m - half)
    hi = np.where(logs, m * spread, m + half)
    return lo, hi


def _cv_pct(mean: float, sd: float) -> float:
    if math.isnan(sd):
        return math.nan
    if sd == 0:
        return 0.0
    return math.inf if mean == 0 else 100 * sd / abs(mean)


def outlier_indexes(
    values: Sequence[float],
    max_outliers: int | None = None,
    alpha: float | None = None,
    min_pct: float = OUTLIER_MIN_PCT,
) -> tuple[int, ...]:
    """Indexes of the outliers by Rosner's generalized extreme studentized deviate test
    (Technometrics 25, 1983; NIST/SEMATECH e-Handbook 1.3.5.17.3), in the input's order.

    Up to ``max_outliers`` (default: fewer than half the values) times, the value farthest
    from the mean of those left is set aside with its statistic ``R_i = max |x − x̄| / s``;
    its critical value is ``λ_i = (n − i) t / √((n − i − 1 + t²)(n − i + 1))``, ``t`` the
    Student quantile at ``1 − α / (2 (n − i + 1))`` with ``n − i − 1`` degrees of freedom.
    The outliers are the values set aside up to the last ``i`` with ``R_i > λ_i``.

    ``alpha`` is each step's level (Rosner's α). By default ``OUTLIER_ALPHA`` is split evenly
    over the steps (Bonferroni), so that the chance of naming an outlier among repetitions
    that have none stays under ``OUTLIER_ALPHA`` however many there are: Rosner's α at every
    step names one in 9–10% of normal samples of 5 to 10. A fixed cut on the modified z-score
    (Iglewicz–Hoaglin's 3.5) did far worse: the median absolute deviation of three values is
    one gap between them, and it named one of three normal repetitions 29% of the time.
    Below three values nothing can be singled out.

    A value the test sets apart that lies within ``min_pct`` % of the mean of the others is
    not named: runs held at one ceiling (a link, a cache) agree to the last digit, and the
    third run 0.1% lower stands out to any test of spread without mattering to anyone.
    Outliers are only reported; the caller decides whether to drop or re-run them.
    """
    x = np.asarray(values, dtype=float)
    n = len(x)
    if n < 3:
        return ()
    limit = (n - 1) // 2 if max_outliers is None else min(max_outliers, n - 2)
    level = OUTLIER_ALPHA / max(limit, 1) if alpha is None else alpha
    left = list(range(n))
    removed: list[int] = []
    found = 0
    for i in range(1, limit + 1):
        rest = x[left]
        sd = float(rest.std(ddof=1))
        if sd == 0:
            break  # the rest are identical: none of them stands out
        deviation = np.abs(rest - rest.mean())
        far = int(np.argmax(deviation))
        r_i = float(deviation[far]) / sd
        dof = n - i - 1
        t = float(stats.t.ppf(1 - level / (2 * (n - i + 1)), dof))
        lam = (n - i) * t / math.sqrt((dof + t * t) * (n - i + 1))
        removed.append(left.pop(far))
        if r_i > lam:
            found = i
    named = removed[:found]
    kept = np.delete(x, named)
    reference = float(kept.mean()) if len(kept) else 0.0
    if reference:
        named = [i for i in named if abs(x[i] - reference) > min_pct / 100 * abs(reference)]
    return tuple(sorted(named))


def summarize(values: Sequence[float], level: float = 0.95) -> Summary:
    """Mean, spread, interval (``mean_bounds``) and outliers of a cell's repetitions."""
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
        bounds = mean_bounds(mean, sd, n, level, positive=bool((x > 0).all()))
        lo, hi = float(bounds[0]), float(bounds[1])
    return Summary(n, mean, sd, _cv_pct(mean, sd), lo, hi, outlier_indexes(x))


def needs_more(
    values: Sequence[float],
    cv_threshold_pct: float = AGREEMENT_CV_PCT,
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
