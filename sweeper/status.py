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
    #: whether a progress record gave the totals (False: none could be read, or it holds
    #: none; the totals then read 0 for not known)
    totals_known: bool = True


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
    runs_total = int(progress.get("runs_total") or 0)
    configs_total = int(progress.get("configurations_total") or 0)
    per_config = runs_total // configs_total if configs_total else 0
    counts = ok.groupby("config_key").size() if len(ok) else None
    configs_done = int((counts >= per_config).sum()) if counts is not None and per_config else 0
    state = _state(progress, has_runs=len(runs) > 0)
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
        array_s_total=float(progress.get("array_s_total") or 0.0),
        waiting=waiting.headline if waiting is not None and state != "finished" else None,
        evidence=progress.get("evidence") if isinstance(progress.get("evidence"), dict) else None,
        totals_known=all(progress.get(k) is not None for k in _TOTALS),
    )


#: what a progress record tells of the whole sweep (the rest is counted in the store)
_TOTALS = ("configurations_total", "runs_total", "array_s_total")


def _state(progress: dict[str, Any], *, has_runs: bool) -> str:
    """The sweep's state: its progress record's (``running`` only while its process runs).
    Without one (none written, or every one damaged: the store names those) the runs tell
    what can be known: a sweep with runs has started and is not known to have finished,
    which ``interrupted`` says with its remedy (``raidsweep run SPEC`` resumes it, and writes
    the record anew)."""
    state = progress.get("state")
    if state is None:
        return "interrupted" if has_runs else "not started"
    if state == "running" and not pid_alive(progress.get("pid")):
        return "interrupted"
    return str(state)


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
    if not status.totals_known:  # no progress record read: how many there are is not known
        return f"provisional: {status.runs_done} runs measured, of a total not known ({why})"
    return (
        f"provisional: {status.configurations_done} of {status.configurations_total} "
        f"configurations measured ({why})"
    )
