"""The spec's field types: sizes, durations, patterns and concurrencies as the YAML writes
them, parsed into values before the models check them."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, PlainSerializer

from sweeper.units import parse_duration, parse_size
from sweeper.workload import SYNC_MODES, Concurrency, Distribution, Pattern


def _size(v: Any) -> int:
    return parse_size(v)


def _duration(v: Any) -> float:
    return parse_duration(v)


def _pattern(v: Any) -> Pattern:
    if isinstance(v, Pattern):
        return v
    if not isinstance(v, str):
        raise ValueError(f"{v!r} is not a pattern")
    return Pattern.parse(v)


def _concurrency(v: Any) -> Concurrency:
    if isinstance(v, Concurrency):
        return v
    if isinstance(v, dict):
        unknown = set(v) - {"iodepth", "jobs"}
        if unknown or not {"iodepth", "jobs"} <= set(v):
            raise ValueError("write a concurrency as {iodepth: N, jobs: M} or 'NxM'")
        return Concurrency.parse(f"{v['iodepth']}x{v['jobs']}")
    if not isinstance(v, str):
        raise ValueError(f"{v!r} is not a concurrency (write iodepth x jobs, e.g. 1x20 or qd1x20)")
    return Concurrency.parse(v)


def _sync(v: Any) -> str | None:
    """A sync mode; ``none`` is a writing cell without one (plain buffered-by-the-array
    writes)."""
    if not isinstance(v, str) or v not in ("none", *SYNC_MODES):
        raise ValueError(f"{v!r} is not a sync mode (none, {', '.join(SYNC_MODES)})")
    return None if v == "none" else v


def _distribution(v: Any) -> Distribution | None:
    """fio's spelling (``zipf:1.2``); ``uniform`` is fio's default, every block alike."""
    if v is None or isinstance(v, Distribution):
        return v
    if not isinstance(v, str):
        raise ValueError(f"{v!r} is not a random distribution")
    if v == "uniform":
        return None
    return Distribution.parse(v)


Size = Annotated[int, BeforeValidator(_size)]
Duration = Annotated[float, BeforeValidator(_duration)]
PatternField = Annotated[Pattern, BeforeValidator(_pattern), PlainSerializer(lambda p: p.name)]
ConcurrencyField = Annotated[
    Concurrency, BeforeValidator(_concurrency), PlainSerializer(lambda c: c.name)
]
SyncField = Annotated[str | None, BeforeValidator(_sync), PlainSerializer(lambda v: v or "none")]
DistributionField = Annotated[
    Distribution | None,
    BeforeValidator(_distribution),
    PlainSerializer(lambda d: "uniform" if d is None else d.fio),
]


def no_duplicates(values: list[Any], what: str) -> list[Any]:
    seen: set[Any] = set()
    for i, v in enumerate(values):
        if v in seen:
            raise ValueError(f"[{i}] repeats {what} {getattr(v, 'name', v)!r}")
        seen.add(v)
    return values
