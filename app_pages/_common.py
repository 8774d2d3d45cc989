"""The app's hold on the store, as the pages reach it (through ``_frame``; the tables they show
are ``recommender.views``): one name for what the modules beside it each do.

The store is only read. Cached reads are keyed on a signature of the sweep's folder (how many
run and configuration parts it holds, when its progress file last changed), so a run that lands
in the store changes the key and the next render reads it: the app never goes stale while a
sweep writes.

- ``_store``: where the store is, its sweeps, a sweep's signature;
- ``_address``: the sweep shown, from the address and the sidebar, or why none can be;
- ``_session``: the pages' choices kept across pages;
- ``_live``: whether a sweep runs, and the page redrawn while it does;
- ``_left_out``: the files the reads left out, named on every page;
- ``_reads``: the cached reads of a sweep's runs, configurations, curves and status;
- ``_ahead``: a finished sweep ranked in the background for the next page;
- ``_ranking``: the cached ranking and what matters to each class.
"""

from __future__ import annotations

from app_pages._address import (
    SWEEP_KEY,
    page_link,
    record_damage,
    require_sweep,
    sweep_from_address,
    sweep_in_address,
)
from app_pages._ahead import _RANKED_AHEAD, rank_ahead
from app_pages._left_out import named_files, say_left_out
from app_pages._live import is_running, live, working
from app_pages._ranking import _recommendations, importances, recommendations
from app_pages._reads import (
    _READ_WHOLE,
    _attempts,
    _scoring_runs,
    configurations,
    curves,
    runs,
    status,
)
from app_pages._session import keep, kept, kept_index
from app_pages._store import get_store, signature, sweep_ids

__all__ = [
    "SWEEP_KEY",
    "_RANKED_AHEAD",
    "_READ_WHOLE",
    "_attempts",
    "_recommendations",
    "_scoring_runs",
    "configurations",
    "curves",
    "get_store",
    "importances",
    "is_running",
    "keep",
    "kept",
    "kept_index",
    "live",
    "named_files",
    "page_link",
    "rank_ahead",
    "recommendations",
    "record_damage",
    "require_sweep",
    "runs",
    "say_left_out",
    "signature",
    "status",
    "sweep_from_address",
    "sweep_ids",
    "sweep_in_address",
    "working",
]
