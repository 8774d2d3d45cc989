"""How far a sweep has come, from its progress file and the store itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from sweeper import operator_room as operator
from sweeper.processes import pid_alive
from sweeper.store import ResultsStore


@dataclass
class SweepStatus:
    sweep_id: str
    state: str  # running | finished | interrupted | not started
    configurations_total: int
    configurations_done: int
    runs_total: int
    runs_done: int
    runs_failed: int
    array_s_used: float
    array_s_total: float
    #: what a manual sweep waits for the operator to build ("waiting for the operator:
    #: build raid10/… (3 of 9)"), also once it stopped while waiting; None otherwise
    waiting: str | None = None
    #: optimize mode with ``study.stop``: the decision last taken (stop or not, and per
    #: class how sure the sweep is of its pick), as in the progress record; None otherwise
    evidence: dict[str, Any] | None = None


def array_seconds(runs: pd.DataFrame, configurations: pd.DataFrame) -> float:
    """Array time a sweep has used: every run attempt, failed ones too, and every rebuild."""
    used = float(runs["array_time_s"].fillna(0).sum()) if len(runs) else 0.0
    if len(configurations):
        used += float(configurations["reconfig_array_time_s"].fillna(0).sum())
    return used


def sweep_status(store: ResultsStore, sweep_id: str) -> SweepStatus:
    progress = store.read_progress(sweep_id) or {}
    runs = store.runs(sweep_id, include_failed=True)
    ok = runs[runs["status"] == "ok"] if len(runs) else runs
    runs_total = int(progress.get("runs_total", 0))
    configs_total = int(progress.get("configurations_total", 0))
    per_config = runs_total // configs_total if configs_total else 0
    counts = ok.groupby("config_key").size() if len(ok) else None
    configs_done = int((counts >= per_config).sum()) if counts is not None and per_config else 0
    state = progress.get("state", "not started")
    if state == "running" and not pid_alive(progress.get("pid")):
        state = "interrupted"
    used = array_seconds(runs, store.configurations(sweep_id))
    rooms = operator.waiting_rooms(store.sweep_dir(sweep_id))
    waiting = rooms[0][1] if rooms else None
    return SweepStatus(
        sweep_id=sweep_id,
        state=state,
        configurations_total=configs_total,
        configurations_done=configs_done,
        runs_total=runs_total,
        runs_done=len(ok),
        runs_failed=int((runs["status"] == "failed").sum()) if len(runs) else 0,
        array_s_used=used,
        array_s_total=float(progress.get("array_s_total", 0.0)),
        waiting=waiting.headline if waiting is not None and state != "finished" else None,
        evidence=progress.get("evidence") if isinstance(progress.get("evidence"), dict) else None,
    )


_WHY = {
    "running": "the sweep is still running",
    "interrupted": "the sweep stopped before its end; `raidsweep run SPEC` resumes it",
    "not started": "the sweep has not started",
}


def provisional(store: ResultsStore, sweep_id: str) -> str | None:
    """:func:`provisional_note` of the sweep; a finished one is told from its progress
    record alone, without reading its runs."""
    if (store.read_progress(sweep_id) or {}).get("state") == "finished":
        return None
    return provisional_note(sweep_status(store, sweep_id))


def provisional_note(status: SweepStatus) -> str | None:
    """``provisional: N of M configurations measured (why)`` for a sweep that has not
    finished (running, interrupted, never started); None for a finished one, whose
    decisions stand (an optimize-mode study that stopped on its budget has finished)."""
    if status.state == "finished":
        return None
    why = status.waiting or _WHY.get(status.state, status.state)
    return (
        f"provisional: {status.configurations_done} of {status.configurations_total} "
        f"configurations measured ({why})"
    )
