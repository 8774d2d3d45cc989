"""The rank caption's claims (recommender.views.RANK_CAPTION) hold on the rankings themselves:
random intervals of every width, the case the old ranks got wrong, and the real quick sweep.

Each claim is checked from the table alone, as an engineer reading it would: the label, the
interval and the row.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from recommender.data import sweep_classes
from recommender.scoring import RANK_COLUMNS, rank, rank_classes
from recommender.views import RANK_CAPTION, rank_label
from sweeper.store import ParquetStore


def _overlap(a: pd.Series, b: pd.Series) -> bool:
    return bool(a["score_lo"] <= b["score_hi"] and b["score_lo"] <= a["score_hi"])


def caption_broken(ranked: pd.DataFrame) -> list[str]:
    """Every place where one class's ranking (as shown, in order) contradicts the caption."""
    problems: list[str] = []
    rows = ranked.reset_index(drop=True)
    labels = [rank_label(r, t) for r, t in zip(rows["rank"], rows["tied"], strict=True)]
    complete = rows["cells_measured"] == rows["cells_measured"].max()
    tier = np.where(~rows["meets_limits"].astype(bool), 2, np.where(complete, 0, 1))
    if list(tier) != sorted(tier):
        problems.append("limit breakers or part-measured configurations above the rest")
    for i in range(1, len(rows)):
        if tier[i] == tier[i - 1] and rows.loc[i, "score"] > rows.loc[i - 1, "score"]:
            problems.append(f"row {i + 1}: a higher mean score below row {i}")
    leaders: dict[int, int] = {}  # rank number -> its row
    for i, row in rows.iterrows():
        label = labels[i]
        if label.startswith("="):
            n = int(label[1:])
            lead = leaders.get(n)
            if lead is None:
                problems.append(f"row {i + 1} {label}: no configuration ranked {n} above it")
            elif not _overlap(row, rows.loc[lead]):
                problems.append(f"row {i + 1} {label}: its interval misses rank {n}'s")
            elif lead != max(leaders.values()):
                problems.append(f"row {i + 1} {label}: rank {n} is not the rank just above it")
        else:
            if int(label) != i + 1:
                problems.append(f"row {i + 1} is ranked {label}, not its row")
            if leaders:
                n, j = max(leaders.items(), key=lambda kv: kv[1])
                if tier[j] == tier[i] and _overlap(row, rows.loc[j]):
                    problems.append(f"row {i + 1} ({label}) overlaps rank {n} just above it")
            leaders[int(label)] = int(i)
    return problems


def scored(intervals: list[tuple[float, float, float]]) -> pd.DataFrame:
    """A scored table (what score_class returns) from (score, lo, hi) triples."""
    n = len(intervals)
    return pd.DataFrame(
        {
            "class": "c",
            "config_key": [f"k{i:03d}" for i in range(n)],
            "score": [s for s, _, _ in intervals],
            "score_lo": [lo for _, lo, _ in intervals],
            "score_hi": [hi for _, _, hi in intervals],
            "cv_pct": 1.0,
            "repetitions": 3,
            "cells_measured": 4,
            "cells_missing": "",
            "meets_limits": True,
            "violations": "",
            "key_cell": "x",
            "key_value": 1.0,
            "worst_latency": "",
            "unsteady_runs": 0,
            "flagged_runs": 0,
        }
    )[[c for c in RANK_COLUMNS if c not in ("rank", "tied")]]


def test_the_caption_says_what_the_labels_mean() -> None:
    assert "1, =1, =1, 4" in RANK_CAPTION and "95% intervals overlap" in RANK_CAPTION


def test_eight_ties_are_followed_by_nine() -> None:
    """Eight configurations within one another's intervals, then one clearly below: the old
    ranks gave the ninth "3" (two configurations lay wholly above it)."""
    top = [(1000 - 5 * i, 1000 - 5 * i - 30, 1000 - 5 * i + 30) for i in range(8)]
    ranked = rank(scored([*top, (930, 925, 936)]))
    labels = [rank_label(r, t) for r, t in zip(ranked["rank"], ranked["tied"], strict=True)]
    assert labels == ["1", *["=1"] * 7, "9"]
    assert caption_broken(ranked) == []


def test_a_wide_interval_stays_in_order_of_mean() -> None:
    """A lower mean with a wide interval that reaches rank 1 stays below a higher mean that
    is clearly below rank 1, tied with that one's rank: a reader never sees a lower mean
    ranked above a higher one (it once read "=1 90 (60–120)" above "3 95 (94–96)")."""
    ranked = rank(scored([(100, 99, 101), (95, 94, 96), (90, 60, 120)]))
    assert list(ranked["config_key"]) == ["k000", "k001", "k002"]
    labels = [rank_label(r, t) for r, t in zip(ranked["rank"], ranked["tied"], strict=True)]
    assert labels == ["1", "2", "=2"]
    assert caption_broken(ranked) == []


def test_limit_breakers_rank_after_and_the_numbers_go_on() -> None:
    table = scored([(100, 90, 110), (99, 89, 109), (50, 49, 51)])
    table.loc[0, ["meets_limits", "violations"]] = [False, "write/4k/qd1x1: p99 2 ms > 1ms"]
    ranked = rank(table)
    assert list(ranked["config_key"]) == ["k001", "k002", "k000"]
    assert list(ranked["rank"]) == [1, 2, 3] and not ranked["tied"].any()
    assert caption_broken(ranked) == []


@pytest.mark.parametrize("seed", range(40))
def test_random_intervals_keep_the_caption(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 60))
    means = rng.uniform(100, 200, n)
    halves = rng.uniform(0, 30, n) * (rng.random(n) < 0.9)  # some intervals of width zero
    table = scored(list(zip(means, means - halves, means + halves, strict=True)))
    table["meets_limits"] = rng.random(n) < 0.8
    table["cells_measured"] = np.where(rng.random(n) < 0.85, 4, 3)
    ranked = rank(table)
    assert sorted(ranked["config_key"]) == sorted(table["config_key"])
    assert caption_broken(ranked) == []


def test_the_quick_sweep_keeps_the_caption(quick_store: ParquetStore) -> None:
    record = quick_store.get_sweep("quick")
    ranked = rank_classes(quick_store.runs("quick"), sweep_classes(record))
    assert ranked["class"].nunique() >= 2
    assert ranked["tied"].any()  # the quick sweep has ties: the claim is not vacuous
    for name, part in ranked.groupby("class", sort=False):
        assert caption_broken(part) == [], name
