"""The evidence of a recommendation: the cells that decided it against the runner-up."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from recommender.classes import load_class
from recommender.evidence import evidence, recommendation
from recommender.scoring import rank_classes


def _runs(figures: dict[str, dict[str, float]]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {"config_key": k, "cell_key": c, "repetition": 1, "iops": v}
            for k, cells in figures.items()
            for c, v in cells.items()
        ]
    )


def test_the_cell_terms_add_up_to_the_score_ratio() -> None:
    redo = load_class("redo_log")  # write/4k/…/dsync ×3, write/64k/…/dsync ×1, randwrite/8k ×2
    runs = _runs(
        {
            "a": {
                "write/4k/qd1x1/dsync": 4000,
                "write/64k/qd1x1/dsync": 1000,
                "randwrite/8k/qd1x1": 500,
            },
            "b": {
                "write/4k/qd1x1/dsync": 2000,
                "write/64k/qd1x1/dsync": 1100,
                "randwrite/8k/qd1x1": 500,
            },
        }
    )
    ev = evidence(runs, redo, "a", "b")
    assert ev.iloc[0]["cell"] == "write/4k/qd1x1/dsync"  # the cell that decided it
    assert ev.iloc[0]["ratio"] == pytest.approx(2.0)
    assert ev.set_index("cell").loc["write/64k/qd1x1/dsync", "contribution_pct"] < 0
    ranked = rank_classes(runs, [redo]).set_index("config_key")
    sum_terms = (3 * math.log(2) + math.log(1000 / 1100)) / 6
    assert math.log(ranked.loc["a", "score"] / ranked.loc["b", "score"]) == pytest.approx(sum_terms)


def test_recommendation_and_runner_up_from_a_real_sweep(quick_store) -> None:
    runs = quick_store.runs("quick")
    data_file = load_class("data_file")
    ranked = rank_classes(runs, [data_file])
    best, runner = recommendation(ranked, "data_file")
    assert runner is not None and best["score"] >= runner["score"]
    ev = evidence(runs, data_file, best["config_key"], runner["config_key"])
    assert set(ev["cell"]) == set(data_file.cell_keys)
    assert (ev["repetitions"] == "3/3").all()
    assert ev["contribution_pct"].abs().sum() == pytest.approx(100.0)
