"""Statistics over a cell's repetitions: known values computed independently of the module."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest
from scipy import optimize, stats

from sweeper.repetitions import Summary, needs_more, outlier_indexes, summarize

TEXTBOOK = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]  # mean 5, population sd 2


def test_summary_matches_statistics_and_scipy() -> None:
    s = summarize(TEXTBOOK)
    mean, sd = statistics.mean(TEXTBOOK), statistics.stdev(TEXTBOOK)
    # the interval of ln(mean), its standard error by the delta method: sem / mean
    log_lo, log_hi = stats.t.interval(
        0.95, len(TEXTBOOK) - 1, loc=math.log(mean), scale=stats.sem(TEXTBOOK) / mean
    )
    lo, hi = math.exp(log_lo), math.exp(log_hi)
    assert (s.n, s.mean) == (8, 5.0)
    assert s.sd == pytest.approx(sd) and s.sd == pytest.approx(math.sqrt(32 / 7))
    assert s.cv_pct == pytest.approx(100 * sd / mean)
    assert (s.ci_lo, s.ci_hi) == (pytest.approx(lo), pytest.approx(hi))
    # 9 lies (9 − 5) / 2.138 = 1.87 sd from the mean: under Grubbs' critical value for
    # n = 8, 2.13 at 0.05 (2.24 at 0.05 / 3, the first of three steps): not an outlier.
    assert s.outliers == ()


def test_interval_uses_student_t_table_values() -> None:
    # Printed t-tables: t(0.975, 7) = 2.365, t(0.995, 7) = 3.499, t(0.975, 1) = 12.706.
    rel95 = 2.365 * statistics.stdev(TEXTBOOK) / math.sqrt(8) / 5.0  # on ln(mean)
    s95 = summarize(TEXTBOOK)
    assert s95.ci_hi == pytest.approx(5.0 * math.exp(rel95), rel=1e-3)
    assert s95.ci_lo == pytest.approx(5.0 * math.exp(-rel95), rel=1e-3)
    s99 = summarize(TEXTBOOK, level=0.99)
    assert s99.ci_hi == pytest.approx(5.0 * math.exp(3.499 * rel95 / 2.365), rel=1e-3)
    two = summarize([10.0, 12.0])
    # sd = √2, so the half width on ln(11) is 12.706 × √2 / √2 / 11.
    assert (two.ci_lo, two.ci_hi) == (
        pytest.approx(11 * math.exp(-12.706 / 11), rel=1e-4),
        pytest.approx(11 * math.exp(12.706 / 11), rel=1e-4),
    )


def test_interval_of_positive_figures_never_reaches_zero() -> None:
    # Two repetitions 1,400 and 1,600 IOPS: x̄ ± t s/√n is −297–3,297, a negative rate.
    rng = np.random.default_rng(7)
    for _ in range(200):
        values = rng.lognormal(8, rng.uniform(0.01, 1.5), size=int(rng.integers(2, 6)))
        s = summarize(values)
        assert 0 < s.ci_lo < s.mean < s.ci_hi
    s = summarize([1400.0, 1600.0])
    assert (round(s.ci_lo), round(s.ci_hi)) == (643, 3499)


def test_interval_is_the_symmetric_one_where_runs_agree() -> None:
    values = [1000.0, 1020.0, 990.0, 1010.0, 1005.0]
    s = summarize(values)
    lo, hi = stats.t.interval(0.95, 4, loc=statistics.mean(values), scale=stats.sem(values))
    assert s.ci_lo == pytest.approx(lo, rel=2e-4) and s.ci_hi == pytest.approx(hi, rel=2e-4)


def test_values_not_all_positive_get_the_symmetric_interval() -> None:
    values = [-2.0, 3.0, 5.0]
    lo, hi = stats.t.interval(0.95, 2, loc=statistics.mean(values), scale=stats.sem(values))
    s = summarize(values)
    assert (s.ci_lo, s.ci_hi) == (pytest.approx(lo), pytest.approx(hi))


def test_single_value_has_unknown_spread() -> None:
    s = summarize([42.0])
    assert (s.n, s.mean, s.outliers) == (1, 42.0, ())
    assert all(math.isnan(v) for v in (s.sd, s.cv_pct, s.ci_lo, s.ci_hi))


def test_identical_values() -> None:
    assert summarize([5.0, 5.0, 5.0, 5.0]) == Summary(4, 5.0, 0.0, 0.0, 5.0, 5.0, ())
    assert summarize([0.0, 0.0, 0.0]) == Summary(3, 0.0, 0.0, 0.0, 0.0, 0.0, ())


def test_zero_mean_with_spread_has_infinite_cv() -> None:
    s = summarize([-1.0, 1.0])
    assert s.mean == 0.0 and s.sd == pytest.approx(math.sqrt(2))
    assert math.isinf(s.cv_pct)


def test_cv_uses_the_magnitude_of_a_negative_mean() -> None:
    assert summarize([-97.0, -100.0, -103.0]).cv_pct == pytest.approx(3.0)


@pytest.mark.parametrize(
    ("values", "level"),
    [([], 0.95), ([1.0, math.nan], 0.95), ([1.0, math.inf], 0.95), ([1.0, 2.0], 1.0)],
)
def test_summarize_rejects_bad_input(values: list[float], level: float) -> None:
    with pytest.raises(ValueError):
        summarize(values, level=level)


# --- outliers -------------------------------------------------------------------------------

#: NIST/SEMATECH e-Handbook of Statistical Methods, 1.3.5.17.3 (Rosner's 54 observations): the
#: generalized ESD test for up to 10 outliers at α = 0.05 finds three, the three largest
ROSNER = [
    *(-0.25, 0.68, 0.94, 1.15, 1.20, 1.26, 1.26, 1.34, 1.38, 1.43, 1.49, 1.49, 1.55, 1.56),
    *(1.58, 1.65, 1.69, 1.70, 1.76, 1.77, 1.81, 1.91, 1.94, 1.96, 1.99, 2.06, 2.09, 2.10),
    *(2.14, 2.15, 2.23, 2.24, 2.26, 2.35, 2.37, 2.40, 2.47, 2.54, 2.62, 2.64, 2.90, 2.92),
    *(2.92, 2.93, 3.21, 3.26, 3.30, 3.59, 3.68, 4.30, 4.64, 5.34, 5.42, 6.01),
]


def test_generalized_esd_finds_nists_three_outliers() -> None:
    assert len(ROSNER) == 54
    found = outlier_indexes(ROSNER, max_outliers=10, alpha=0.05)
    assert sorted(ROSNER[i] for i in found) == [5.34, 5.42, 6.01]


def _grubbs_critical(n: int, alpha: float) -> float:
    """Grubbs' two-sided critical value (ASTM E178): ((n − 1)/√n) √(t² / (n − 2 + t²)), t the
    Student quantile at 1 − α/(2n) with n − 2 degrees of freedom."""
    t = stats.t.ppf(1 - alpha / (2 * n), n - 2)
    return (n - 1) / math.sqrt(n) * math.sqrt(t * t / (n - 2 + t * t))


@pytest.mark.parametrize("step", [-0.01, 0.01])
def test_one_step_is_grubbs_test(step: float) -> None:
    # [10, 11, 12, 13, 14, x]: find the x at which x's deviation is Grubbs' critical value,
    # then step just below (kept) and just above it (named).
    base = [10.0, 11.0, 12.0, 13.0, 14.0]
    critical = _grubbs_critical(6, 0.05)

    def statistic(x: float) -> float:
        values = [*base, x]
        return (x - statistics.mean(values)) / statistics.stdev(values)

    boundary = optimize.brentq(lambda x: statistic(x) - critical, 14.0, 100.0)
    values = [*base, boundary + step]
    assert outlier_indexes(values, max_outliers=1, alpha=0.05) == ((5,) if step > 0 else ())


@pytest.mark.parametrize("n", [3, 5, 10, 20])
def test_normal_repetitions_rarely_have_an_outlier_named(n: int) -> None:
    # Repetitions without an outlier (normal noise) have one named in at most 5% of cells,
    # as a user's 3 repetitions get it; the fixed modified z-score cut named one in 29% of
    # three-run cells.
    rng = np.random.default_rng(2026)
    named = sum(bool(outlier_indexes(rng.normal(50_000, 1_500, n))) for _ in range(2000))
    assert named / 2000 < 0.065, named


def test_a_bad_run_among_good_ones_is_named() -> None:
    assert summarize([100.0, 101.0, 20.0, 99.0, 100.5]).outliers == (2,)
    assert outlier_indexes(
        [100.0, 101.0, 99.0, 100.0, 102.0, 98.0, 100.0, 101.0, 150.0, 160.0]
    ) == (
        8,
        9,
    )


def test_a_difference_too_small_to_matter_is_no_outlier() -> None:
    # Two runs at one ceiling agree to the last digit; a third 0.1% lower is set apart by
    # the test of spread, but lies well within 3% of them.
    assert outlier_indexes([787.40, 787.40, 786.61]) == ()
    assert outlier_indexes([787.40, 787.40, 786.61], min_pct=0.0) == (2,)
    assert outlier_indexes([100.0, 100.0, 100.0, 110.0]) == (3,)  # 10%: named


def test_no_outliers_below_three_values() -> None:
    assert summarize([1.0, 1000.0]).outliers == ()
    assert outlier_indexes([5.0]) == ()


def test_identical_values_have_no_outlier() -> None:
    assert outlier_indexes([7.0, 7.0, 7.0]) == ()
    assert outlier_indexes([7.0] * 10) == ()


# --- needs_more -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        ([], True),  # below the minimum
        ([100.0, 100.0], True),  # below the minimum, however close
        ([100.0, 100.0, 100.0], False),  # CV 0
        ([97.0, 100.0, 103.0], False),  # CV exactly 3 %: not above the threshold
        ([96.9, 100.0, 103.1], True),  # CV 3.1 %
        ([90.0, 100.0, 110.0] * 3, True),  # CV 8.7 % at 9 runs
        ([90.0, 100.0, 110.0] * 3 + [100.0], False),  # CV still high, but the cap (10) is reached
    ],
)
def test_needs_more(values: list[float], expected: bool) -> None:
    assert needs_more(values) is expected


def test_needs_more_parameters() -> None:
    assert needs_more([96.9, 100.0, 103.1], cv_threshold_pct=5.0) is False
    assert needs_more([100.0, 100.0, 100.0], minimum=4) is True
    assert needs_more([90.0, 110.0, 100.0], cap=3) is False
    assert needs_more([100.0], minimum=1) is True  # one run shows no agreement yet


@pytest.mark.parametrize(
    ("kwargs"),
    [{"minimum": 0}, {"minimum": 5, "cap": 4}, {"cv_threshold_pct": -1.0}],
)
def test_needs_more_rejects_bad_parameters(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        needs_more([1.0, 2.0, 3.0], **kwargs)  # type: ignore[arg-type]
