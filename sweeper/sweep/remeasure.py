"""Measuring again the runs the store lost (``lost.py`` finds them): each configuration's
claimed by one sweeper, built anew, its lost runs measured alone, and what came of it said."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from optuna.trial import TrialState

from sweeper.configuration import Configuration
from sweeper.errors import StoreError
from sweeper.locking import claim, lock_record
from sweeper.store import RunAddress
from sweeper.store.base import StoredRuns
from sweeper.study import SweepStudy
from sweeper.sweep.building import STORE_WRITE_ERRORS, LoopState, build, sweep_of
from sweeper.sweep.lost import Lost, Settled, claim_lock, described, lost_runs, recorded_good
from sweeper.sweep.measure import measure

if TYPE_CHECKING:
    from sweeper.sweep.sweeper import Sweeper


def measure_lost(sw: Sweeper, state: LoopState, stored: StoredRuns) -> None:
    """Measure again the runs the store lost of configurations the study will not offer
    again (completed or pruned before a file of theirs was damaged, or completed before one
    was deleted: ``lost.py``), each configuration built anew for them, and say so; or say
    why they are not. Each configuration's are claimed (``lost.claim_lock``): of workers
    resuming the sweep at once, one measures them and the others pass them by."""
    study, outcome = state.study, state.outcome
    settled = settled_configurations(study)
    lost, notes = lost_runs(sw.spec, sw.plan.cells, stored, settled)
    if any(item.complete for item in lost):  # a failed attempt stored is no lost run
        failed = {item.key: _failed_runs(sw, item.key, stored) for item in lost if item.complete}
        lost, notes = lost_runs(sw.spec, sw.plan.cells, stored, settled, failed)
    outcome.warnings += notes
    # the operator's request names its place among the configurations measured
    place = {s.key: i for i, s in enumerate(settled, start=1)}
    for item in lost:
        if sw.stop.is_set():
            return
        try:
            with _claimed(sw, item.key) as mine:
                if mine and _still_lost(sw, state, item):
                    _measure_again(sw, state, item, place[item.key])
        except OSError as exc:
            if exc.errno not in STORE_WRITE_ERRORS:
                raise
            # as for any configuration (``_loop``): what is stored stays whole, and the
            # sweep stops rather than measure what it cannot keep
            outcome.stopped = f"cannot write to the store at {sw.store.root}: {exc.strerror or exc}"
            return
        if outcome.stopped is not None or sw.stop.is_set():
            return


def _failed_runs(sw: Sweeper, key: str, stored: StoredRuns) -> set[RunAddress]:
    """The runs of configuration ``key`` the store holds a failed attempt at and no good run."""
    runs = sw.store.runs(
        sw.spec.name,
        include_failed=True,
        config_key=key,
        columns=["cell_key", "repetition", "status"],
    )
    tried = runs[runs["status"] != "ok"]
    found = {
        RunAddress(sw.spec.name, key, cell, int(rep))
        for cell, rep in zip(tried["cell_key"], tried["repetition"], strict=True)
    }
    return found - stored.done


@contextlib.contextmanager
def _claimed(sw: Sweeper, key: str) -> Iterator[bool]:
    """Whether this sweeper holds the claim on measuring ``key``'s lost runs again for the
    block (False: another sweeper of the sweep measures them now)."""
    record = lock_record(
        f"raidsweep run {sw.spec.name} (measuring lost runs of {key} again)",
        sweep=sw.spec.name,
        store=str(sw.store.root),
        worker=sw.worker,
    )
    subject = f"the lost runs of configuration {key} of sweep {sw.spec.name!r}"
    with claim(claim_lock(sw.sweep_dir, key), subject, record) as mine:
        yield mine


def _still_lost(sw: Sweeper, state: LoopState, item: Lost) -> bool:
    """Whether ``item`` still has runs that must be measured again, its runs narrowed to
    those the store does not hold now (another sweeper may have measured them since this
    one read the store)."""
    stored = {a for a in item.runs if a in state.done or sw.store.has_run(a)}
    state.done |= stored
    item.runs -= stored
    item.required -= stored
    item.deleted -= stored
    return bool(item.required)


def _measure_again(sw: Sweeper, state: LoopState, item: Lost, position: int) -> None:
    """Build ``item``'s configuration anew and measure its lost runs alone; say what came
    of it in the outcome's warnings."""
    study, outcome = state.study, state.outcome
    config, key = Configuration.from_key(item.key), item.key
    runs = described(item.required)
    said = item.said()
    # a record number of its own: one no trial of the study has yet
    built = build(sw, state, config, len(study.trials()), position=position, again=True)
    if built.play is None:
        why = built.failure or "the sweep was stopped first"
        outcome.warnings.append(
            f"{said}; they are not measured again ({runs}): building it failed: {why}; run the "
            "sweep again to measure them"
        )
        return
    driver = sw.platform.load_driver(config, sw.spec.matrix, sw.spec.study.seed)
    sw.progress.configuration(key, "measuring lost runs again")
    skipped = dict(outcome.cells_skipped)  # said when the configuration was measured
    try:
        result = measure(
            sweep_of(sw),
            config,
            driver,
            built.play,
            state.done,
            outcome,
            None,
            item.runs,
            item.required,
        )
    except StoreError as exc:  # what is in a run's place cannot be replaced (a folder)
        outcome.warnings.append(f"{said}; they are not measured again ({runs}): {exc}")
        return
    finally:
        outcome.cells_skipped = skipped
    if state.known is not None:
        state.known.put(key, result.runs)
    measured = {a for a in item.runs if a in state.done}
    if measured:
        outcome.warnings.append(f"{said}; measured again: {described(measured)}")
    if not item.required <= measured:
        why = result.reason or ("the sweep was stopped" if sw.stop.is_set() else "they failed")
        outcome.warnings.append(
            f"{said}; not measured again: {described(item.required - measured)} ({why}); run "
            "the sweep again to measure them"
        )


def settled_configurations(study: SweepStudy) -> list[Settled]:
    """The configurations the study will not offer again, each once, in the order measured."""
    found: dict[str, Settled] = {}
    for t in study.trials(TrialState.COMPLETE, TrialState.PRUNED):
        key = t.user_attrs.get("config_key")
        if key is None:
            continue
        stopped = frozenset(t.user_attrs.get("curves_stopped") or ())
        good = recorded_good(t.user_attrs.get("runs_good"))
        was = found.get(key)
        complete = t.state == TrialState.COMPLETE or (was is not None and was.complete)
        if was is not None:
            stopped |= was.curves_stopped
            good = good if was.good is None else was.good | (good or frozenset())
        found[key] = Settled(key, complete, stopped, good)
    return list(found.values())
