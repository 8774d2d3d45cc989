"""How figures are written on every surface (the CLI, the report's HTML and Markdown, the
app): one figure, a 95% interval, and a class's scores, which share one precision for the
whole column and their intervals, taken from the class's largest score."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from typing import Any

import pandas as pd


def figure(value: Any, spec: str | None = None) -> str:
    """One figure: by ``spec``, else thousands grouped and at most four significant digits
    below 1,000; a dash for a missing or infinite one."""
    if value is None or value is pd.NA or value is pd.NaT:
        return "–"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return str(value)
    if not math.isfinite(float(value)):
        return "–"
    text = format(value, spec if spec is not None else _plain_spec(value))
    # a share of -0.3% rounds to "-0" (and +0.2% to "+0"): no sign on a zero
    return text[1:] if text[:1] in "+-" and not text.strip("+-0.,%") else text


def _plain_spec(value: Any) -> str:
    return ",.0f" if abs(value) >= 1000 else ".4g"


#: how many decimals an interval may add to its larger end's precision to tell its ends apart
INTERVAL_EXTRA_DECIMALS = 2


def interval_text(lo: Any, hi: Any, decimals: int | None = None) -> str:
    """A 95% interval as every table writes it (``1,235–2,346``, ``0.5–950.3``, ``912–1,033``):
    both ends with one precision, never scientific notation, an en dash between them.

    The precision is the one the larger end's magnitude gets from ``figure``: thousands
    grouped and no decimals from 1,000, four significant digits below (912.3 to 1,033 reads
    ``912–1,033``, not ``912.3–1,033``; 87.04 to 112.96 reads ``87–113``). Distinct ends that
    would then read alike get a decimal more, up to ``INTERVAL_EXTRA_DECIMALS`` more
    (``3,304.2–3,304.4``); ends closer than that are equal to the precision shown and read
    alike. A trailing zero both ends have is dropped (``95–105``, ``1.5–2.0``), so both keep
    the same number of decimals. Rounding never swaps the ends: ``lo <= hi`` reads so. A
    missing or infinite end is a dash, the other end then written as ``figure`` writes it
    alone.

    ``decimals`` given (a class's scores, ``score_decimals``), both
    ends have that many, as the score beside them, and no zero is dropped; distinct ends
    that would read alike still get up to ``INTERVAL_EXTRA_DECIMALS`` more."""
    ends = [_finite(lo), _finite(hi)]
    if ends[0] is None and ends[1] is None:
        return "–"  # no interval (one repetition)
    if ends[0] is None or ends[1] is None:
        return f"{figure(lo)}–{figure(hi)}"
    a, b = ends
    base = _decimals(max(abs(a), abs(b))) if decimals is None else decimals
    texts = _fixed(a, b, base)
    for more in range(1, INTERVAL_EXTRA_DECIMALS + 1):
        if a == b or texts[0] != texts[1]:
            break
        texts = _fixed(a, b, base + more)
    return "–".join(_trim_zeros(texts) if decimals is None else texts)


def _finite(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return None
    return float(value) if math.isfinite(float(value)) else None


def _decimals(magnitude: float) -> int:
    """The decimals ``figure`` gives a number of this size: none from 1,000 (after
    rounding: 999.96 is 1,000), else four significant digits."""
    if magnitude == 0:
        return 0
    exponent = int(format(magnitude, ".3e").split("e")[1])  # of the rounded figure
    return max(0, 3 - exponent)


def _fixed(a: float, b: float, decimals: int) -> list[str]:
    # ``figure`` writes a zero that rounds from below ("-0.0") without its sign
    return [figure(v, f",.{decimals}f") for v in (a, b)]


def _trim_zeros(texts: list[str]) -> list[str]:
    """Drop the trailing zeros both ends have (and the point, with its last decimal)."""
    while all("." in t and t.endswith("0") for t in texts):
        texts = [t[:-1] for t in texts]
    if all(t.endswith(".") for t in texts):
        texts = [t[:-1] for t in texts]
    return texts


#: significant digits the largest score of a class keeps below ``WHOLE_FROM``
SCORE_DIGITS = 3
#: from this size a score is written whole: its run-to-run spread is wider than a unit
WHOLE_FROM = 100


def score_decimals(scores: Iterable[Any]) -> int:
    """The decimals of a class's scores: none where its largest reaches ``WHOLE_FROM``
    (``3,423 (3,304–3,543)``, ``694 (672–717)``), else ``SCORE_DIGITS`` significant digits
    of the largest (``45.7 (44.1–47.2)`` MB/s, ``0.812`` IOPS). Missing, infinite and
    non-numeric values are passed over; none left gives none."""
    finite = [
        abs(float(v))
        for v in scores
        if isinstance(v, numbers.Real) and not isinstance(v, bool) and math.isfinite(float(v))
    ]
    top = max(finite, default=0.0)
    if top == 0:
        return 0
    # the exponent of the largest as rounded to its digits: 99.96 is written 100
    exponent = int(format(top, f".{SCORE_DIGITS - 1}e").split("e")[1])
    if 10**exponent >= WHOLE_FROM:
        return 0
    return max(0, SCORE_DIGITS - 1 - exponent)


def score_spec(scores: Iterable[Any]) -> str:
    """The format spec of a class's scores (``,.0f``, ``,.1f`` …): thousands grouped."""
    return f",.{score_decimals(scores)}f"


def score_text(score: Any, lo: Any, hi: Any, decimals: int) -> str:
    """A score with its 95% interval, as a ranking's line writes it:
    ``3,423 (3,304–3,543)``, both with ``decimals`` (``score_decimals`` of the class);
    ``43,086 (no interval)`` where there is none (one repetition)."""
    interval = interval_text(lo, hi, decimals)
    return f"{figure(score, f',.{decimals}f')} ({'no interval' if interval == '–' else interval})"
