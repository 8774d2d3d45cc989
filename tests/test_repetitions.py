"""Statistics over a cell's repetitions: known values computed independently of the module."""

from __future__ import annotations

import math
import statistics

import pytest
from scipy import stats

from sweeper.repetitions import Summary, needs_more, outlier_indexes, summarize

TEXTBOOK = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]  # mean 5, population sd 2


def test_summary_matches_statistics_and_scipy() -> None:
    s = summarize(TEXTBOOK)
    mean, sd = statistics.mean(TEXTBOOK), statistics.stdev(TEXTBOOK)
    lo, hi = stats.t.interval(0.95, len(TEXTBOOK) - 1, loc=mean, scale=stats.sem(TEXTBOOK))
    assert (s.n, s.mean) == (8, 5.0)
    assert s.sd == pytest.approx(sd) and s.sd == pytest.approx(math.sqrt(32 / 7))
    assert s.cv_pct == pytest.approx(100 * sd / mean)
    assert (s.ci_lo, s.ci_hi) == (pytest.approx(lo), pytest.approx(hi))
    # median 4.5, MAD 0.5: 9 scores 0.6745 × 4.5 / 0.5 = 6.07 > 3.5; 2 scores 3.37.
    assert s.outliers == (7,)


def test_interval_uses_student_t_table_values() -> None:
    # Printed t-tables: t(0.975, 7) = 2.365, t(0.995, 7) = 3.499, t(0.975, 1) = 12.706.
    half95 = 2.365 * statistics.stdev(TEXTBOOK) / math.sqrt(8)
    s95 = summarize(TEXTBOOK)
    assert s95.ci_hi - s95.mean == pytest.approx(half95, rel=1e-3)
    s99 = summarize(TEXTBOOK, level=0.99)
    assert s99.ci_hi - s99.mean == pytest.approx(3.499 * half95 / 2.365, rel=1e-3)
    two = summarize([10.0, 12.0])
    # sd = √2, so the half width is t × √2 / √2 = 12.706 (the table rounds to 3 decimals).
    assert (two.ci_lo, two.ci_hi) == (
        pytest.approx(11 - 12.706, abs=1e-3),
        pytest.approx(11 + 12.706, abs=1e-3),
    )


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
# For [10, 11, 12, 13, 14, x] with x ≥ 14: median 12.5, absolute deviations 2.5, 1.5, 0.5, 0.5,
# 1.5, x − 12.5, so MAD = 1.5 and x is an outlier when 0.6745 (x − 12.5) / 1.5 > 3.5, that is
# x > 12.5 + 3.5 × 1.5 / 0.6745 = 20.2835.


@pytest.mark.parametrize(("x", "flagged"), [(20.2, False), (20.4, True), (40.0, True)])
def test_modified_z_score_boundary(x: float, flagged: bool) -> None:
    values = [10.0, 11.0, 12.0, 13.0, 14.0, x]
    assert summarize(values).outliers == ((5,) if flagged else ())


def test_low_outlier_and_position_in_the_input() -> None:
    assert summarize([100.0, 101.0, 20.0, 99.0, 100.5]).outliers == (2,)


def test_no_outliers_below_three_values() -> None:
    assert summarize([1.0, 1000.0]).outliers == ()
    assert outlier_indexes([5.0]) == ()


def test_zero_mad_falls_back_to_mean_absolute_deviation() -> None:
    # k equal values and one differing by d: MeanAD = d / (k + 1), so the score is
    # (k + 1) / 1.253314: 3.19 for k = 3 (not flagged), 3.99 for k = 4 (flagged).
    assert outlier_indexes([100.0, 100.0, 100.0, 101.0]) == ()
    assert outlier_indexes([100.0, 100.0, 100.0, 100.0, 101.0]) == (4,)
    assert outlier_indexes([7.0, 7.0, 7.0]) == ()


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
