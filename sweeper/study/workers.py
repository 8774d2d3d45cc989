"""The workers of one sweep and their run locks: who runs the sweep from this store now."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sweeper.locking import LockHeld, describe_holder, holder_of


def worker_lock(sweep_dir: Path, worker: str) -> Path:
    """The lock a worker holds in the sweep's folder while it runs (``run --worker``); the
    name the Sweeper's own lock has (``sweeper.sweep.sweeper.Sweeper._own_lock``)."""
    return sweep_dir / f".run-{worker}.lock"


def live_workers(sweep_dir: Path) -> dict[str, dict[str, Any]]:
    """The workers running the sweep from this store now (their run lock held), each with
    the record its lock holds (who, where, since when)."""
    found = {}
    for path in sorted(sweep_dir.glob(".run-*.lock")):
        holder = holder_of(path)
        if holder is not None:
            found[str(holder.get("worker") or path.name[len(".run-") : -len(".lock")])] = holder
    return found


def workers_refusal(
    sweep_dir: Path, subject: str, advice: Callable[[str, str], str]
) -> LockHeld | None:
    """The refusal of a command that cannot run while workers run the sweep from this store
    (``subject``: the sweep, as the refusal names it), each live worker named with its
    holder; ``advice(names, pids)`` says what to do. None while no worker runs it."""
    live = live_workers(sweep_dir)
    if not live:
        return None
    names = ", ".join(live)
    pids = " ".join(str(h.get("pid")) for h in live.values() if h.get("pid"))
    # each problem reads after "<sweep> is " (``warn_busy``) as after "error: <sweep>:"
    problems = [f"in use by worker {name}: {describe_holder(h)}" for name, h in live.items()]
    problems[-1] += ": " + advice(names, pids)
    return LockHeld(subject, problems)
