"""The frame the app and the CLI rank from (``recommender.data.scoring_frame``) gives the same
decisions, rankings, evidence and margins as the store's whole frame of runs, on the real quick
sweep, and keeps only what the ranking reads."""

from __future__ import annotations

import pandas as pd

from recommender.data import scoring_frame, sweep_classes
from recommender.recommendations import class_recommendations
from recommender.tradeoffs import hardware_facts
from sweeper.store import ParquetStore


def test_same_recommendations_from_the_narrow_frame(quick_store: ParquetStore) -> None:
    record = quick_store.get_sweep("quick")
    runs = quick_store.runs("quick")
    narrow = scoring_frame(runs)
    assert len(narrow) == len(runs)
    assert {"config_key", "cell_key", "repetition", "iops", "mbps", "steady"} <= set(narrow)
    assert not {"run_id", "started_at", "tool_version", "pattern"} & set(narrow)
    args = (sweep_classes(record), hardware_facts(record), record["spec"].get("prices"))
    whole = class_recommendations(runs, *args)
    fast = class_recommendations(narrow, *args)
    assert [r.sentence() for r in fast] == [r.sentence() for r in whole]
    for a, b in zip(whole, fast, strict=True):
        pd.testing.assert_frame_equal(a.ranked, b.ranked)
        pd.testing.assert_frame_equal(a.evidence, b.evidence)
        pd.testing.assert_frame_equal(a.margins, b.margins)
        pd.testing.assert_frame_equal(a.impact, b.impact)
