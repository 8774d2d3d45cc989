"""The spec's field types: sizes, durations, patterns and concurrencies as the YAML writes
them, parsed into values before the models check them."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, PlainSerializer

from sweeper.units import parse_duration, parse_size
from sweeper.workload import Concurrency, Pattern


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
        raise ValueError(f"{v!r} is not a concurrency (write iodepth x jobs, e.g. 1x20)")
    return Concurrency.parse(v)


Size = Annotated[int, BeforeValidator(_size)]
Duration = Annotated[float, BeforeValidator(_duration)]
PatternField = Annotated[Pattern, BeforeValidator(_pattern), PlainSerializer(lambda p: p.name)]
ConcurrencyField = Annotated[
    Concurrency, BeforeValidator(_concurrency), PlainSerializer(lambda c: c.name)
]


def no_duplicates(values: list[Any], what: str) -> list[Any]:
    seen: set[Any] = set()
    for i, v in enumerate(values):
        if v in seen:
            raise ValueError(f"[{i}] repeats {what} {getattr(v, 'name', v)!r}")
        seen.add(v)
    return values
