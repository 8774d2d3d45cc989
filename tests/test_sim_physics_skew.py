"""A skewed distribution sends at least its share of the I/O to the hottest blocks: the
hottest share ``c`` of the working set never receives less than ``c`` of it."""

from __future__ import annotations

import pytest

from sweeper.sim.skew import hot_share

DISTRIBUTIONS = [
    "zipf:0.2",
    "zipf:0.8",
    "zipf:1.2",
    "zipf:2.5",
    "pareto:0.05",
    "pareto:0.1",
    "pareto:0.3",
    "pareto:0.5",
    "pareto:0.7",
    "pareto:0.9",
    "pareto:0.99",
    "normal:1",
    "normal:20",
    "normal:100",
]


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_the_hottest_share_gets_at_least_its_share(distribution: str) -> None:
    for c in (1e-4, 0.01, 0.1, 0.3, 0.5, 0.9, 0.999):
        assert hot_share(distribution, c, 1e6) >= c - 1e-12, (distribution, c)


@pytest.mark.parametrize("h", [0.1, 0.3, 0.7, 0.9])
def test_pareto_matches_fios_draw(h: float) -> None:
    # fio draws block M·u^p, p = ln h / ln(1 − h): count the draws in the hottest tenth
    import math

    import numpy as np

    p = math.log(h) / math.log(1 - h)
    draws = np.random.default_rng(1).random(200_000) ** p
    counts = np.histogram(draws, bins=1000, range=(0.0, 1.0))[0]
    hottest = np.sort(counts)[::-1][:100].sum() / draws.size
    assert hot_share(f"pareto:{h}", 0.1, 1e6) == pytest.approx(hottest, abs=0.02)
