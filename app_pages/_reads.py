"""The app's cached reads of a sweep in the store: every attempt, the good runs, the
configurations, the curves and the status, keyed on the sweep's signature (``_store``), so a
run that lands in the store changes the key and the next render reads it."""

from __future__ import annotations

import time
from typing import Any

import pandas as pd
import streamlit as st

from app_pages._left_out import _read
from app_pages._live import REFRESH_S, working
from app_pages._store import signature
from recommender.curves import sweep_curves
from recommender.data import SCORING_COLUMNS
from sweeper.status import SweepStatus, sweep_status
from sweeper.store import ParquetStore

#: what a page says while it reads a sweep's runs (``working``)
READING = "Reading the store…"


# The runs of a sweep are the largest thing the app holds (100,000 rows for a large sweep):
# st.cache_resource hands every page the same frame instead of unpickling a copy per rerun, so
# callers must never modify it (filter, assign and merge return new frames; that is all the
# pages do). One read of every attempt serves both the good runs and the failed counts.
@st.cache_resource(max_entries=4, show_spinner=False)
def _attempts(root: str, sweep_id: str, sig: tuple) -> pd.DataFrame:
    _READ_WHOLE[(root, sweep_id)] = sig
    return _read(root, sweep_id, sig, lambda s: s.runs(sweep_id, include_failed=True))


#: per store and sweep, the signature at which ``_attempts`` last read every attempt: the
#: ranking then takes its columns from that frame instead of reading them again
_READ_WHOLE: dict[tuple[str, str], tuple] = {}


def _ok(attempts: pd.DataFrame) -> pd.DataFrame:
    if not len(attempts):
        return attempts
    return attempts[attempts["status"] == "ok"].reset_index(drop=True)


# What the ranking reads of the good runs, read alone (a third fewer columns, none of the run's
# other text): Recommendations, the first page, then never waits for a read of everything;
# taken from the frame of every attempt when a page (the landing Overview) has read it already.
# Shared like ``_attempts``: never to be modified.
@st.cache_resource(max_entries=4, show_spinner=False)
def _scoring_runs(root: str, sweep_id: str, sig: tuple) -> pd.DataFrame:
    if _READ_WHOLE.get((root, sweep_id)) == sig:  # a page read every attempt (Overview)
        whole = _attempts(root, sweep_id, sig)
        if set(SCORING_COLUMNS) <= set(whole.columns):
            return _ok(whole)[list(SCORING_COLUMNS)]
    return _read(root, sweep_id, sig, lambda s: s.runs(sweep_id, columns=SCORING_COLUMNS))


@st.cache_data(max_entries=8, show_spinner=False)
def _configurations(root: str, sweep_id: str, sig: tuple) -> pd.DataFrame:
    return _read(root, sweep_id, sig, lambda s: s.configurations(sweep_id))


@st.cache_data(max_entries=8, show_spinner=False)
def _curves(root: str, sweep_id: str, sig: tuple, _matrix: dict[str, Any]) -> pd.DataFrame:
    return sweep_curves(_ok(_attempts(root, sweep_id, sig)), _matrix)


class _ReadOnce:
    """The store as ``sweep_status`` reads it, its runs and configurations taken from the
    app's cached reads: the Overview's status costs no second read of every run."""

    def __init__(self, root: str, sweep_id: str, sig: tuple) -> None:
        self._store, self._sweep_id, self._sig = ParquetStore(root), sweep_id, sig

    def runs(self, sweep_id: str, *, include_failed: bool = False) -> pd.DataFrame:
        if sweep_id != self._sweep_id:
            return self._store.runs(sweep_id, include_failed=include_failed)
        every = _attempts(str(self._store.root), sweep_id, self._sig)
        return every if include_failed else _ok(every)

    def configurations(self, sweep_id: str) -> pd.DataFrame:
        if sweep_id != self._sweep_id:
            return self._store.configurations(sweep_id)
        return _configurations(str(self._store.root), sweep_id, self._sig)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


@st.cache_data(max_entries=8, show_spinner=False)
def _status(root: str, sweep_id: str, sig: tuple, tick: int) -> SweepStatus:
    return sweep_status(_ReadOnce(root, sweep_id, sig), sweep_id)  # type: ignore[arg-type]


def attempts(store: ParquetStore, sweep_id: str) -> pd.DataFrame:
    """Every run attempt, failed ones included (shared: do not modify)."""
    with working(store, sweep_id, READING):
        return _attempts(str(store.root), sweep_id, signature(store, sweep_id))


def runs(store: ParquetStore, sweep_id: str, *, include_failed: bool = False) -> pd.DataFrame:
    """The sweep's good runs (or every attempt), without the bulky raw columns."""
    all_attempts = attempts(store, sweep_id)
    return all_attempts if include_failed else _ok(all_attempts)


def configurations(store: ParquetStore, sweep_id: str) -> pd.DataFrame:
    return _configurations(str(store.root), sweep_id, signature(store, sweep_id))


def _sweep_key(store: ParquetStore, record: dict[str, Any]) -> tuple[str, str, str, tuple]:
    """What the reads of a whole sweep are cached on: store, sweep, its creation, signature."""
    sweep_id = record["sweep_id"]
    return str(store.root), sweep_id, str(record.get("created_at", "")), signature(store, sweep_id)


def curves(store: ParquetStore, record: dict[str, Any]) -> pd.DataFrame:
    """``sweep_curves`` of the sweep: Speed, Optimum and Maximum per curve."""
    sweep_id = record["sweep_id"]
    matrix = (record.get("spec") or {}).get("matrix") or {}
    with working(store, sweep_id, "Finding the curves…"):
        return _curves(str(store.root), sweep_id, signature(store, sweep_id), matrix)


def status(store: ParquetStore, sweep_id: str) -> SweepStatus:
    """``sweep_status``; while the progress file says running it is read afresh every tick, so
    a sweep whose process died shows as interrupted."""
    progress = store.read_progress(sweep_id) or {}
    tick = int(time.monotonic() // REFRESH_S) if progress.get("state") == "running" else 0
    with working(store, sweep_id, READING):
        return _status(str(store.root), sweep_id, signature(store, sweep_id), tick)
