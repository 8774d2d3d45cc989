"""Skewed random access as fio generates it, and the cache hit ratio it gives: a cache that
holds the hottest share ``c`` of the working set serves the share of accesses that fall
there (``README.md``, "Skewed access")."""

from __future__ import annotations

import math

#: terms of a generalised harmonic number summed exactly before the integral takes over
_EXACT_TERMS = 1000


def _harmonic(n: float, theta: float) -> float:
    """H(n, θ) = Σ_{k=1..n} k^−θ: the first terms exactly, the rest by the midpoint integral."""
    exact = int(min(n, _EXACT_TERMS))
    total = sum(k**-theta for k in range(1, exact + 1))
    if n > exact:
        a, b = exact + 0.5, n + 0.5
        total += (b ** (1 - theta) - a ** (1 - theta)) / (1 - theta)
    return total


def hot_share(distribution: str | None, cached: float, blocks: float) -> float:
    """Share of accesses that fall on the hottest ``cached`` share (0–1) of ``blocks`` blocks.

    * uniform (None): ``c``;
    * ``zipf:θ`` (block of rank k drawn with weight k^−θ): ``H(cM, θ) / H(M, θ)``;
    * ``pareto:h`` (fio draws block ``M · u^p``, ``p = ln h / ln(1 − h)``): for ``p < 1``
      (``h > 0.5``) the draws crowd at the top of the range, ``1 − (1 − c)^(1/p)``; for
      ``p > 1`` (``h < 0.5``) at the bottom, ``c^(1/p)``;
    * ``normal:σ%`` (a gaussian of deviation σ% of the range about its middle, the hot
      window centred): ``erf(c / (2√2 σ)) / erf(1 / (2√2 σ))``.
    """
    c = min(1.0, max(0.0, cached))
    if distribution is None or c in (0.0, 1.0):
        return c
    name, _, param = distribution.partition(":")
    value = float(param)
    if name == "zipf":
        m = max(1.0, blocks)
        return min(1.0, _harmonic(max(1.0, c * m), value) / _harmonic(m, value))
    if name == "pareto":
        power = math.log(value) / math.log(1.0 - value)
        if power > 1.0:  # draws crowd at the bottom of the range: the hottest blocks
            return c ** (1.0 / power)
        return 1.0 - (1.0 - c) ** (1.0 / power)
    if name == "normal":
        sigma = value / 100.0
        return math.erf(c / (2 * math.sqrt(2) * sigma)) / math.erf(1 / (2 * math.sqrt(2) * sigma))
    raise ValueError(f"{distribution!r} is not a random distribution the model knows")
