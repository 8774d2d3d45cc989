"""The sweep loop: ask the study for a configuration, build it with Ansible, measure it, tell
the study; until the grid or the budget is spent, the space exhausted, or asked to stop."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from typing import TYPE_CHECKING

import optuna
import pandas as pd
from optuna.trial import TrialState

from recommender.scoring import objective_values, rank_classes
from sweeper.configuration import Configuration, enumerate_configurations
from sweeper.locking import LockHeld
from sweeper.play_ahead import PlaysAhead
from sweeper.status import array_seconds
from sweeper.study import (
    StudyLockedError,
    SweepStudy,
    open_sweep_study,
    suggest_configuration,
    workers_refusal,
)
from sweeper.sweep.books import KnownRuns
from sweeper.sweep.building import STORE_WRITE_ERRORS, LoopState, build, sweep_of
from sweeper.sweep.lost import good_record
from sweeper.sweep.measure import Measured, measure
from sweeper.sweep.progress import Outcome, progress_record
from sweeper.sweep.remeasure import measure_lost
from sweeper.sweep.stopping import judge

if TYPE_CHECKING:
    from sweeper.sweep.sweeper import Sweeper

MAX_REPEATED_SUGGESTIONS = 50  # the sampler keeps choosing measured points: it has converged


def run(sw: Sweeper) -> Outcome:
    """Run or resume the sweep (its locks held by the caller); LockHeld, nothing changed,
    for a sweeper without a worker while workers run the sweep from this store."""
    if sw.worker is None:
        refuse_beside_workers(sw)
    sw.register()
    sw.store.remove_stale_temporaries(sw.spec.name)
    outcome = Outcome(sw.spec.name)
    try:
        study = open_sweep_study(sw.spec, sw.sweep_dir)
        with study.lock():
            # without a worker: every worker's trials but those of a worker not known dead
            # (one that started since the check above, or one of another machine)
            spared = study.workers_not_dead() if sw.worker is None else {}
            outcome.recovered_trials = study.recover(sw.spec.config_space, worker=sw.worker)
    except StudyLockedError as exc:
        outcome.stopped = str(exc)  # nothing changed yet
        return outcome
    outcome.warnings += [
        f"the configuration(s) worker {name} measures were left to it ({why}); if it was "
        f"stopped, run it again (--worker {name}) to resume them"
        for name, why in spared.items()
    ]
    # The store is read here, once; from now on the sweep keeps count itself.
    stored = sw.store.stored_runs(sw.spec.name)
    done = stored.done
    # what readers leave out is said, never passed over (a lost run is measured again)
    outcome.warnings += list(dict.fromkeys(f.said() for f in stored.left_out))
    done_configs = study.completed_keys()
    outcome.array_s = _array_time_used(sw)
    wants_runs = sw.spec.study.pruning or _follows_builds(sw) or _stops_by_evidence(sw)
    known = KnownRuns(sw.store, sw.spec.name, study) if wants_runs else None
    state = LoopState(study, outcome, done, known, PlaysAhead(sw.inventory, sw.stop.is_set))
    outcome.runs_stored_before = len(done)
    if sw.worker is None:  # it recovered every worker's configurations: their states are its
        sw.store.forget_ended_workers(sw.spec.name)
    sw.progress.start(sw.plan, len(done), len(done_configs), outcome.array_s)
    _write_progress(sw, "running", outcome)
    try:
        measure_lost(sw, state, stored)
        if outcome.stopped is None:
            _loop(sw, state)
        if not sw.stop.is_set():
            _catch_up_compaction(sw)
    except StudyLockedError as exc:
        # Between configurations: stored runs are whole; the sweep resumes when run again.
        outcome.stopped = str(exc)
    except optuna.exceptions.UpdateFinishedTrialError as exc:
        # Another process ended this sweeper's trial (took it for a dead sweeper's): what
        # this one measured of it is stored, but its configuration is no longer this one's.
        outcome.stopped = _ended_elsewhere(sw, state, exc)
    finally:
        state.plays.close()
        outcome.warnings += sw.platform.warnings()
        outcome.interrupted = sw.stop.is_set()
        final = "interrupted" if outcome.interrupted or outcome.stopped else "finished"
        with contextlib.suppress(OSError):  # a full disk may refuse this too
            _write_progress(sw, final, outcome)
        sw.progress.finish(outcome)
    return outcome


def refuse_beside_workers(sw: Sweeper) -> None:
    """LockHeld naming the workers that run the sweep from this store now: a sweeper without
    a worker resumes every worker's configurations (and takes their progress for its own),
    and drives the platform's own storage, which a worker of the same spec on this machine
    drives too; it runs once no worker does (``Sweeper.refuse_if_busy`` asks before the
    preflight, ``run`` again under the study's lock)."""
    found = workers_at_work(sw)
    if found is not None:
        raise found


def workers_at_work(sw: Sweeper) -> LockHeld | None:
    """The refusal a sweeper without a worker gets while workers run the sweep from this
    store, or None (takes nothing: ``--check`` and ``plan`` say it too)."""
    return workers_refusal(
        sw.sweep_dir,
        f"sweep {sw.spec.name!r} in {sw.store.root}",
        lambda names, pids: (
            "a run without --worker resumes every worker's configurations and cannot run "
            f"while a worker does: wait for worker(s) {names} to finish, or stop them (Ctrl-C, "
            f"or kill {pids}) and run again to resume what they left, or run this one as a "
            "worker of its own (--worker NAME)"
        ),
    )


def _ended_elsewhere(sw: Sweeper, state: LoopState, exc: Exception) -> str:
    """What to say when another process ended the trial this sweeper was measuring."""
    key = getattr(exc, "key", None) or state.current or "(unknown)"
    who = f"worker {sw.worker}" if sw.worker else "this sweeper"
    return (
        f"another process marked configuration {key} failed while {who} measured it (a "
        "raidsweep run of this sweep that took it for a dead sweeper's, and measures it "
        "again); the runs measured so far are stored. Check which sweepers run this sweep"
    )


def _catch_up_compaction(sw: Sweeper) -> None:
    """The run files a sweep killed during a compaction left out of the parts, merged at the
    end of the sweep that resumed it (when there are ``compact_after_runs`` of them), even
    if nothing was left to measure."""
    try:
        sw.store.compact(sw.spec.name, only_if_large=True)
    except OSError as exc:
        if exc.errno not in STORE_WRITE_ERRORS:
            raise


def _loop(sw: Sweeper, state: LoopState) -> None:
    study, outcome, mode = state.study, state.outcome, sw.spec.study.mode
    if mode == "grid" or sw.spec.study.seed_configurations:
        seeds = [Configuration.from_key(k) for k in sw.spec.study.seed_configurations]
        grid = sw.plan.configurations if mode == "grid" else []
        with study.lock():  # another worker may be enqueueing the same grid right now
            study.enqueue(seeds + grid, sw.spec.config_space)
    if sw.warm and not study.completed_keys():
        with study.lock():  # a new sweep starts where the previous one ended
            study.enqueue(sw.warm, sw.spec.config_space)
    repeats = 0
    while not sw.stop.is_set() and not _evidence_enough(sw, state):
        if _budget_spent(sw, study, outcome):
            break
        if mode == "grid" and not study.has_waiting():
            break
        if mode == "optimize" and _space_exhausted(sw, study):
            break
        with study.lock():  # choose and claim a configuration before any other worker
            trial = study.ask()
            if state.known is not None:
                state.known.mine(trial.number)
            config = suggest_configuration(trial, sw.spec.config_space)
            trial.set_user_attr("config_key", config.key)
            if sw.worker:
                trial.set_user_attr("worker", sw.worker)
            taken = config.key in study.running_keys(besides=trial.number)
            state.current = config.key
            queued = study.from_queue(trial)
            put_back = _put_back(sw, study, config)
        if put_back:
            # The operator was asked to build another configuration (before a stop): that
            # one comes first, this one goes back in line.
            trial.set_user_attr("error", f"put back: the operator is building {put_back}")
            study.tell(trial, state=TrialState.FAIL)
            with study.lock():
                study.enqueue([config], sw.spec.config_space)
            continue
        if mode == "grid" and not queued:
            # Another worker took the grid's last configuration meanwhile.
            trial.set_user_attr("error", "the grid's queue was empty")
            study.tell(trial, state=TrialState.FAIL)
            break
        if taken:
            trial.set_user_attr("error", "being measured by another worker")
            study.tell(trial, state=TrialState.FAIL)
            repeats += 1
            if repeats >= MAX_REPEATED_SUGGESTIONS:
                break
            continue
        if config.key in study.completed_keys():
            # The sampler asked again for a configuration already measured: answer from
            # the store, spending no array time.
            _answer_from_store(sw, study, trial, config)
            repeats += 1
            if repeats >= MAX_REPEATED_SUGGESTIONS:
                break
            continue
        repeats = 0
        try:
            _evaluate(sw, state, trial, config)
            # A large sweep keeps each finished configuration as one file: fast reads.
            sw.store.compact(sw.spec.name, config.key, only_if_large=True)
        except OSError as exc:
            if exc.errno not in STORE_WRITE_ERRORS:
                raise
            # The store (or the study beside it) cannot be written: what is stored stays
            # whole (writes are atomic), the run in flight is lost, and the sweep stops
            # here rather than measure what it cannot keep.
            outcome.stopped = f"cannot write to the store at {sw.store.root}: {exc.strerror or exc}"
            with contextlib.suppress(Exception):
                study.tell(trial, state=TrialState.FAIL)
            break
        if _stays_on_build(sw, state, config):
            with study.lock():
                study.enqueue_build(config, sw.spec.config_space)


def _put_back(sw: Sweeper, study: SweepStudy, config: Configuration) -> str | None:
    """The configuration an operator was asked to build when the sweep stopped, if it is
    still to be measured and is not ``config``; None otherwise."""
    pending = sw.platform.pending_configuration()
    if pending is None or pending == config.key or pending not in study.waiting_keys():
        return None
    return pending


def _answer_from_store(
    sw: Sweeper, study: SweepStudy, trial: optuna.Trial, config: Configuration
) -> None:
    values = objective_values(sw.store.runs(sw.spec.name, config_key=config.key), sw.classes)
    trial.set_user_attr("answered_from_store", True)
    if values is None:
        study.tell(trial, state=TrialState.FAIL)
    else:
        study.tell(trial, values)


def _follows_builds(sw: Sweeper) -> bool:
    """Whether the sweep may stay on a RAID build for its next configuration."""
    return sw.spec.study.mode == "optimize" and sw.spec.study.per_build > 1


def _stays_on_build(sw: Sweeper, state: LoopState, config: Configuration) -> bool:
    """Whether the next configuration should be another on ``config``'s RAID build, the
    sampler choosing what changes without a format: in optimize mode, while ``config``
    came out best (or tied best) for some class and the build has had fewer than
    ``study.same_build`` configurations. A format costs as much as many runs."""
    study = state.study
    if not _follows_builds(sw) or study.has_waiting():
        return False
    if config.key not in study.completed_keys():
        return False  # failed or pruned: the build has shown what it can do
    build = (config.raid_level, config.layout, config.rank_count)
    measured = study.trials(TrialState.COMPLETE, TrialState.PRUNED)
    keys = {t.user_attrs.get("config_key") for t in measured} - {None}
    on_build = [
        k
        for k in keys
        if (c := Configuration.from_key(k)) and (c.raid_level, c.layout, c.rank_count) == build
    ]
    if len(on_build) >= sw.spec.study.per_build:
        return False
    assert state.known is not None  # kept whenever the sweep follows builds
    state.known.sync(study)
    ranked = rank_classes(state.known.runs(), sw.classes)
    return config.key in set(ranked.loc[ranked["rank"] == 1, "config_key"])


def _space_exhausted(sw: Sweeper, study: SweepStudy) -> bool:
    return len(study.completed_keys()) >= sw.plan.space_size


def _budget_spent(sw: Sweeper, study: SweepStudy, outcome: Outcome) -> bool:
    budget = sw.spec.study.budget
    if budget is None:
        return False
    if budget.configurations is not None and len(study.completed_keys()) >= budget.configurations:
        return True
    return budget.array_time_s is not None and outcome.array_s >= budget.array_time_s


def _stops_by_evidence(sw: Sweeper) -> bool:
    return sw.spec.study.mode == "optimize" and sw.spec.study.stop is not None


def _evidence_enough(sw: Sweeper, state: LoopState) -> bool:
    """Whether the evidence says every class's pick is near enough the best of the space
    (``study.stop``); weighed again whenever a configuration completed, kept in the outcome."""
    rule, study = sw.spec.study.stop, state.study
    completed = study.completed_keys()
    if rule is None or not _stops_by_evidence(sw) or len(completed) == state.judged_at:
        return state.outcome.evidence is not None and state.outcome.evidence.stop
    assert state.known is not None  # kept whenever the sweep stops by evidence
    state.known.sync(study)
    if state.space is None:
        state.space = enumerate_configurations(sw.spec.config_space)
    pruned = {t.user_attrs.get("config_key") for t in study.trials(TrialState.PRUNED)}
    state.outcome.evidence = judge(
        rank_classes(state.known.runs(), sw.classes),
        state.space,
        {k for k in pruned if k} | set(state.outcome.configurations_failed),
        [c.name for c in sw.classes],
        measured=len(completed),
        within_pct=rule.within_pct,
        confidence=rule.confidence,
        seed=sw.spec.study.seed,
    )
    state.judged_at = len(completed)
    if state.outcome.evidence.stop:
        _measure_predicted_best(sw, state)
    else:
        _measure_threat(sw, state)
    return state.outcome.evidence.stop


def _measure_predicted_best(sw: Sweeper, state: LoopState) -> None:
    """A pick is not recommended while an unmeasured configuration is predicted above it:
    those are measured first (the decision is then weighed again), the budget permitting."""
    decision = state.outcome.evidence
    assert decision is not None
    best = list(dict.fromkeys(c.predicted_best for c in decision.classes if c.predicted_best))
    if not best or _budget_spent(sw, state.study, state.outcome):
        return
    state.outcome.evidence = dataclasses.replace(decision, stop=False)
    with state.study.lock():
        state.study.enqueue([Configuration.from_key(k) for k in best], sw.spec.config_space)


def _measure_threat(sw: Sweeper, state: LoopState) -> None:
    """A configuration predicted to beat a pick is measured before the pick is recommended:
    the least sure class's most likely challenger goes first in line (once the evidence
    covers the space; until then the sampler chooses)."""
    assert state.outcome.evidence is not None
    judged = [c for c in state.outcome.evidence.classes if c.unsure is None and c.threat]
    if not judged:
        return
    doubt = min(judged, key=lambda c: c.confidence)
    assert doubt.threat is not None
    with state.study.lock():
        state.study.enqueue([Configuration.from_key(doubt.threat)], sw.spec.config_space)


def _array_time_used(sw: Sweeper) -> float:
    return array_seconds(
        sw.store.runs(sw.spec.name, include_failed=True),
        sw.store.configurations(sw.spec.name),
    )


def _evaluate(sw: Sweeper, state: LoopState, trial: optuna.Trial, config: Configuration) -> None:
    study, outcome, key = state.study, state.outcome, config.key
    position = len(study.completed_keys()) + 1
    built = build(sw, state, config, trial.number, position=position, again=False)
    if built.play is None:
        if built.failure is None:
            study.tell(trial, state=TrialState.FAIL)
        else:
            _fail(sw, study, trial, key, built.failure, outcome)
        return
    play = built.play
    driver = sw.platform.load_driver(config, sw.spec.matrix, sw.spec.study.seed)
    sw.progress.configuration(key, "running")
    others = functools.partial(_completed_runs, state, key) if sw.spec.study.pruning else None
    result = measure(sweep_of(sw), config, driver, play, state.done, outcome, others)
    if state.known is not None:
        state.known.put(key, result.runs)
    _tell(sw, state, trial, config, result)


def _completed_runs(state: LoopState, key: str) -> pd.DataFrame:
    """Runs of the configurations completed so far but ``key`` (what pruning compares with)."""
    assert state.known is not None  # kept whenever the sweep prunes
    state.known.sync(state.study)
    return state.known.runs(state.study.completed_keys() - {key})


def _tell(
    sw: Sweeper, state: LoopState, trial: optuna.Trial, config: Configuration, result: Measured
) -> None:
    """Tell the study what measuring ``config`` came to, and say it."""
    study, outcome, key = state.study, state.outcome, config.key
    if result.status == "interrupted":
        study.tell(trial, state=TrialState.FAIL)
        return
    if result.status == "failed":
        _fail(sw, study, trial, key, result.reason or "", outcome)
        return
    if result.status == "pruned":
        trial.set_user_attr("pruned", f"after {result.after}: {result.reason}")
        study.tell(trial, state=TrialState.PRUNED)
        outcome.configurations_pruned[key] = result.reason or ""
        sw.progress.configuration_done(key, "pruned", outcome.array_s)
        return
    if result.curves_stopped:
        trial.set_user_attr("curves_stopped", result.curves_stopped)
    # the runs it holds now: what a resume measures again if their files are lost (lost.py)
    trial.set_user_attr("runs_good", good_record(result.runs))
    values = objective_values(result.runs, sw.classes)
    if values is None:
        reason = "no class could be scored from this configuration's runs"
        _fail(sw, study, trial, key, reason, outcome)
        return
    study.tell(trial, values)
    outcome.configurations_done += 1
    sw.progress.configuration_done(key, "complete", outcome.array_s)
    _write_progress(sw, "running", outcome)


def _fail(
    sw: Sweeper, study: SweepStudy, trial: optuna.Trial, key: str, reason: str, outcome: Outcome
) -> None:
    trial.set_user_attr("error", reason)
    study.tell(trial, state=TrialState.FAIL)
    outcome.configurations_failed[key] = reason
    sw.progress.configuration_done(key, "failed", outcome.array_s)


def _write_progress(sw: Sweeper, state: str, outcome: Outcome) -> None:
    sw.store.write_progress(
        sw.spec.name, progress_record(state, sw.plan, outcome), worker=sw.worker
    )
