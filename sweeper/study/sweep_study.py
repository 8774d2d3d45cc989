"""The sweep's study as the sweeper uses it: opened with its sampler, asked and told through
Optuna's public API, and its trials left RUNNING by a crash recovered."""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Collection, Iterator
from pathlib import Path

import optuna
from optuna.trial import TrialState

from recommender.classes import load_classes
from sweeper.configuration import Configuration
from sweeper.locking import holder_of
from sweeper.spec import ConfigSpace, SweepSpec
from sweeper.study.locks import study_lock
from sweeper.study.params import build_params
from sweeper.study.queries import completed_keys, enqueue, has_waiting, running_keys, waiting_keys
from sweeper.study.storage import study_storage
from sweeper.study.workers import worker_lock

optuna.logging.set_verbosity(optuna.logging.WARNING)
# multivariate/group TPE is what conditional spaces need; its "experimental" label is noise here
warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)


class TrialEndedElsewhere(optuna.exceptions.UpdateFinishedTrialError):
    """This sweeper's trial was ended by another process (marked failed by a sweeper that
    took it for a dead one's) while this one still measured it: it cannot be told now."""

    def __init__(self, number: int, key: str | None, state: TrialState) -> None:
        self.number, self.key, self.state = number, key, state
        what = f"configuration {key}" if key else f"trial {number}"
        super().__init__(
            f"{what} was marked {state.name} by another process while this sweeper measured it"
        )


class SweepStudy:
    """The sweep's study with the storage it lives in: asks, tells and reads through Optuna's
    public API, and serialises one worker's read-then-write steps (:meth:`lock`)."""

    def __init__(
        self, study: optuna.Study, storage: optuna.storages.BaseStorage, sweep_dir: Path
    ) -> None:
        self.study = study
        self.storage = storage
        self.sweep_dir = sweep_dir
        self._id = storage.get_study_id_from_name(study.study_name)

    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """See :func:`study_lock`; StudyLockedError when another sweeper holds it too long."""
        with study_lock(self.storage, self.sweep_dir):
            yield

    def ask(self) -> optuna.Trial:
        return self.study.ask()

    def from_queue(self, trial: optuna.Trial) -> bool:
        """Whether ``ask`` gave an enqueued trial (not a new point from the sampler)."""
        trial_id = self.storage.get_trial_id_from_study_id_trial_number(self._id, trial.number)
        return "fixed_params" in self.storage.get_trial_system_attrs(trial_id)

    def tell(
        self,
        trial: optuna.Trial | int,
        values: list[float] | None = None,
        *,
        state: TrialState | None = None,
    ) -> None:
        """Optuna's tell; TrialEndedElsewhere when another process has ended the trial
        meanwhile (Optuna's ValueError, or its UpdateFinishedTrialError in a race)."""
        try:
            self.study.tell(trial, values, state=state)
        except (ValueError, optuna.exceptions.UpdateFinishedTrialError):
            number = trial if isinstance(trial, int) else trial.number
            frozen = self.study.get_trials(deepcopy=False)[number]
            if frozen.state == TrialState.RUNNING:
                raise  # a bad value, not another process
            raise TrialEndedElsewhere(
                number, frozen.user_attrs.get("config_key"), frozen.state
            ) from None

    def recover(self, space: ConfigSpace | None = None, *, worker: str | None = None) -> int:
        """:func:`recover` this sweeper's trials left RUNNING (``worker``'s, or without a
        worker every one known dead: see :meth:`workers_not_dead`). Call it holding
        :meth:`lock`: a worker claims a trial only under it, after taking its run lock."""
        spare = self.workers_not_dead() if worker is None else {}
        return recover(self.study, space, worker=worker, spare=spare)

    def workers_not_dead(self) -> dict[str, str]:
        """The workers with trials RUNNING that a sweeper without a worker must leave alone,
        each with why: the worker is running now (its run lock in this store is held), or
        it never ran from this store (no run lock here: a worker of a shared PostgreSQL
        study on another machine, whether it still runs cannot be told from here)."""
        spare: dict[str, str] = {}
        for t in self.trials(TrialState.RUNNING):
            name = t.user_attrs.get("worker")
            if not name or name in spare:
                continue
            lock = worker_lock(self.sweep_dir, str(name))
            if not lock.exists():
                spare[name] = "it never ran from this store: it may be running elsewhere"
            elif holder_of(lock) is not None:
                spare[name] = "it is running"
        return spare

    def enqueue(self, configs: list[Configuration], space: ConfigSpace) -> int:
        return enqueue(self.study, configs, space)

    def enqueue_build(self, config: Configuration, space: ConfigSpace) -> None:
        """A trial that fixes ``config``'s RAID build, the sampler choosing the rest."""
        self.study.enqueue_trial(build_params(config, space))

    def completed_keys(self) -> set[str]:
        return completed_keys(self.study)

    def running_keys(self, *, besides: int | None = None) -> set[str]:
        return running_keys(self.study, besides=besides)

    def has_waiting(self) -> bool:
        return has_waiting(self.study)

    def waiting_keys(self) -> set[str]:
        return waiting_keys(self.study)

    def trials(self, *states: TrialState) -> list[optuna.trial.FrozenTrial]:
        """The study's trials in these states (all without), as stored (not copied)."""
        return self.study.get_trials(deepcopy=False, states=states or None)


def open_sweep_study(spec: SweepSpec, sweep_dir: Path) -> SweepStudy:
    """Create or load the sweep's study (journal file beside its results, or PostgreSQL)."""
    storage = study_storage(spec, sweep_dir)
    if spec.study.mode == "optimize" and spec.study.sampler == "tpe":
        sampler: optuna.samplers.BaseSampler = optuna.samplers.TPESampler(
            seed=spec.study.seed, multivariate=True, group=True, n_startup_trials=5
        )
    else:
        # Random search; in grid mode only enqueued trials run and it is never asked.
        sampler = optuna.samplers.RandomSampler(seed=spec.study.seed)
    with study_lock(storage, sweep_dir):  # two workers creating the same study at once
        study = optuna.create_study(
            study_name=spec.name,
            storage=storage,
            sampler=sampler,
            directions=["maximize"] * len(spec.classes),
            load_if_exists=True,
        )
        # optuna-dashboard and every Optuna plot name the objectives "redo_log (IOPS)" …
        names = [c.objective_name for c in load_classes(spec.classes)]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            if study.metric_names != names:
                study.set_metric_names(names)
    return SweepStudy(study, storage, sweep_dir)


def open_study(spec: SweepSpec, sweep_dir: Path) -> optuna.Study:
    """The sweep's Optuna study itself (see :func:`open_sweep_study`)."""
    return open_sweep_study(spec, sweep_dir).study


def recover(
    study: optuna.Study,
    space: ConfigSpace | None = None,
    *,
    worker: str | None = None,
    spare: Collection[str] = (),
) -> int:
    """Mark trials left RUNNING by a crash or kill as failed and, given the space, enqueue
    their configurations again, first in line (any mode: optimize mode too would otherwise
    leave a half-measured configuration behind). Returns how many trials were recovered.

    With several sweepers on one study, only ``worker``'s own trials are its to recover: a
    RUNNING trial of another worker is being measured right now. Without ``worker``, the
    trials of every worker but those in ``spare`` (workers alive, or not known dead).
    """
    stale = [
        t
        for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,))
        if (t.user_attrs.get("worker") == worker)
        or (worker is None and t.user_attrs.get("worker") not in spare)
    ]
    lost = [t.user_attrs["config_key"] for t in stale if "config_key" in t.user_attrs]
    for t in stale:
        study.tell(t.number, state=TrialState.FAIL)
    if space is not None:
        enqueue(study, [Configuration.from_key(k) for k in lost], space)
    return len(stale)
