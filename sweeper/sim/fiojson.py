"""fio's JSON for a simulated run: latency distributions read off a mixture of shifted gamma
distributions, and the per-direction blocks fio writes."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

PERCENTILES = (1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99)
MIN_CV = 0.05


@dataclass(frozen=True)
class Component:
    """One population of I/Os: ``weight`` of them, each at least ``floor_s`` (the path's own
    minimum service time) plus a gamma-distributed wait and service of mean
    ``mean_s − floor_s`` and coefficient of variation ``cv``."""

    weight: float
    mean_s: float
    cv: float
    floor_s: float = 0.0

    def __post_init__(self) -> None:
        if self.floor_s < 0 or self.mean_s < self.floor_s:
            raise ValueError(f"a latency mean {self.mean_s} below its floor {self.floor_s}")


def _shape_scale(c: Component) -> tuple[float, float]:
    cv = max(c.cv, MIN_CV)
    shape = 1.0 / cv**2
    excess = max(c.mean_s - c.floor_s, 1e-12)
    return shape, excess / shape


def mixture_percentiles(parts: list[Component], quantiles: np.ndarray) -> np.ndarray:
    """Quantiles (seconds) of the weighted mixture; never below the lowest floor, monotone."""
    if len(parts) == 1:
        shape, scale = _shape_scale(parts[0])
        return parts[0].floor_s + special.gammaincinv(shape, quantiles) * scale
    w = np.array([p.weight for p in parts], dtype=float)
    w = w / w.sum()
    lo = min(p.floor_s for p in parts)
    hi = max(p.mean_s for p in parts) * 30 + 1e-6
    grid = np.concatenate(([lo], lo + np.geomspace(1e-9, hi - lo, 1200)))
    cdf = np.zeros_like(grid)
    for weight, p in zip(w, parts, strict=True):
        shape, scale = _shape_scale(p)
        cdf += weight * special.gammainc(shape, np.maximum(grid - p.floor_s, 0.0) / scale)
    cdf = np.maximum.accumulate(cdf)
    return np.interp(quantiles, cdf, grid)


def lat_block(parts: list[Component], count: int, rng: np.random.Generator) -> dict:
    qs = np.asarray(PERCENTILES) / 100.0
    edge = mixture_percentiles(parts, np.array([0.0001, 0.999999]))
    pct = np.maximum.accumulate(mixture_percentiles(parts, qs)) * 1e9
    w = sum(p.weight for p in parts)
    mean = sum(p.weight * p.mean_s for p in parts) / w
    second = 0.0
    for p in parts:
        excess = p.mean_s - p.floor_s
        second += p.weight * (p.mean_s**2 + (max(p.cv, MIN_CV) * excess) ** 2)
    std = math.sqrt(max(0.0, second / w - mean * mean))
    low = min(p.floor_s for p in parts)
    return {
        "min": int(math.ceil(max(edge[0], low) * 1e9)),
        "max": int(max(edge[1], pct[-1] / 1e9) * 1e9 * rng.uniform(1.0, 1.5)),
        "mean": mean * 1e9,
        "stddev": std * 1e9,
        "N": count,
        "percentile": {f"{p:.6f}": int(v) for p, v in zip(PERCENTILES, pct, strict=True)},
    }


def direction(
    iops: float, parts: list[Component], bs: int, runtime_s: float, rng: np.random.Generator
) -> dict:
    total = int(iops * runtime_s)
    if total <= 0 or not parts:
        return empty_direction()
    io_bytes = total * bs
    bw = io_bytes / runtime_s
    lat = lat_block(parts, total, rng)
    return {
        "io_bytes": io_bytes,
        "io_kbytes": io_bytes // 1024,
        "bw_bytes": int(bw),
        "bw": int(bw / 1024),
        "iops": total / runtime_s,
        "runtime": int(runtime_s * 1000),
        "total_ios": total,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0},
        "clat_ns": dict(lat),
        "lat_ns": dict(lat),
        "iops_mean": total / runtime_s,
    }


def empty_direction() -> dict:
    zero = {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}
    return {
        "io_bytes": 0,
        "io_kbytes": 0,
        "bw_bytes": 0,
        "bw": 0,
        "iops": 0.0,
        "runtime": 0,
        "total_ios": 0,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": dict(zero),
        "clat_ns": dict(zero),
        "lat_ns": dict(zero),
        "iops_mean": 0.0,
    }
