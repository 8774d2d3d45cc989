"""Shared helpers of the app's pages: the store, the chosen sweep, cached reads, live refresh.

The store is only read here. Cached reads are keyed on a signature of the sweep's folder (how
many run and configuration parts it holds, when its progress file last changed), so a run that
lands in the store changes the key and the next render reads it: the app never goes stale while
a sweep writes.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from recommender.data import load_rankings
from sweeper.status import SweepStatus, sweep_status
from sweeper.store import ParquetStore
from sweeper.units import format_size

STORE_ENV = "RAIDSWEEP_STORE"
DEFAULT_STORE = "raidsweep-data"
REFRESH_S = 2
START_COMMAND = "raidsweep run examples/quick.yaml"


# store and sweep ------------------------------------------------------------------------------
def store_root() -> Path:
    return Path(os.environ.get(STORE_ENV) or DEFAULT_STORE)


def get_store() -> ParquetStore:
    return ParquetStore(store_root())


def sweep_ids(records: list[dict[str, Any]]) -> list[str]:
    """Sweep ids, newest first."""
    ordered = sorted(records, key=lambda r: str(r.get("created_at", "")), reverse=True)
    return [r["sweep_id"] for r in ordered if r.get("sweep_id")]


def how_to_start(root: Path) -> str:
    return (
        f"No sweeps in `{root}` yet. Start one with `{START_COMMAND} --store {root}` "
        f"(or set `{STORE_ENV}` to the folder of an existing store), then reload this page."
    )


def require_sweep() -> tuple[ParquetStore, dict[str, Any]]:
    """The store and the sweep chosen in the sidebar; otherwise say how to start one and stop."""
    store = get_store()
    sweep_id = st.session_state.get("sweep")
    record = store.get_sweep(sweep_id) if sweep_id else None
    if record is None:
        st.info(how_to_start(store.root))
        st.stop()
    return store, record


# cached reads -----------------------------------------------------------------------------------
def _count_parts(folder: Path, nested: bool) -> int:
    try:
        entries = list(os.scandir(folder))
    except (FileNotFoundError, NotADirectoryError):
        return 0
    if nested:
        return sum(_count_parts(Path(e.path), False) for e in entries if e.is_dir())
    return sum(1 for e in entries if e.name.endswith(".parquet") and not e.name.startswith("."))


def signature(store: ParquetStore, sweep_id: str) -> tuple[int, int, int]:
    """Changes whenever a run, a configuration or the progress file of the sweep is written."""
    base = store.root / sweep_id
    try:
        progress_mtime = (base / "progress.json").stat().st_mtime_ns
    except FileNotFoundError:
        progress_mtime = 0
    return (
        _count_parts(base / "runs", nested=True),
        _count_parts(base / "configurations", nested=False),
        progress_mtime,
    )


@st.cache_data(max_entries=8, show_spinner=False)
def _runs(root: str, sweep_id: str, sig: tuple, include_failed: bool) -> pd.DataFrame:
    return ParquetStore(root).runs(sweep_id, include_failed=include_failed)


@st.cache_data(max_entries=8, show_spinner=False)
def _configurations(root: str, sweep_id: str, sig: tuple) -> pd.DataFrame:
    return ParquetStore(root).configurations(sweep_id)


@st.cache_data(max_entries=8, show_spinner=False)
def _rankings(root: str, sweep_id: str, created_at: str, sig: tuple, _record: dict[str, Any]):
    return load_rankings(ParquetStore(root), _record)


@st.cache_data(max_entries=8, show_spinner=False)
def _status(root: str, sweep_id: str, sig: tuple, tick: int) -> SweepStatus:
    return sweep_status(ParquetStore(root), sweep_id)


def runs(store: ParquetStore, sweep_id: str, *, include_failed: bool = False) -> pd.DataFrame:
    return _runs(str(store.root), sweep_id, signature(store, sweep_id), include_failed)


def configurations(store: ParquetStore, sweep_id: str) -> pd.DataFrame:
    return _configurations(str(store.root), sweep_id, signature(store, sweep_id))


def rankings(store: ParquetStore, record: dict[str, Any]):
    """``load_rankings`` for the sweep: (ranked table of every class, the classes)."""
    sweep_id = record["sweep_id"]
    return _rankings(
        str(store.root),
        sweep_id,
        str(record.get("created_at", "")),
        signature(store, sweep_id),
        record,
    )


def status(store: ParquetStore, sweep_id: str) -> SweepStatus:
    """``sweep_status``; while the progress file says running it is read afresh every tick, so
    a sweep whose process died shows as interrupted."""
    progress = store.read_progress(sweep_id) or {}
    tick = int(time.monotonic() // REFRESH_S) if progress.get("state") == "running" else 0
    return _status(str(store.root), sweep_id, signature(store, sweep_id), tick)


# live refresh -----------------------------------------------------------------------------------
def live(store: ParquetStore, sweep_id: str, render: Callable[[], None]) -> None:
    """Call ``render``; while the sweep runs, as a fragment re-rendered every REFRESH_S seconds."""
    if status(store, sweep_id).state != "running":
        render()
        return

    @st.fragment(run_every=REFRESH_S)
    def _live() -> None:
        if status(store, sweep_id).state != "running":
            st.rerun()  # the sweep stopped: a full run renders it once more, without the timer
        st.caption(f"Live: refreshed every {REFRESH_S} s while the sweep runs.")
        render()

    _live()


# pure table shaping -----------------------------------------------------------------------------
def rank_label(rank: int, tied: bool) -> str:
    return f"={int(rank)}" if tied else str(int(rank))


def rankings_table(ranked: pd.DataFrame, class_name: str) -> pd.DataFrame:
    """The ranked rows of one class, as shown: rank (ties marked '='), score, interval, limits."""
    part = ranked[ranked["class"] == class_name]
    out = pd.DataFrame(
        {
            "rank": [rank_label(r, t) for r, t in zip(part["rank"], part["tied"], strict=True)],
            "configuration": part["config_key"].to_numpy(),
            "score": part["score"].astype(float).to_numpy(),
            "95% interval": [
                f"{lo:,.1f} – {hi:,.1f}"
                for lo, hi in zip(part["score_lo"], part["score_hi"], strict=True)
            ],
            "CV %": part["cv_pct"].astype(float).to_numpy(),
            "repetitions": part["repetitions"].astype(int).to_numpy(),
            "limits": [
                "ok" if ok else str(v)
                for ok, v in zip(part["meets_limits"], part["violations"], strict=True)
            ],
        }
    )
    missing = part["cells_missing"].fillna("").astype(str).to_numpy()
    if any(missing):
        out["cells missing"] = missing
    return out


def configuration_table(
    all_runs: pd.DataFrame, configs: pd.DataFrame, runs_per_config: int
) -> pd.DataFrame:
    """One row per configuration: its reconfiguration's outcome and its run counts."""
    columns = ["configuration", "reconfiguration", "attempts", "runs done", "runs failed"]
    if runs_per_config:
        columns.append("runs planned")
    rows: dict[str, dict[str, Any]] = {}
    if len(configs):
        for key, grp in configs.groupby("config_key", sort=False):
            rows[key] = {
                "configuration": key,
                "reconfiguration": str(grp["status"].iloc[-1]),
                "attempts": len(grp),
            }
    if len(all_runs):
        for key, grp in all_runs.groupby("config_key", sort=False):
            row = rows.setdefault(key, {"configuration": key, "reconfiguration": "", "attempts": 0})
            row["runs done"] = int((grp["status"] == "ok").sum())
            row["runs failed"] = int((grp["status"] == "failed").sum())
    for row in rows.values():
        row.setdefault("runs done", 0)
        row.setdefault("runs failed", 0)
        if runs_per_config:
            row["runs planned"] = runs_per_config
    table = pd.DataFrame(list(rows.values()), columns=columns)
    return table.sort_values("configuration", kind="stable").reset_index(drop=True)


def matrix_options(record: dict[str, Any], all_runs: pd.DataFrame) -> tuple[list[str], list[str]]:
    """Patterns and concurrencies (``qd<iodepth>x<numjobs>``) of the sweep's matrix."""
    matrix = (record.get("spec") or {}).get("matrix") or {}
    patterns = [str(p) for p in matrix.get("patterns") or []]
    concurrency = [
        c if str(c).startswith("qd") else f"qd{c}" for c in matrix.get("concurrency") or []
    ]
    if not patterns and len(all_runs):
        patterns = sorted(all_runs["pattern"].unique())
    if not concurrency and len(all_runs):
        pairs = (
            all_runs[["iodepth", "numjobs"]].drop_duplicates().sort_values(["iodepth", "numjobs"])
        )
        concurrency = [
            f"qd{d}x{j}" for d, j in zip(pairs["iodepth"], pairs["numjobs"], strict=True)
        ]
    return patterns, concurrency


def heatmap_table(frame: pd.DataFrame) -> pd.DataFrame:
    """The heatmap's means as configuration × block size (4k, 8k, … in numeric order)."""
    if frame.empty:
        return pd.DataFrame(columns=["configuration"])
    wide = frame.pivot_table(
        index="config_key", columns="block_size", values="value", aggfunc="mean"
    )
    wide = wide.reindex(columns=sorted(wide.columns))
    wide.columns = [format_size(int(b)) for b in wide.columns]
    wide = wide.reset_index().rename(columns={"config_key": "configuration"})
    wide.columns.name = None
    return wide


def importances(ranked: pd.DataFrame, class_name: str) -> pd.DataFrame:
    """The class's dimension importances (empty with too few configurations)."""
    from recommender.importance import class_importances

    if ranked.empty:
        return pd.DataFrame(columns=["dimension", "importance"])
    rows = class_importances(ranked[ranked["class"] == class_name])
    return rows.drop(columns="class").sort_values("importance", ascending=False)
