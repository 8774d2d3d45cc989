"""Latencies printed to the precision they have: sub-millisecond figures keep three
significant figures instead of rounding to 0.10 or 0.00."""

from __future__ import annotations

import math

import pytest

from sweeper.units import format_ms


@pytest.mark.parametrize(
    "ms, text",
    [
        (0.105984, "0.106"),
        (0.0371, "0.0371"),
        (0.0004, "0.0004"),
        (0.0, "0"),
        (0.999, "0.999"),
        (1.0, "1.00"),
        (13.274, "13.27"),
        (20_000.4, "20000.40"),
        (-0.25, "-0.25"),
        (math.nan, "nan"),
    ],
)
def test_format_ms(ms: float, text: str) -> None:
    assert format_ms(ms) == text
