"""A space of configurations with a known landscape, and ranked class tables over it, for
the tests of the stopping rule and of what it says."""

from __future__ import annotations

import numpy as np
import pandas as pd

from sweeper.configuration import Configuration, enumerate_configurations
from sweeper.spec import ConfigSpace
from sweeper.sweep.stopping import missing_values

SPACE = enumerate_configurations(
    ConfigSpace(
        raid_level=["raid5", "raid6", "raid10"],
        layout=["single_rank", "host_stripe", "pool_stripe"],
        ranks=[2, 4, 8],
        stripe_kib={"host_stripe": [16, 256], "pool_stripe": [1048576]},
        cache_policy=["wb-ra", "wb-nora", "wt-ra", "wt-nora"],
    )
)


def smooth(c: Configuration) -> float:
    """A landscape with structure and one clear winner (raid10, wide host stripe, write back)."""
    s = 1000.0 * {"raid5": 1.0, "raid6": 0.8, "raid10": 2.0}[c.raid_level]
    s *= c.rank_count ** (0.9 if c.layout == "host_stripe" else 0.6)
    s *= 1.6 if c.cache_policy.startswith("wb") else 1.0
    s *= 1.1 if c.cache_policy.endswith("-ra") else 1.0
    return s


def table(scores: dict[str, float], name: str = "redo_log", cv_pct: float = 1.0) -> pd.DataFrame:
    """A ranked class table as rank_classes gives it: best first."""
    rows = sorted(scores.items(), key=lambda kv: -kv[1])
    return pd.DataFrame(
        {
            "class": name,
            "rank": range(1, len(rows) + 1),
            "config_key": [k for k, _ in rows],
            "score": [v for _, v in rows],
            "cv_pct": cv_pct,
            "repetitions": 2,
            "cells_measured": 3,
            "meets_limits": True,
        }
    )


def sample(n: int, seed: int) -> list[Configuration]:
    rng = np.random.default_rng(seed)
    picked = [SPACE[i] for i in rng.choice(len(SPACE), n, replace=False)]
    # every value of every dimension once, as the rule asks before it judges
    for c in SPACE:
        if missing_values(picked, SPACE) and missing_values(picked + [c], SPACE) != (
            missing_values(picked, SPACE)
        ):
            picked.append(c)
    return picked
