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
    LINKED_KEY,
    START_COMMAND,
    SWEEP_KEY,
    UNKNOWN_KEY,
    _damaged_record,
    how_to_start,
    page_link,
    record_damage,
    require_sweep,
    sweep_from_address,
    sweep_in_address,
    unknown_sweep_note,
)
from app_pages._ahead import (
    _AHEAD,
    _HOLDING,
    _RANKED_AHEAD,
    RANKED_KEPT,
    _hold,
    _ranked,
    rank_ahead,
)
from app_pages._left_out import (
    _LEFT_OUT,
    _LEFT_OUT_LOCK,
    LEFT_OUT_SHOWN,
    _note_left_out,
    _read,
    left_out,
    named_files,
    say_left_out,
)
from app_pages._live import REFRESH_S, is_running, live, working
from app_pages._ranking import _importances, _recommendations, importances, recommendations
from app_pages._reads import (
    _READ_WHOLE,
    READING,
    _attempts,
    _configurations,
    _curves,
    _ok,
    _ReadOnce,
    _scoring_runs,
    _status,
    _sweep_key,
    attempts,
    configurations,
    curves,
    runs,
    status,
)
from app_pages._session import _NOTHING, KEPT_KEY, keep, kept, kept_index
from app_pages._store import (
    DEFAULT_STORE,
    STORE_ENV,
    get_store,
    signature,
    store_root,
    sweep_ids,
)

__all__ = [
    "DEFAULT_STORE",
    "KEPT_KEY",
    "LEFT_OUT_SHOWN",
    "LINKED_KEY",
    "RANKED_KEPT",
    "READING",
    "REFRESH_S",
    "START_COMMAND",
    "STORE_ENV",
    "SWEEP_KEY",
    "UNKNOWN_KEY",
    "_AHEAD",
    "_HOLDING",
    "_LEFT_OUT",
    "_LEFT_OUT_LOCK",
    "_NOTHING",
    "_RANKED_AHEAD",
    "_READ_WHOLE",
    "_ReadOnce",
    "_attempts",
    "_configurations",
    "_curves",
    "_damaged_record",
    "_hold",
    "_importances",
    "_note_left_out",
    "_ok",
    "_ranked",
    "_read",
    "_recommendations",
    "_scoring_runs",
    "_status",
    "_sweep_key",
    "attempts",
    "configurations",
    "curves",
    "get_store",
    "how_to_start",
    "importances",
    "is_running",
    "keep",
    "kept",
    "kept_index",
    "left_out",
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
    "store_root",
    "sweep_from_address",
    "sweep_ids",
    "sweep_in_address",
    "unknown_sweep_note",
    "working",
]
