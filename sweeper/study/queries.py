"""The queries over the study's trials: which configurations are completed, waiting or
being measured, and enqueueing those that are none of these."""

from __future__ import annotations

import optuna
from optuna.trial import TrialState

from sweeper.configuration import Configuration
from sweeper.spec import ConfigSpace
from sweeper.study.params import trial_params


def completed_keys(study: optuna.Study) -> set[str]:
    return _claimed_keys(study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))


def waiting_keys(study: optuna.Study) -> set[str]:
    return _waiting_keys(study.get_trials(deepcopy=False, states=(TrialState.WAITING,)))


def _claimed_keys(trials: list[optuna.trial.FrozenTrial]) -> set[str]:
    """The configurations of these asked trials (a trial carries its key once asked)."""
    return {t.user_attrs["config_key"] for t in trials if "config_key" in t.user_attrs}


def _waiting_keys(trials: list[optuna.trial.FrozenTrial]) -> set[str]:
    """The configurations these trials wait to be asked for."""
    waiting = (t for t in trials if t.state == TrialState.WAITING)
    # An enqueued trial has no params until asked; Optuna keeps them as "fixed_params".
    fixed = (t.system_attrs.get("fixed_params") for t in waiting)
    # A trial that fixes only the build (build_params) is not one configuration yet.
    return {Configuration.from_params(p).key for p in fixed if p and "cache_policy" in p}


def enqueue(study: optuna.Study, configs: list[Configuration], space: ConfigSpace) -> int:
    """Enqueue configurations that are neither completed, pruned, waiting, nor being measured
    (by another worker sharing the study).

    The trials are read once: another worker tells its trials outside the study's lock, and
    a configuration read as running by one read and as complete by the next would be in
    neither set, and measured again.
    """
    trials = study.get_trials(deepcopy=False)
    settled = (TrialState.COMPLETE, TrialState.RUNNING, TrialState.PRUNED)
    done = _claimed_keys([t for t in trials if t.state in settled]) | _waiting_keys(trials)
    n = 0
    for config in configs:
        if config.key not in done:
            study.enqueue_trial(trial_params(config, space))
            done.add(config.key)
            n += 1
    return n


def has_waiting(study: optuna.Study) -> bool:
    return bool(study.get_trials(deepcopy=False, states=(TrialState.WAITING,)))


def running_keys(study: optuna.Study, *, besides: int | None = None) -> set[str]:
    """Configurations being measured now (by this or another worker), but trial ``besides``."""
    trials = study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
    return _claimed_keys([t for t in trials if t.number != besides])
