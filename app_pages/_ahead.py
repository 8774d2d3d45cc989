"""Ranking ahead: a finished sweep ranked in the background once a page has read all its runs,
and the rankings done or under way held for the next page (``_ranking`` takes them)."""

from __future__ import annotations

import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pandas as pd

from app_pages._left_out import _read
from app_pages._live import is_running
from app_pages._reads import _READ_WHOLE, _scoring_runs, _sweep_key
from recommender.data import load_recommendations
from recommender.recommendations import ClassRecommendation
from sweeper.store import ParquetStore


def _ranked(
    root: str, sweep_id: str, sig: tuple, record: dict[str, Any], runs: pd.DataFrame
) -> list[ClassRecommendation]:
    """``load_recommendations`` of ``runs``; what its reads of the store left out, kept."""
    return _read(root, sweep_id, sig, lambda s: load_recommendations(s, record, runs))


#: how many sweeps' rankings are kept for the next page (``_recommendations`` keeps as many)
RANKED_KEPT = 8
#: ranks a finished sweep in the background, one sweep at a time (``rank_ahead``)
_AHEAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rank-ahead")
#: per store and sweep, the ranking done or under way and the (creation, signature) it is of
_RANKED_AHEAD: dict[tuple[str, str], tuple[tuple[str, tuple], Future]] = {}
_HOLDING = threading.Lock()


def rank_ahead(store: ParquetStore, record: dict[str, Any]) -> None:
    """Rank a finished sweep in the background once a page has read all its runs, so that
    Recommendations (and every page built on the ranking) opens on a ranking already made or
    under way. The same ``load_recommendations`` of the same runs as the page's own; nothing
    is done while a sweep runs (its signature changes with every run) or when the sweep is
    ranked already."""
    root, sweep_id, created_at, sig = _sweep_key(store, record)
    ahead = _RANKED_AHEAD.get((root, sweep_id))
    if (ahead is not None and ahead[0] == (created_at, sig)) or is_running(store, sweep_id):
        return
    if _READ_WHOLE.get((root, sweep_id)) != sig:
        return  # reading the runs here would hold the page up
    runs = _scoring_runs(root, sweep_id, sig)
    job = _AHEAD.submit(_ranked, root, sweep_id, sig, record, runs)
    _hold((root, sweep_id), (created_at, sig), job)


def _hold(sweep: tuple[str, str], of: tuple[str, tuple], ranking: Future) -> None:
    """Keep ``ranking`` for the next page, for the sweeps last ranked (as many as the cache)."""
    with _HOLDING:  # every session's script thread keeps rankings here
        _RANKED_AHEAD.pop(sweep, None)
        _RANKED_AHEAD[sweep] = (of, ranking)
        while len(_RANKED_AHEAD) > RANKED_KEPT:
            del _RANKED_AHEAD[next(iter(_RANKED_AHEAD))]
