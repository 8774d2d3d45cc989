"""The app ranks a finished sweep in the background once Overview has read its runs, and
takes the ranking's columns from that read: Recommendations opened next shows the same
decisions as the recommender ranking the store itself."""

from __future__ import annotations

import pandas as pd
import pytest

from app_pages import _common
from recommender.data import SCORING_COLUMNS, load_recommendations
from sweeper.store import ParquetStore
from tests.support.apptest import open_app as _landing


def test_overview_ranks_a_finished_sweep_ahead(
    quick_store: ParquetStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    _common._RANKED_AHEAD.clear()
    _common._recommendations.clear()
    _landing(monkeypatch, quick_store.root)
    (record,) = quick_store.list_sweeps()
    held = _common._RANKED_AHEAD.get((str(quick_store.root), record["sweep_id"]))
    assert held is not None, "Overview did not rank the finished sweep ahead"
    ahead = held[1].result(timeout=60)
    own = load_recommendations(quick_store, record)
    assert [r.sentence() for r in ahead] == [r.sentence() for r in own]
    for mine, theirs in zip(ahead, own, strict=True):
        pd.testing.assert_frame_equal(mine.ranked, theirs.ranked)
        pd.testing.assert_frame_equal(mine.evidence, theirs.evidence)


def test_recommendations_after_overview_shows_the_recommenders_decision(
    quick_store: ParquetStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    _common._RANKED_AHEAD.clear()
    _common._recommendations.clear()
    at = _landing(monkeypatch, quick_store.root)
    at.switch_page("app_pages/recommendations.py").run()
    assert not at.exception, [e.message for e in at.exception]
    (record,) = quick_store.list_sweeps()
    first = load_recommendations(quick_store, record)[0]
    assert first.sentence() in at.success[0].value.replace("\\", "")


def test_the_rankings_columns_from_the_whole_read_are_the_stores_own(
    quick_store: ParquetStore,
) -> None:
    (record,) = quick_store.list_sweeps()
    sweep_id, root = record["sweep_id"], str(quick_store.root)
    sig = _common.signature(quick_store, sweep_id)
    _common._attempts.clear()
    _common._scoring_runs.clear()
    _common._attempts(root, sweep_id, sig)
    taken = _common._scoring_runs(root, sweep_id, sig)
    read = quick_store.runs(sweep_id, columns=SCORING_COLUMNS)
    pd.testing.assert_frame_equal(taken, read)


def test_nothing_is_ranked_ahead_before_the_runs_are_read(quick_store: ParquetStore) -> None:
    (record,) = quick_store.list_sweeps()
    _common._RANKED_AHEAD.clear()
    _common._attempts.clear()
    _common._READ_WHOLE.clear()
    _common.rank_ahead(quick_store, record)
    assert _common._RANKED_AHEAD == {}
