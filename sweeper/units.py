"""Sizes and durations as storage engineers write them (``8k``, ``1M``, ``90s``, ``12h``)."""

from __future__ import annotations

import math
import re

# Matched whole (fullmatch): ``$`` would let a trailing newline through.
_SIZE_RE = re.compile(r"\s*(\d{1,30}(?:\.\d{1,30})?)\s*([kmgtp]?)(i?b?)\s*", re.IGNORECASE)
_SIZE_FACTORS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4, "p": 1024**5}

_DURATION_RE = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)", re.IGNORECASE)
_DURATION_FACTORS = {"ms": 0.001, "s": 1, "m": 60, "h": 3600, "d": 86400}

_LATENCY_RE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*(ns|us|µs|ms|s)\s*", re.IGNORECASE)
_LATENCY_TO_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1000.0}
#: the largest size taken (8 EiB): beyond it a size is a typo, and fio's counters overflow
MAX_SIZE = 2**63 - 1
#: the longest duration taken (a year): beyond it a duration is a typo (or infinite)
MAX_DURATION_S = 366 * 86400.0


def _finite(value: float, text: object, what: str) -> float:
    if not math.isfinite(value):
        raise ValueError(f"{text!r} is not a finite {what}")
    return value


def parse_size(value: str | int) -> int:
    """Bytes from ``4k``/``4KiB``/``1m``/``360g`` (binary multiples, as fio reads them)."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a size")
    if isinstance(value, int):
        if value <= 0:
            raise ValueError(f"{value!r} is not a positive size")
        if value > MAX_SIZE:
            raise ValueError(f"{value!r} is larger than 8 EiB")
        return value
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a size")
    m = _SIZE_RE.fullmatch(value)
    if not m:
        raise ValueError(f"{value!r} is not a size")
    number = _finite(float(m.group(1)) * _SIZE_FACTORS[m.group(2).lower()], value, "size")
    if number <= 0 or number != int(number):
        raise ValueError(f"{value!r} is not a positive whole number of bytes")
    if number > MAX_SIZE:
        raise ValueError(f"{value!r} is larger than 8 EiB")
    return int(number)


def format_size(nbytes: int) -> str:
    """Shortest fio-style spelling: 4096 -> ``4k``, 1048576 -> ``1m``."""
    for unit in ("p", "t", "g", "m", "k"):
        factor = _SIZE_FACTORS[unit]
        if nbytes >= factor and nbytes % factor == 0:
            return f"{nbytes // factor}{unit}"
    return str(nbytes)


def parse_duration(value: str | int | float) -> float:
    """Seconds from ``90``, ``90s``, ``5m``, ``1h30m``, ``12h``."""
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a duration")
    if isinstance(value, int | float):
        if isinstance(value, float) and math.isnan(value):
            raise ValueError(f"{value!r} is not a duration")
        if value < 0:
            raise ValueError(f"{value!r} is a negative duration")
        if isinstance(value, int) and value > MAX_DURATION_S:
            raise ValueError(f"{value!r} is longer than a year")
        return _bounded_duration(float(value), value)
    if not isinstance(value, str):
        raise ValueError(f"{value!r} is not a duration")
    text = value.strip().replace(" ", "")
    if re.fullmatch(r"\d+(\.\d+)?", text):
        return _bounded_duration(float(text), value)
    parts = _DURATION_RE.findall(text)
    if not parts or "".join(n + u for n, u in parts).lower() != text.lower():
        raise ValueError(f"{value!r} is not a duration (use e.g. 90s, 5m, 12h)")
    return _bounded_duration(sum(float(n) * _DURATION_FACTORS[u.lower()] for n, u in parts), value)


def _bounded_duration(seconds: float, text: object) -> float:
    _finite(seconds, text, "duration")
    if seconds > MAX_DURATION_S:
        raise ValueError(f"{text!r} is longer than a year")
    return seconds


def format_duration(seconds: float) -> str:
    """``1h02m``, ``3m20s``, ``45s`` — compact, for progress and reports."""
    seconds = max(0.0, float(seconds))
    if seconds < 60:
        return f"{seconds:.0f}s"
    minutes, sec = divmod(int(round(seconds)), 60)
    if minutes < 60:
        return f"{minutes}m{sec:02d}s"
    hours, minutes = divmod(minutes, 60)
    if hours < 48:
        return f"{hours}h{minutes:02d}m"
    days, hours = divmod(hours, 24)
    return f"{days}d{hours:02d}h"


def parse_latency_ms(value: str) -> float:
    """Milliseconds from a latency with its unit (``20ms``, ``500us``); a bare number is refused."""
    if not isinstance(value, str):
        raise ValueError(f"{value!r} has no unit (write e.g. 20ms or 500us)")
    m = _LATENCY_RE.fullmatch(value)
    if not m:
        raise ValueError(f"{value!r} is not a latency with a unit (write e.g. 20ms or 500us)")
    return _finite(float(m.group(1)) * _LATENCY_TO_MS[m.group(2).lower()], value, "latency")


def format_ms(ms: float) -> str:
    """A latency in milliseconds to the precision it has: two decimals from 1 ms (``13.27``),
    three significant figures below (``0.104``, ``0.0371``), so that a flash array's
    sub-millisecond figures are not rounded to ``0.10`` or ``0.00``."""
    value = float(ms)
    if not math.isfinite(value) or abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"
