"""The frame the app and the CLI rank from (``recommender.data.scoring_frame``) gives the same
decisions, rankings, evidence and margins as the store's whole frame of runs, on the real quick
sweep, and keeps only what the ranking reads."""

from __future__ import annotations

import pandas as pd

from recommender.data import SCORING_COLUMNS, load_recommendations, scoring_frame, sweep_classes
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


def test_the_store_read_of_the_scoring_columns_is_the_narrow_frame(
    quick_store: ParquetStore,
) -> None:
    """The app and the CLI read only SCORING_COLUMNS of the store: the frame they rank is the
    one the whole read narrows to, so every decision, ranking and figure is the same."""
    read = quick_store.runs("quick", columns=SCORING_COLUMNS)
    assert list(read.columns) == list(SCORING_COLUMNS)
    pd.testing.assert_frame_equal(scoring_frame(read), scoring_frame(quick_store.runs("quick")))
    record = quick_store.get_sweep("quick")
    whole = load_recommendations(quick_store, record, quick_store.runs("quick"))
    assert [r.sentence() for r in load_recommendations(quick_store, record)] == [
        r.sentence() for r in whole
    ]
