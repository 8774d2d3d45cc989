"""Building a configuration on the test storage for the sweep loop: the loop's state, the
operator asked first where one builds it, the play run (the next one started ahead), its
record kept, and what the platform says of the storage it left."""

from __future__ import annotations

import errno
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sweeper.ansible import PlayResult
from sweeper.configuration import Configuration
from sweeper.play_ahead import PlaysAhead
from sweeper.store import RunAddress
from sweeper.study import SweepStudy
from sweeper.sweep.books import KnownRuns
from sweeper.sweep.measure import Sweep
from sweeper.sweep.progress import Outcome
from sweeper.sweep.records import configuration_row, now

if TYPE_CHECKING:
    from sweeper.sweep.sweeper import Sweeper

#: errors of a store that cannot take more data: the sweep stops cleanly on them
STORE_WRITE_ERRORS = {errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO, errno.EFBIG}


@dataclass
class LoopState:
    """One run of the loop: the study, what is done, the runs known, the storage's state."""

    study: SweepStudy
    outcome: Outcome
    done: set[RunAddress]
    known: KnownRuns | None
    plays: PlaysAhead
    previous: Configuration | None = None  # what the storage is built as; None: unknown
    space: list[Configuration] | None = None  # the whole space (stopping by evidence)
    judged_at: int = -1  # configurations completed when the evidence was last weighed
    current: str | None = None  # the configuration this sweeper has claimed last


@dataclass
class Built:
    """What building a configuration came to: its play when it can be measured; else why it
    failed (None: asked to stop, or the play was canceled)."""

    play: PlayResult | None
    failure: str | None = None


def build(
    sw: Sweeper,
    state: LoopState,
    config: Configuration,
    attempt: int,
    *,
    position: int,
    again: bool,
) -> Built:
    """Build ``config`` (the operator asked first, where one builds it) and keep the record
    of its build as ``attempt``; ``again``: a configuration measured before, built anew to
    measure the runs the store lost (its record takes the first attempt number free)."""
    key = config.key
    if sw.platform.operator_builds:
        sw.progress.configuration(key, "waiting for the operator to build")
    ready = sw.platform.await_configuration(
        config,
        matrix=sw.spec.matrix,
        position=position,
        total=sw.plan.space_size,
        previous=state.previous,
        stop=sw.stop,
        prompt=sw.prompt,
    )
    if not ready:  # asked to stop while waiting: the sweep resumes at this configuration
        return Built(None)
    sw.progress.configuration(key, "reconfiguring")
    started = now()
    # the next configuration's play is started first and waits while this one is measured
    ahead = sw.spec.study.mode != "grid" or state.study.has_waiting()
    play = state.plays.reconfigure(sw.platform.extravars(config), ahead=ahead)
    reconfig_s = sw.platform.reconfiguration_time(state.previous, config) if play.ok else 0.0
    row = configuration_row(sw.spec.name, config, attempt, play, reconfig_s, started, now())
    while not sw.store.put_configuration(row) and again:
        row["attempt"] += 1
    state.outcome.array_s += reconfig_s
    if not play.ok:
        if play.status == "canceled" or sw.stop.is_set():
            return Built(None)
        state.previous = None  # the storage is in an unknown state
        return Built(None, play.failure())
    state.previous = config
    unmeasurable = sw.platform.applied(config, play)
    if unmeasurable is not None:
        return Built(None, unmeasurable)
    return Built(play)


def sweep_of(sw: Sweeper) -> Sweep:
    return Sweep(sw.spec, sw.store, sw.plan.cells, sw.classes, sw.context, sw.progress, sw.stop)
