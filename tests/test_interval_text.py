"""An interval reads with one precision for both ends (``interval_text``): the precision its
larger end gets from ``figure``, finer only to tell distinct ends apart, never scientific, and
rounding never swaps the ends. Property-style over many magnitudes: a seeded table of random
pairs from a millionth to a trillion, plus the cases that once read with two precisions."""

from __future__ import annotations

import math
import random

import pytest

from recommender.views.markdown import INTERVAL_EXTRA_DECIMALS, interval_text


def _ends(text: str) -> tuple[str, str]:
    lo, hi = text.split("–")
    return lo, hi


def _decimals(end: str) -> int:
    return len(end.split(".")[1]) if "." in end else 0


def _value(end: str) -> float:
    return float(end.replace(",", ""))


def _base_decimals(lo: float, hi: float) -> int:
    """The decimals ``figure`` gives the larger end alone: none from 1,000, else four
    significant digits."""
    magnitude = max(abs(lo), abs(hi))
    if magnitude == 0:
        return 0
    return max(0, 3 - int(format(magnitude, ".3e").split("e")[1]))


def _pairs() -> list[tuple[float, float]]:
    """Random ordered pairs at every magnitude from 1e-6 to 1e12: wide, narrow (within a
    last digit or less of each other) and equal."""
    rng = random.Random(20240611)
    pairs = []
    for exponent in range(-6, 13):
        for _ in range(40):
            hi = rng.uniform(1, 10) * 10.0**exponent
            kind = rng.random()
            if kind < 0.4:  # a wide interval, its low end possibly orders of magnitude below
                lo = hi * rng.uniform(0, 1) ** rng.choice([1, 3])
            elif kind < 0.9:  # a narrow one: the ends a few units of a late digit apart
                lo = hi - hi * 10.0 ** -rng.uniform(1, 8)
            else:
                lo = hi
            pairs.append((lo, hi))
    return pairs


PAIRS = _pairs()
#: the ranking's interval that read "912.3–1,033", the tooltip's that read "87.04–113"
SEEN = [(912.3, 1033.0), (87.04, 112.96), (999.96, 999.97), (3304.2, 3304.4)]


def test_both_ends_read_with_one_precision() -> None:
    for lo, hi in PAIRS + SEEN:
        _one_precision(lo, hi)


def _one_precision(lo: float, hi: float) -> None:
    text = interval_text(lo, hi)
    a, b = _ends(text)
    assert _decimals(a) == _decimals(b), text
    assert "e" not in text.lower(), text  # never scientific notation
    assert _value(a) <= _value(b), (lo, hi, text)  # lo <= hi reads so
    # each end is its value to the precision shown
    unit = 10.0 ** -_decimals(a)
    for shown, value in ((a, lo), (b, hi)):
        assert math.isclose(_value(shown), value, abs_tol=unit / 2 * 1.000001), (lo, hi, text)


def test_distinct_ends_never_read_alike_needlessly() -> None:
    """The larger end's precision, a decimal more only while distinct ends would read alike
    (up to ``INTERVAL_EXTRA_DECIMALS``); ends alike even then are equal to that precision."""
    for lo, hi in PAIRS + SEEN:
        _apart(lo, hi)


def _apart(lo: float, hi: float) -> None:
    text = interval_text(lo, hi)
    a, b = _ends(text)
    base = _base_decimals(lo, hi)
    finest = base + INTERVAL_EXTRA_DECIMALS
    assert _decimals(a) <= finest, text
    if lo != hi and format(lo, f".{base}f") != format(hi, f".{base}f"):
        assert _decimals(a) <= base, text  # no finer than the larger end's own precision
    if a == b:
        assert format(lo, f",.{finest}f") == format(hi, f",.{finest}f"), (lo, hi, text)


@pytest.mark.parametrize(
    ("lo", "hi", "text"),
    [
        (912.3, 1033.0, "912–1,033"),  # was 912.3–1,033
        (87.04, 112.96, "87–113"),  # was 87.04–113
        (1234.6, 2345.6, "1,235–2,346"),
        (0.5, 950.3, "0.5–950.3"),
        (95.0, 105.0, "95–105"),  # a trailing zero both ends have is dropped
        (1.5, 2.0, "1.5–2.0"),  # one the other end needs is kept
        (3.1, 3.25, "3.10–3.25"),
        (3304.2, 3304.4, "3,304.2–3,304.4"),  # a decimal more tells the ends apart
        (3304.2, 3304.2, "3,304–3,304"),
        (999.96, 999.97, "999.96–999.97"),
        (0.00001, 0.00002, "0.00001–0.00002"),
        (0.1, 0.1000001, "0.1–0.1"),  # equal to the finest precision allowed
        (-0.0001, 5.0, "0–5"),  # no sign on a zero
        (0, 0, "0–0"),
        (None, 3.0, "––3"),  # a missing end is a dash
    ],
)
def test_intervals_read(lo: float | None, hi: float, text: str) -> None:
    assert interval_text(lo, hi) == text
