"""The sweep's ranking as the pages show it, cached: per class the decision and its evidence
(``recommendations``) and what matters to each class (``importances``)."""

from __future__ import annotations

from concurrent.futures import Future
from typing import Any

import pandas as pd
import streamlit as st

from app_pages._ahead import _RANKED_AHEAD, _hold, _ranked
from app_pages._live import working
from app_pages._reads import _scoring_runs, _sweep_key
from recommender.importance import class_importances
from recommender.recommendations import ClassRecommendation
from recommender.views import ranked_all
from sweeper.errors import InputError
from sweeper.store import ParquetStore


@st.cache_data(max_entries=8, show_spinner=False)
def _recommendations(
    root: str, sweep_id: str, created_at: str, sig: tuple, _record: dict[str, Any]
) -> list[ClassRecommendation]:
    ahead = _RANKED_AHEAD.get((root, sweep_id))
    if ahead is not None and ahead[0] == (created_at, sig):
        return ahead[1].result()  # ranked, or being ranked, in the background
    runs = _scoring_runs(root, sweep_id, sig)
    done: Future[list[ClassRecommendation]] = Future()
    done.set_result(_ranked(root, sweep_id, sig, _record, runs))
    _hold((root, sweep_id), (created_at, sig), done)
    return done.result()


@st.cache_data(max_entries=8, show_spinner=False)
def _importances(
    root: str, sweep_id: str, created_at: str, sig: tuple, _record: dict[str, Any]
) -> pd.DataFrame:
    ranked = ranked_all(_recommendations(root, sweep_id, created_at, sig, _record))
    if ranked.empty:
        return pd.DataFrame(columns=["class", "dimension", "importance"])
    return class_importances(ranked)


def recommendations(store: ParquetStore, record: dict[str, Any]) -> list[ClassRecommendation]:
    """``load_recommendations`` for the sweep: per class the decision, trade-offs, evidence.

    A class file that no longer loads (edited or removed since the sweep) stops the page with
    its problem, not a traceback.
    """
    try:
        with working(store, record["sweep_id"], "Ranking the configurations…"):
            return _recommendations(*_sweep_key(store, record), record)
    except InputError as exc:
        # the problem names files and quotes them: as text, never as Markdown (a ``` in it
        # would end a fenced block early)
        st.error("The sweep's workload classes cannot be loaded:", icon=":material/error:")
        st.code(exc.render(), language=None, wrap_lines=True)
        st.stop()
        raise  # st.stop() raises; this line only tells type checkers the function ends here


def importances(store: ParquetStore, record: dict[str, Any]) -> pd.DataFrame:
    """Rows of (class, dimension, importance) for every class with enough configurations."""
    with working(store, record["sweep_id"], "Weighing the dimensions…"):
        return _importances(*_sweep_key(store, record), record)
