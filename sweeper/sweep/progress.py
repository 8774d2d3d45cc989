"""What a sweep reports while it runs (Progress) and when it ends (Outcome)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from sweeper.store import RunAddress
from sweeper.sweep.plan import Plan
from sweeper.sweep.records import now
from sweeper.sweep.stopping import StopDecision


class Progress:
    """Receives what the sweep is doing; the CLI draws it, tests may record it."""

    def start(self, plan: Plan, done_runs: int, done_configs: int, used_s: float) -> None: ...
    def configuration(self, key: str, phase: str) -> None: ...
    def run_done(self, address: RunAddress, ok: bool, array_s: float) -> None: ...
    def configuration_done(self, key: str, status: str, array_s: float) -> None: ...
    def finish(self, outcome: Outcome) -> None: ...


@dataclass
class Outcome:
    sweep_id: str
    configurations_done: int = 0
    configurations_failed: dict[str, str] = field(default_factory=dict)
    runs_written: int = 0
    runs_skipped: int = 0
    #: this sweep's runs in the store when the run began (a resume's "already stored")
    runs_stored_before: int = 0
    runs_failed: int = 0
    #: configuration -> why it was stopped before its matrix was complete
    configurations_pruned: dict[str, str] = field(default_factory=dict)
    #: "config cell" -> why the cell was not run (its concurrency curve had stopped)
    cells_skipped: dict[str, str] = field(default_factory=dict)
    array_s: float = 0.0
    interrupted: bool = False
    recovered_trials: int = 0
    #: locks left by a holder that is gone (killed, crashed), taken over: who held them
    stale_locks: list[str] = field(default_factory=list)
    #: why the sweep stopped before its end although nobody asked (e.g. the store's disk full)
    stopped: str | None = None
    #: what the user should know of the platform (e.g. a role that is not idempotent)
    warnings: list[str] = field(default_factory=list)
    #: optimize mode with study.stop: the evidence last weighed (stop or not, and per class
    #: how sure the sweep is of its pick); None without a stop rule
    evidence: StopDecision | None = None

    @property
    def complete(self) -> bool:
        return not self.interrupted and self.stopped is None


def progress_record(state: str, plan: Plan, outcome: Outcome) -> dict[str, Any]:
    """The sweep's progress record in the store (what ``status`` and the app read)."""
    return {
        "state": state,
        "pid": os.getpid(),
        "updated_at": now().isoformat(),
        "configurations_total": len(plan.configurations),
        "runs_total": plan.runs,
        "array_s_total": plan.array_s,
        "array_s_used": outcome.array_s,
        "configurations_failed": sorted(outcome.configurations_failed),
        **({"evidence": outcome.evidence.record()} if outcome.evidence is not None else {}),
    }
